"""The Plan tab of the task dialog and the Plan section of the task page (§2 Plan tab).

Registered in plans.apps.ready() through tasks.extensions.register_task_panel; tasks never
imports this module. Every value here is ready for the template, which only loops and
branches. A fixed number of queries whatever the plan holds: the steps, the revisions, the
bound session and its todo.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.urls import reverse
from django.utils import timezone

from core import tokens
from core.display import Stamp, safe_href, stamp
from core.security import current_token
from plans import selectors
from plans.models import BLOCKED, DONE, IN_PROGRESS, PlanRevision, PlanStep
from sessions import selectors as session_selectors
from tasks.extensions import Panel, plug_in_once, register_task_panel
from tasks.models import Task

PANEL_ID = "plan"
PANEL_TEMPLATE = "plans/partials/plan_panel.html"
STATUS_WORDS = {"pending": "pending", IN_PROGRESS: "in progress", DONE: "done", BLOCKED: "blocked"}
TODO_WORDS = {"pending": "pending", "in_progress": "in progress", "completed": "done"}
REPORT_PREFIX = "report:"


@dataclass(frozen=True)
class Checkpoint:
    conformance: str
    outcome: str
    link_text: str  # "report #12", or the URL
    link_href: str  # the report on the task page, or the http(s) URL; "" = text only
    link_external: bool
    done: Stamp | None


@dataclass(frozen=True)
class StepView:
    position: int
    title: str
    details: str
    status: str
    status_word: str
    is_current: bool
    is_deviation: bool
    checkpoint: Checkpoint | None
    blocked_reason: str


@dataclass(frozen=True)
class TodoView:
    subject: str
    status: str
    status_word: str
    active_form: str


@dataclass(frozen=True)
class DiffLine:
    sign: str  # "-" or "+"
    text: str  # "2. Title"


@dataclass(frozen=True)
class RevisionView:
    number: int
    reason: str
    author: str
    created: Stamp
    changes: list[DiffLine]


@dataclass(frozen=True)
class PlanPanel:
    key: str
    accept_url: str
    status: str  # none / draft / accepted
    accepted_by: str
    accepted: Stamp | None
    counts_text: str  # "2 of 5 done · 1 deviation"
    steps: list[StepView]
    now_doing: str  # the activeForm of the todo item in progress
    todo: list[TodoView]
    todo_done: int
    session_name: str  # the bound session (its events refresh the panel), "" when none
    history: list[RevisionView]  # newest first
    error: str = ""

    @property
    def has_current(self) -> bool:
        return any(s.is_current for s in self.steps)


def _checkpoint(step: PlanStep, task: Task, now: datetime) -> Checkpoint | None:
    if step.status != DONE:
        return None
    text, href, external = step.link, "", False
    if step.link.startswith(REPORT_PREFIX):
        number = step.link[len(REPORT_PREFIX) :]
        text = f"report #{number}"
        href = reverse("task_page", args=[task.key]) + f"#report-{number}"
    elif step.link:
        href = safe_href(step.link)
        external = bool(href)
    return Checkpoint(
        conformance=step.conformance,
        outcome=step.outcome,
        link_text=text,
        link_href=href,
        link_external=external,
        done=stamp(step.done_at, now),
    )


def _current_position(steps: list[PlanStep]) -> int | None:
    """The step in progress, else the first one not done (§2 Plan tab)."""
    doing = next((s for s in steps if s.status == IN_PROGRESS), None)
    first_open = next((s for s in steps if s.status != DONE), None)
    chosen = doing or first_open
    return chosen.position if chosen else None


def _step_views(task: Task, steps: list[PlanStep], now: datetime) -> list[StepView]:
    current = _current_position(steps)
    return [
        StepView(
            position=s.position,
            title=s.title,
            details=s.details,
            status=s.status,
            status_word=STATUS_WORDS.get(s.status, s.status),
            is_current=s.position == current,
            is_deviation=selectors.is_deviation(s),
            checkpoint=_checkpoint(s, task, now),
            blocked_reason=s.outcome if s.status == BLOCKED else "",
        )
        for s in steps
    ]


def _titles(body: Any) -> list[str]:
    steps = body.get("steps") if isinstance(body, dict) else None
    if not isinstance(steps, list):
        return []
    return [str(s.get("title", "")) if isinstance(s, dict) else "" for s in steps]


def title_changes(before: list[str], after: list[str]) -> list[DiffLine]:
    """`- 2. old` / `+ 2. new` for every position whose title changed."""
    lines = []
    for i in range(max(len(before), len(after))):
        old = before[i] if i < len(before) else None
        new = after[i] if i < len(after) else None
        if old == new:
            continue
        if old is not None:
            lines.append(DiffLine("-", f"{i + 1}. {old}"))
        if new is not None:
            lines.append(DiffLine("+", f"{i + 1}. {new}"))
    return lines


def _history(rows: list[PlanRevision], now: datetime) -> list[RevisionView]:
    """Newest first; each revision's title changes against the one before it."""
    oldest_first = sorted(rows, key=lambda r: r.revision)
    views, previous = [], []
    for row in oldest_first:
        titles = _titles(row.body)
        views.append(
            RevisionView(
                number=row.revision,
                reason=row.reason,
                author=row.author,
                created=stamp(row.created_at, now),
                changes=title_changes(previous, titles),
            )
        )
        previous = titles
    return views[::-1]


def plan_panel(task: Task, error: str = "") -> PlanPanel:
    now = timezone.now()
    steps = selectors.plan_steps(task)
    summary = selectors.summarize(task, steps)
    session = session_selectors.bound_session(task)
    items = session_selectors.todo_for_session(session) if session else []
    doing = next((i for i in items if i.status == "in_progress"), None)
    return PlanPanel(
        key=task.key,
        accept_url=reverse("plan_accept", args=[task.project.slug, task.key]),
        status=summary.status,
        accepted_by=task.plan_accepted_by,
        accepted=stamp(task.plan_accepted_at, now),
        counts_text=summary.counts_text,
        steps=_step_views(task, steps, now),
        now_doing=(doing.active_form or doing.subject) if doing else "",
        todo=[
            TodoView(i.subject, i.status, TODO_WORDS.get(i.status, i.status), i.active_form)
            for i in items
        ],
        todo_done=sum(1 for i in items if i.status == "completed"),
        session_name=session.name if session else "",
        history=_history(selectors.revisions(task), now),
        error=error,
    )


def panel_context(task: Task, error: str = "") -> dict[str, Any]:
    """What the panel template needs, also when rendered without a request."""
    return {"pp": plan_panel(task, error), "csrf_token": tokens.csrf_token(current_token())}


@plug_in_once
def register() -> None:
    """Plug into the board's seams once, even if ready() runs again (plain lists)."""
    register_task_panel(20, Panel(PANEL_ID, "Plan", PANEL_TEMPLATE, panel_context, "plan"))
