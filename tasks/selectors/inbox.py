"""The Inbox ("Needs you", §2): the tasks app's groups, and every registered group together.

Each group is one function registered with tasks.extensions.register_inbox_group, so later
issues add Review queue, Unlinked hook sessions, Agent replies, Proposed by agents and
Policy proposals as one group each without touching this module. Orders leave room for
them in the spec's order: review queue 10, waiting on you 20, rule warnings 30, not logged
40, unlinked hook sessions 50, agent replies 60, proposed by agents 70, policy proposals 80.

Every group costs a fixed number of queries whatever its length; archived done tasks
(closed before the done window, unless require_tracker_log keeps them) are left out.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import (
    Count,
    F,
    Func,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.utils import timezone

from core.display import ago, stage_label
from tasks import extensions
from tasks.events import EventKind
from tasks.extensions import InboxGroup, InboxRow
from tasks.models import Event, Task
from tasks.selectors.activity import task_href

ORDER_WAITING_ON_YOU = 20
ORDER_RULE_WARNINGS = 30
ORDER_NOT_LOGGED = 40
DETAIL_MAX = 160


def _cut(text: str, limit: int = DETAIL_MAX) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def not_archived(prefix: str = "") -> Q:
    """Tasks the board still shows: not done, done within the window, or (with
    require_tracker_log) done without the tracker mark (§2 Done column and archive)."""
    cfg = settings.RELAYBAY
    cutoff = timezone.now() - timedelta(days=cfg.done_window_days)
    q = ~Q(**{f"{prefix}stage": "done"}) | Q(**{f"{prefix}closed_at__gte": cutoff})
    if cfg.require_tracker_log:
        q |= Q(**{f"{prefix}tracker_logged": False})
    return q


def task_row(task: Task, detail: str, href: str = "", *, by: str = "") -> InboxRow:
    """A task's Inbox row as every group shows it: the key, the title, the detail and the
    project's name; `href` defaults to the task dialog (the Review queue opens its tab);
    `by` heads the title with a session's name (the sessions' groups)."""
    return InboxRow(
        title=f"{by} · {task.title}" if by else task.title,
        href=href or task_href(task.project.slug, task.key),
        detail=_cut(detail),
        key=task.key,
        project=task.project.name,
    )


def _is_owner() -> Callable[[str], bool]:
    """Whether a waiting_on names the owner: one of owner_names, case-insensitive, trimmed.
    Python compares, not SQL: SQLite's lower() only folds ASCII, owner names need not be."""
    names = {n.strip().casefold() for n in settings.RELAYBAY.owner_names if n.strip()}
    return lambda waiting_on: waiting_on.strip().casefold() in names


def _waiting_candidates() -> QuerySet[Task]:
    """Open tasks with someone to wait on: what both the group and its count read."""
    return Task.objects.exclude(stage="done").exclude(waiting_on="")


def waiting_on_you() -> InboxGroup:
    """Open tasks whose waiting_on is one of owner_names (case-insensitive, trimmed)."""
    is_owner = _is_owner()
    # One query, few columns of the open tasks with someone to wait on.
    candidates = (
        _waiting_candidates()
        .select_related("project")
        .only(
            "key",
            "title",
            "stage",
            "next_step",
            "waiting_on",
            "updated_at",
            "project__slug",
            "project__name",
        )
        .order_by("updated_at", "id")
    )
    tasks = [t for t in candidates if is_owner(t.waiting_on)]
    rows = []
    for task in tasks:
        detail = f"In {stage_label(task.stage)}"
        if task.next_step:
            detail += f" · next: {task.next_step}"
        rows.append(task_row(task, detail))
    return InboxGroup(id="waiting-on-you", title="Waiting on you", rows=tuple(rows))


def waiting_on_you_count() -> int:
    """len(waiting_on_you().rows) from one GROUP BY: one row per distinct waiting_on, not
    one object per open task (the badge on every page, issue 18)."""
    is_owner = _is_owner()
    counts = _waiting_candidates().values_list("waiting_on").annotate(n=Count("id")).order_by()
    return sum(n for waiting_on, n in counts if is_owner(waiting_on))


def _last_moves_with_warnings() -> QuerySet[Event]:
    """For each task the board still shows, its newest task.stage_changed event (the
    (task, kind, id) index), kept when its payload has a warnings key."""
    last_move = (
        Event.objects.filter(task_id=OuterRef("pk"), kind=str(EventKind.TASK_STAGE_CHANGED))
        .order_by("-id")
        .values("id")[:1]
    )
    last_moves = Task.objects.filter(not_archived()).annotate(last=Subquery(last_move))
    return Event.objects.filter(id__in=last_moves.values("last"), payload__has_key="warnings")


def _warnings(payload: dict[str, Any]) -> list[str]:
    return [str(w) for w in payload.get("warnings") or []]


def rule_warnings() -> InboxGroup:
    """Tasks whose last stage move missed a working rule, until the task moves again.

    One query: for each task the board still shows, its newest task.stage_changed event
    (the (task, id) index, read backwards), kept when that event carries warnings. Per
    shown task rather than a GROUP BY over every move ever made: archived tasks pile up,
    the shown ones do not.
    """
    events = _last_moves_with_warnings().select_related("task", "task__project").order_by("id")
    rows = []
    for event in events:
        warnings = _warnings(event.payload)
        if not warnings:
            continue
        move = f"{event.payload.get('from')} → {event.payload.get('to')}"
        more = f" (+{len(warnings) - 1} more)" if len(warnings) > 1 else ""
        rows.append(task_row(event.task, f"{move}: {warnings[0]}{more}"))
    return InboxGroup(id="rule-warnings", title="Rule warnings", rows=tuple(rows))


def rule_warnings_count() -> int:
    """len(rule_warnings().rows) as one COUNT: the one write path stores "warnings" only as
    a non-empty list (tasks/services/_taskwrite.py), which is what a row needs."""
    length = Func(
        F("payload"), Value("$.warnings"), function="JSON_ARRAY_LENGTH", output_field=IntegerField()
    )
    return _last_moves_with_warnings().annotate(n=length).filter(n__gt=0).count()


def _not_logged_tasks() -> QuerySet[Task]:
    return Task.objects.filter(stage="done", tracker_logged=False)


def not_logged() -> InboxGroup | None:
    """Done tasks without the tracker's work-log mark; only with require_tracker_log."""
    if not settings.RELAYBAY.require_tracker_log:
        return None
    tasks = _not_logged_tasks().select_related("project").order_by("closed_at", "id")
    now = timezone.now()
    rows = []
    for task in tasks:
        issue = " ".join(p for p in (task.tracker_name, task.tracker_ref) if p) or "no issue key"
        closed = f" · closed {ago(task.closed_at, now)}" if task.closed_at else ""
        rows.append(task_row(task, issue + closed))
    return InboxGroup(id="not-logged", title="Not logged in the tracker", rows=tuple(rows))


def not_logged_count() -> int:
    if not settings.RELAYBAY.require_tracker_log:
        return 0
    return _not_logged_tasks().count()


_OWN_GROUPS = (
    (ORDER_WAITING_ON_YOU, waiting_on_you, waiting_on_you_count),
    (ORDER_RULE_WARNINGS, rule_warnings, rule_warnings_count),
    (ORDER_NOT_LOGGED, not_logged, not_logged_count),
)


@extensions.plug_in_once
def register() -> None:
    """Register the tasks app's own groups (called from TasksConfig.ready())."""
    for order, fn, count in _OWN_GROUPS:
        extensions.register_inbox_group(order, fn, count)


# --- the page and the badge ------------------------------------------------------------------


@dataclass(frozen=True)
class Inbox:
    groups: list[InboxGroup]  # the groups that have rows, in order
    total: int  # rows of every group: the sidebar badge


def inbox() -> Inbox:
    global _badge
    register()
    stamp = _stamp()
    groups = [g for g in extensions.inbox_groups() if g.rows]
    found = Inbox(groups=groups, total=sum(len(g.rows) for g in groups))
    _badge = (*stamp, found.total)  # the badge of the pages after it need not count again
    return found


# The badge is in every page's frame, and counting its groups costs about ten queries — a
# third of a 2,000-task board page (bench/README.md). Every change a group shows is recorded
# as an event by the write that makes it (one write path), and what turns true with time
# alone is recorded by the minute's sweep (sessions/sweep.py); so a total is reused while no
# event has been added since it was counted, for at most BADGE_TTL seconds, within which a
# change no event names (a session ageing out of a group) shows.
BADGE_TTL = 10.0
_badge: tuple[int, float, int] | None = None  # newest event id, monotonic time, total


def _stamp() -> tuple[int, float]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT max(id) FROM tasks_event")
        newest = cursor.fetchone()[0] or 0
    return newest, time.monotonic()


def inbox_total() -> int:
    """The sidebar badge: Inbox().total, counted without building the rows (issue 18), and
    not counted again while no event was added (see BADGE_TTL)."""
    global _badge
    newest, now = _stamp()
    known = _badge
    if known is not None and known[0] == newest and now - known[1] < BADGE_TTL:
        return known[2]
    register()
    total = extensions.inbox_total()
    _badge = (newest, now, total)
    return total


def forget_badge() -> None:
    """Count again on next use (tests: a rolled-back database hands event ids out again)."""
    global _badge
    _badge = None
