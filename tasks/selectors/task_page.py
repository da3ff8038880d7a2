"""The task dialog's and task page's data (§2 Task dialog / page): ready-made values, so the
templates only loop and branch.

A fixed number of queries whatever the task holds: the task with its project, the latest
reports, the report count, the decisions, the tracker history, then whatever the
registered panels (tasks.extensions.task_panels) cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from core.display import Stamp, safe_href, stage_label, stamp
from core.errors import NotFound
from tasks import extensions
from tasks.extensions import TaskPanel
from tasks.models import Decision, Report, Task, TrackerEntry
from tasks.selectors.tasks import get_task, is_next_step_stale
from tasks.services.reports import parse_first_line

REPORTS_SHOWN = 10
DECISIONS_SHOWN = 50
TABS = ("overview", "plan", "review")
TAB_LABELS = {"overview": "Overview", "plan": "Plan", "review": "Review"}
# Report states as badges (§1 Report); an unknown state from a custom rule set stays neutral.
STATE_TONES = {
    "inspected": "neutral",
    "changed": "info",
    "verified": "ok",
    "committed": "ok",
    "pushed": "ok",
    "blocked": "bad",
}


# --- the view data -----------------------------------------------------------------------


@dataclass(frozen=True)
class TrackerMark:
    name: str
    ref: str
    href: str
    logged: bool


@dataclass(frozen=True)
class ReportView:
    id: int
    summary: str  # the first line
    headline: str  # the first line without the state and size its badges show
    body: str
    state: str
    state_tone: str
    size: str
    author: str
    created: Stamp
    expandable: bool  # the body says more than its first line


@dataclass(frozen=True)
class DecisionView:
    id: int
    text: str
    decided_by: str
    created: Stamp


@dataclass(frozen=True)
class TrackerEntryView:
    ref: str
    name: str
    href: str
    created: Stamp
    logged: Stamp | None
    unlogged: Stamp | None
    current: bool


@dataclass(frozen=True)
class Tab:
    id: str
    label: str
    href: str  # the board URL that opens the dialog on this tab
    selected: bool


@dataclass(frozen=True)
class TaskUrls:
    slug: str
    key: str
    board: str  # /p/<slug>
    dialog_link: str  # /p/<slug>?task=<key>: what "Copy link" copies
    page: str  # /t/<key>
    dialog: str  # the dialog fragment
    details: str  # the details fragment (live refresh)
    edit: str  # the edit form fragment (GET fresh values, POST saves)

    def panel(self, panel_id: str) -> str:
        """One registered panel on its own (live refresh)."""
        return reverse("task_panel", args=[self.slug, self.key, panel_id])


def task_urls(task: Task) -> TaskUrls:
    slug, key = task.project.slug, task.key
    board = reverse("board", args=[slug])
    return TaskUrls(
        slug=slug,
        key=key,
        board=board,
        dialog_link=f"{board}?" + urlencode({"task": key}),
        page=reverse("task_page", args=[key]),
        dialog=reverse("task_dialog", args=[slug, key]),
        details=reverse("task_details", args=[slug, key]),
        edit=reverse("task_edit", args=[slug, key]),
    )


@dataclass(frozen=True)
class TaskPage:
    """Everything the details section shows about one task."""

    task: Task
    urls: TaskUrls
    stage_label: str
    next_step_stale: bool
    created: Stamp
    updated: Stamp
    stage_changed: Stamp
    closed: Stamp | None
    tracker: TrackerMark | None
    reports: list[ReportView]  # newest first, at most REPORTS_SHOWN
    report_count: int
    decisions: list[DecisionView]  # newest first, at most DECISIONS_SHOWN
    decisions_more: bool  # older decisions exist beyond DECISIONS_SHOWN
    tracker_history: list[TrackerEntryView]  # newest first
    panels: list[TaskPanel] = field(default_factory=list)

    @property
    def reports_hidden(self) -> int:
        return self.report_count - len(self.reports)

    def panels_of(self, tab: str) -> list[TaskPanel]:
        return [p for p in self.panels if (p.tab if p.tab in TABS else "overview") == tab]

    def tabs(self, selected: str) -> list[Tab]:
        """Overview, then Plan and Review only when a registered panel lives there."""
        present = [t for t in TABS if t == "overview" or self.panels_of(t)]
        current = selected if selected in present else "overview"
        result = []
        for tab in present:
            query = {"task": self.task.key} | ({} if tab == "overview" else {"tab": tab})
            href = f"{self.urls.board}?{urlencode(query)}"
            result.append(Tab(tab, TAB_LABELS[tab], href, tab == current))
        return result


def _headline(r: Report) -> str:
    if not (r.state and r.size):
        return r.summary
    head = parse_first_line(r.summary, [r.state.split(" ")[0]], [r.size])
    return head.gist if head and head.gist else r.summary


def _report_view(r: Report, now: datetime) -> ReportView:
    body = r.body.strip()
    return ReportView(
        id=r.id,
        summary=r.summary,
        headline=_headline(r),
        body=body,
        state=r.state,
        state_tone=STATE_TONES.get(r.state.split(" ")[0].lower(), "neutral") if r.state else "",
        size=r.size,
        author=r.author,
        created=stamp(r.created_at, now),
        expandable=body != r.summary,
    )


def _tracker_views(
    task: Task, entries: list[TrackerEntry], now: datetime
) -> list[TrackerEntryView]:
    views = []
    current_id = entries[-1].id if entries and entries[-1].ref == task.tracker_ref else None
    for e in reversed(entries):
        views.append(
            TrackerEntryView(
                ref=e.ref,
                name=e.name,
                href=safe_href(e.url, web_only=True),
                created=stamp(e.created_at, now),
                logged=stamp(e.logged_at, now),
                unlogged=stamp(e.unlogged_at, now),
                current=e.id == current_id,
            )
        )
    return views


def task_in_project(slug: str, key: str) -> Task:
    """The task of `key` when it belongs to the project `slug`; NotFound otherwise."""
    task = get_task(key)
    if task.project.slug != (slug or "").strip().lower():
        raise NotFound(f"Task {task.key} is not in project {slug}.")
    return task


def task_page_data(task: Task, *, with_panels: bool = True) -> TaskPage:
    """The details of one task (loaded with its project by get_task / task_in_project)."""
    now = timezone.now()
    reports = list(Report.objects.filter(task=task).order_by("-id")[:REPORTS_SHOWN])
    # Always counted, so the query count never depends on how many reports exist.
    report_count = Report.objects.filter(task=task).count()
    decisions = list(Decision.objects.filter(task=task).order_by("-id")[: DECISIONS_SHOWN + 1])
    entries = list(TrackerEntry.objects.filter(task=task).order_by("id"))
    tracker = None
    if task.tracker_ref:
        tracker = TrackerMark(
            name=task.tracker_name,
            ref=task.tracker_ref,
            href=safe_href(task.tracker_url, web_only=True),
            logged=task.tracker_logged,
        )
    return TaskPage(
        task=task,
        urls=task_urls(task),
        stage_label=stage_label(task.stage),
        next_step_stale=is_next_step_stale(task),
        created=stamp(task.created_at, now),
        updated=stamp(task.updated_at, now),
        stage_changed=stamp(task.stage_changed_at, now),
        closed=stamp(task.closed_at, now),
        tracker=tracker,
        reports=[_report_view(r, now) for r in reports],
        report_count=report_count,
        decisions=[
            DecisionView(d.id, d.text, d.decided_by, stamp(d.created_at, now))
            for d in decisions[:DECISIONS_SHOWN]
        ],
        decisions_more=len(decisions) > DECISIONS_SHOWN,
        tracker_history=_tracker_views(task, entries, now),
        panels=extensions.task_panels(task) if with_panels else [],
    )


def panel_context(panel: TaskPanel, task: Task, extra: dict[str, Any]) -> dict[str, Any]:
    """What a panel template gets: its own context, plus `task` and `panel`."""
    return {**extra, **panel.context, "task": task, "panel": panel}
