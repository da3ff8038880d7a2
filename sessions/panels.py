"""What sessions shows on the board (§2): the cards' session dot and desktop link, the
task dialog's "Session" panel, and the view values the Sessions pages share with it.

Registered in sessions.apps.ready() through the seams of tasks.extensions; tasks never
imports this module. Every value here is ready for a template, which only loops.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from core import tokens
from core.display import Stamp, ago, stamp
from core.links import link_pattern
from core.security import current_token
from sessions import selectors, touched
from sessions.approvals import board as approval_board
from sessions.hooks import forgotten, registry, stuck
from sessions.hooks.registry import agent_mark, agent_title
from sessions.models import KIND_DESKTOP, WAITING, Session, TaskBinding
from tasks.extensions import (
    CardExtra,
    Panel,
    plug_in_once,
    register_card_extras,
    register_task_panel,
)
from tasks.models import Project, Task

PANEL_TEMPLATE = "sessions/partials/session_panel.html"
STATUS_WORDS = {"working": "working", "waiting": "waiting", "idle": "idle", "ended": "ended"}
NO_STATUS = "no hook status"
HISTORY_SHOWN = 20


# --- small values ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Status:
    """A hook status as a dot (css class) and a word."""

    key: str  # working / waiting / idle / ended / none
    word: str


def status_of(hook_status: str) -> Status:
    word = STATUS_WORDS.get(hook_status)
    return Status(hook_status, word) if word else Status("none", NO_STATUS)


def panel_urls(slug: str, key: str) -> dict[str, str]:
    args = [slug, key]
    return {
        "panel": reverse("session_panel", args=args),
        "bind": reverse("session_bind", args=args),
        "unbind": reverse("session_unbind", args=args),
    }


# --- cards -----------------------------------------------------------------------------------


WAITING_CHIP = "chip-agent-waiting"


def card_extras(tasks: list[Task]) -> dict[int, CardExtra]:
    """{task id: the bound session's name, hook status and desktop link, and a "waiting:
    <what on>" badge while it waits for an answer (sessions/waiting.py)}, in one query (the
    "possibly stuck" badge is sessions/stuck.py's own card extension)."""
    return {
        task_id: CardExtra(
            badges=_waiting_badge(session),
            session_name=session.name,  # board.js matches it with the events' session
            hook_status=session.hook_status if session.hook_status in STATUS_WORDS else "",
            desktop_link=selectors.desktop_link(session) or "",
            agent=agent_title(session.agent),
            agent_mark=agent_mark(session.agent),
        )
        for task_id, session in selectors.bound_sessions(tasks).items()
    }


def _waiting_badge(session: Session) -> tuple[tuple[str, str, str], ...]:
    if session.hook_status != WAITING or not session.activity:
        return ()
    return ((f"waiting: {session.activity}", WAITING_CHIP, ""),)


# --- the Sessions pages ----------------------------------------------------------------------

SESSIONS_SHOWN = selectors.SESSIONS_SHOWN


@dataclass(frozen=True)
class TaskLink:
    key: str
    href: str  # the task dialog over its board


@dataclass(frozen=True)
class SessionItem:
    """One row of a Sessions page."""

    id: int
    heading: str  # the title when set, else the name
    name: str
    title: str
    kind: str
    agent: str  # whose hooks report it: "Claude Code", "Codex" or ""
    status: Status
    activity: str
    active: Stamp
    cwd: str
    desktop_link: str
    unlinked_reason: str
    tasks: tuple[TaskLink, ...]
    signals: tuple[str, ...] = ()  # "possibly stuck: …", "forgotten: …" (docs/signals.md)


def session_rows(project: Project | None = None) -> list[SessionItem]:
    """The Sessions page rows (all, or a project's), newest activity first, each with its
    signals (possibly stuck, forgotten); a fixed number of queries."""
    now = timezone.now()
    board = link_pattern("board", "slug")
    signals: dict[int, list[str]] = {}
    for s in stuck.stuck_sessions(now):
        signals.setdefault(s.session_id, []).append(f"possibly stuck: {s.reason}")
    for f in forgotten.forgotten_sessions(now):
        signals.setdefault(f.session.pk, []).append(f"forgotten: {f.reason}")
    return [
        SessionItem(
            id=r.id,
            heading=r.title or r.name,
            name=r.name,
            title=r.title,
            kind=r.kind,
            agent=r.agent,
            status=status_of(r.hook_status),
            activity=r.activity,
            active=stamp(r.last_active_at, now),
            cwd=r.cwd,
            desktop_link=r.desktop_link or "",
            unlinked_reason=r.unlinked_reason,
            tasks=tuple(
                TaskLink(t.key, f"{board(t.slug)}?" + urlencode({"task": t.key})) for t in r.tasks
            ),
            signals=tuple(signals.get(r.id, ())),
        )
        for r in selectors.sessions_list(project)
    ]


# --- the task dialog's Session panel ---------------------------------------------------------


@dataclass(frozen=True)
class BoundView:
    """The session bound to the task now."""

    id: int
    heading: str  # the title when set, else the name
    name: str
    title: str
    kind: str
    agent: str  # whose hooks report it: "Claude Code", "Codex" or ""
    status: Status
    activity: str
    active: Stamp | None  # the last hook activity, else the last write
    active_is_hook: bool
    desktop_link: str
    cwd: str
    unlinked_reason: str
    bound: Stamp
    bound_by: str
    collisions: tuple[str, ...] = ()  # "with acme-shop-7 (bob): src/cart.py · 4 min ago"
    comments_note: str = ""  # when owner comments reach an agent without a turn end


def comments_note(agent: str) -> str:
    """What the owner should know before commenting to an agent without a turn end: no Stop
    holds it back to read a comment, so the comment waits for its next prompt or tool output
    ("" for an agent with one, and for a session no agent's hooks report)."""
    if not agent or registry.capabilities(agent).turn_end:
        return ""
    who = agent_title(agent) or agent
    return (
        f"{who} has no turn end to block: owner comments reach it with its next prompt or "
        "tool output."
    )


@dataclass(frozen=True)
class HistoryView:
    name: str
    title: str
    kind: str
    bound: Stamp
    bound_by: str
    unbound: Stamp | None
    unbound_by: str
    reason: str
    current: bool


@dataclass(frozen=True)
class PickerEntry:
    id: int
    heading: str  # title first …
    name: str  # … then kind, id and status small
    kind: str
    status: Status
    active: Stamp | None


@dataclass(frozen=True)
class SessionPanel:
    key: str
    slug: str
    urls: dict[str, str]
    bound: BoundView | None
    history: list[HistoryView]  # latest first, at most HISTORY_SHOWN
    history_more: bool  # older bindings exist beyond HISTORY_SHOWN
    picker_project: list[PickerEntry]
    picker_other: list[PickerEntry]
    error: str = ""

    @property
    def picker_empty(self) -> bool:
        return not self.picker_project and not self.picker_other


def _bound_view(binding: TaskBinding, now: datetime) -> BoundView:
    s = binding.session
    hook_time = s.activity_at
    return BoundView(
        id=s.id,
        heading=s.title or s.name,
        name=s.name,
        title=s.title,
        kind=s.kind,
        agent=agent_title(s.agent),
        status=status_of(s.hook_status),
        activity=s.activity,
        active=stamp(hook_time or s.last_seen_at, now),
        active_is_hook=hook_time is not None,
        desktop_link=selectors.desktop_link(s) or "",
        cwd=s.cwd,
        unlinked_reason=s.unlinked_reason,
        bound=stamp(binding.bound_at, now),
        bound_by=binding.bound_by,
        collisions=tuple(
            f"with {p.with_text(s)}: {p.what} · {ago(p.at, now)}"
            for p in touched.recent_pairs(session=s, now=now)
        ),
        comments_note=comments_note(s.agent),
    )


def _picker_entry(s: Session, now: datetime) -> PickerEntry:
    return PickerEntry(
        id=s.id,
        heading=s.title or s.name,
        name=s.name,
        kind=s.kind,
        status=status_of(s.hook_status),
        active=stamp(s.last_active, now),
    )


def session_panel(task: Task, error: str = "") -> SessionPanel:
    """The panel's values in two queries: the binding history and the picker's sessions."""
    now = timezone.now()
    history = selectors.binding_history(task, limit=HISTORY_SHOWN + 1)
    current = history[0] if history and history[0].unbound_at is None else None
    picker = selectors.picker_sessions(
        task.project, exclude=current.session_id if current else None
    )
    return SessionPanel(
        key=task.key,
        slug=task.project.slug,
        urls=panel_urls(task.project.slug, task.key),
        bound=_bound_view(current, now) if current else None,
        history=[
            HistoryView(
                name=b.session.name,
                title=b.session.title,
                kind=b.session.kind,
                bound=stamp(b.bound_at, now),
                bound_by=b.bound_by,
                unbound=stamp(b.unbound_at, now),
                unbound_by=b.unbound_by,
                reason=b.unbind_reason,
                current=b.unbound_at is None,
            )
            for b in history[:HISTORY_SHOWN]
        ],
        history_more=len(history) > HISTORY_SHOWN,
        picker_project=[_picker_entry(s, now) for s, mine in picker if mine],
        picker_other=[_picker_entry(s, now) for s, mine in picker if not mine],
        error=error,
    )


def panel_context(task: Task, error: str = "") -> dict[str, Any]:
    """What the panel template needs, also when rendered without a request."""
    return {
        "sp": session_panel(task, error),
        "csrf_token": tokens.csrf_token(current_token()),
        "desktop_kind": KIND_DESKTOP,
        "approvals": approval_board.panel_views(task),
    }


@plug_in_once
def register() -> None:
    """Plug into the board's seams once, even if ready() runs again (plain lists)."""
    register_card_extras(card_extras)
    register_task_panel(10, Panel("session", "Session", PANEL_TEMPLATE, panel_context))
