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

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.db import connection
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone

from core import caches
from core.display import STAGES, ago, stage_label
from core.links import link_pattern
from core.rows import fetch_all
from tasks import extensions, sql
from tasks.events import EventKind
from tasks.extensions import InboxGroup, InboxRow
from tasks.models import Task
from tasks.selectors import sql as inbox_sql
from tasks.selectors.activity import task_href

ORDER_WAITING_ON_YOU = 20
ORDER_RULE_WARNINGS = 30
ORDER_NOT_LOGGED = 40
DETAIL_MAX = 160
OPEN_STAGES = tuple(s for s in STAGES if s != "done")


def _cut(text: str, limit: int = DETAIL_MAX) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def not_archived(prefix: str = "") -> Q:
    """Tasks the board still shows: not done, done within the window, or (with
    require_tracker_log) done without the tracker mark (§2 Done column and archive)."""
    cfg = settings.RELAYBAY
    cutoff = timezone.now() - timedelta(days=cfg.done_window_days)
    # Stages named, not "not done": SQLite then reads the shown tasks from the (stage,
    # closed_at) index, not by scanning every task a year has left behind.
    q = Q(**{f"{prefix}stage__in": OPEN_STAGES}) | Q(
        **{f"{prefix}stage": "done", f"{prefix}closed_at__gte": cutoff}
    )
    if cfg.require_tracker_log:
        q |= Q(**{f"{prefix}tracker_logged": False})
    return q


def shown_since() -> str:
    """not_archived's cutoff as a statement's parameter: a done task closed since then is
    still shown."""
    days = settings.RELAYBAY.done_window_days
    return connection.ops.adapt_datetimefield_value(timezone.now() - timedelta(days=days))  # type: ignore[no-any-return]


def task_row(task: Task, detail: str, href: str = "", *, by: str = "", mark: str = "") -> InboxRow:
    """A task's Inbox row as every group shows it: the key, the title, the detail and the
    project's name; `href` defaults to the task dialog (the Review queue opens its tab);
    `by` heads the title with a session's name and `mark` with its agent's two letters (the
    sessions' groups)."""
    project = task.project
    return value_row(
        task.key, task.title, project.slug, project.name, detail, href, by=by, mark=mark
    )


def value_row(
    key: str,
    title: str,
    slug: str,
    project: str,
    detail: str,
    href: str = "",
    *,
    by: str = "",
    mark: str = "",
) -> InboxRow:
    """task_row from a task's values, for a group that reads them as plain values."""
    return InboxRow(
        title=f"{by} · {title}" if by else title,
        href=href or task_href(slug, key),
        detail=_cut(detail),
        key=key,
        project=project,
        mark=mark,
    )


def task_links() -> Callable[[str, str], str]:
    """task_href(slug, key) for a group's rows: the board's address reversed once per group,
    not once per row (core/links.py)."""
    board = link_pattern("board", "slug")
    return lambda slug, key: f"{board(slug)}?{urlencode({'task': key})}"


def _is_owner() -> Callable[[str], bool]:
    """Whether a waiting_on names the owner: one of owner_names, case-insensitive, trimmed.
    Python compares, not SQL: SQLite's lower() only folds ASCII, owner names need not be."""
    names = {n.strip().casefold() for n in settings.RELAYBAY.owner_names if n.strip()}
    return lambda waiting_on: waiting_on.strip().casefold() in names


def _owner_values() -> tuple[list[str], int]:
    """The waiting_on values of open tasks that name the owner, and how many tasks carry
    them: one GROUP BY, one row per distinct value, not one object per open task."""
    is_owner = _is_owner()
    counts = map(inbox_sql.WaitingOn._make, fetch_all(inbox_sql.WAITING_ON_VALUES.text, []))
    owners = [(row.waiting_on, row.count) for row in counts if is_owner(row.waiting_on)]
    return [waiting_on for waiting_on, _ in owners], sum(n for _, n in owners)


def waiting_on_you(limit: int | None = None) -> InboxGroup:
    """Open tasks whose waiting_on is one of owner_names (case-insensitive, trimmed), the
    longest unchanged first; `limit` of them and how many there are: two statements written
    once (tasks/selectors/sql.py), since compiling their querysets cost more than running them."""
    values, total = _owner_values()
    found = []
    if values:
        found = fetch_all(inbox_sql.waiting_on_tasks(limit), [json.dumps(values)])
    link, rows = task_links(), []
    for task in map(inbox_sql.WaitingTask._make, found):
        detail = f"In {stage_label(task.stage)}"
        if task.next_step:
            detail += f" · next: {task.next_step}"
        href = link(task.slug, task.key)
        rows.append(value_row(task.key, task.title, task.slug, task.project, detail, href))
    return InboxGroup(id="waiting-on-you", title="Waiting on you", rows=tuple(rows), total=total)


def waiting_on_you_count() -> int:
    """len(waiting_on_you().rows) from one GROUP BY (the badge on every page)."""
    return _owner_values()[1]


def _warnings(payload: dict[str, Any]) -> list[str]:
    return [str(w) for w in payload.get("warnings") or []]


def _cut_to(rows: QuerySet[Any], limit: int | None) -> tuple[list[Any], int | None]:
    """The first `limit` rows and the whole count: two queries however many there are."""
    if limit is None:
        return list(rows), None
    return list(rows[:limit]), rows.order_by().count()


def _warned_moves(limit: int | None) -> list[inbox_sql.WarnedMove]:
    """The first `limit` shown tasks' last moves with warnings by id (None: all), each with
    how many there are."""
    statement = inbox_sql.warned_moves(settings.RELAYBAY.require_tracker_log)
    params = [str(EventKind.TASK_STAGE_CHANGED), shown_since(), -1 if limit is None else limit]
    return [inbox_sql.WarnedMove._make(row) for row in fetch_all(statement, params)]


def rule_warnings(limit: int | None = None) -> InboxGroup:
    """Tasks whose last stage move missed a working rule, until the task moves again.

    For each task the board still shows, its newest task.stage_changed event (the
    (task, kind, id) index, read backwards), kept when that event carries warnings. Per
    shown task rather than a GROUP BY over every move ever made: archived tasks pile up,
    the shown ones do not. `limit` of them, oldest warning first, and how many in all: the
    first ids and the count in one pass (inbox_sql.warned_moves), then the rows shown — two
    statements written once, since the querysets' compiling cost more than their run.
    """
    found = _warned_moves(None if limit is None else max(limit, 1))  # one: the total
    ids = json.dumps([move.id for move in found[:limit]])
    link, rows = task_links(), []
    for row in map(
        inbox_sql.WarnedMoveRow._make, fetch_all(inbox_sql.WARNED_MOVE_ROWS.text, [ids])
    ):
        payload = json.loads(row.payload)
        warnings = _warnings(payload)
        move = f"{payload.get('from')} → {payload.get('to')}"
        more = f" (+{len(warnings) - 1} more)" if len(warnings) > 1 else ""
        detail = f"{move}: {warnings[0]}{more}"
        href = link(row.slug, row.key)
        rows.append(value_row(row.key, row.title, row.slug, row.project, detail, href))
    total = found[0].total if found else 0
    return InboxGroup(id="rule-warnings", title="Rule warnings", rows=tuple(rows), total=total)


def rule_warnings_count() -> int:
    """len(rule_warnings().rows): the first warned move's window count (the badge), from
    the group's own statement rather than a queryset compiled per count."""
    found = _warned_moves(1)
    return found[0].total if found else 0


def _not_logged_tasks() -> QuerySet[Task]:
    return Task.objects.filter(stage="done", tracker_logged=False)


def not_logged(limit: int | None = None) -> InboxGroup | None:
    """Done tasks without the tracker's work-log mark; only with require_tracker_log."""
    if not settings.RELAYBAY.require_tracker_log:
        return None
    tasks = _not_logged_tasks().select_related("project").order_by("closed_at", "id")
    first, total = _cut_to(tasks, limit)
    now = timezone.now()
    rows = []
    for task in first:
        issue = " ".join(p for p in (task.tracker_name, task.tracker_ref) if p) or "no issue key"
        closed = f" · closed {ago(task.closed_at, now)}" if task.closed_at else ""
        rows.append(task_row(task, issue + closed))
    return InboxGroup(
        id="not-logged", title="Not logged in the tracker", rows=tuple(rows), total=total
    )


def not_logged_count() -> int:
    if not settings.RELAYBAY.require_tracker_log:
        return 0
    return _not_logged_tasks().count()


_OWN_GROUPS = (
    (ORDER_WAITING_ON_YOU, waiting_on_you, waiting_on_you_count, "waiting-on-you"),
    (ORDER_RULE_WARNINGS, rule_warnings, rule_warnings_count, "rule-warnings"),
    (ORDER_NOT_LOGGED, not_logged, not_logged_count, "not-logged"),
)


@extensions.plug_in_once
def register() -> None:
    """Register the tasks app's own groups (called from TasksConfig.ready()); each builds
    only the rows the page shows."""
    for order, fn, count, group_id in _OWN_GROUPS:
        extensions.register_inbox_group(order, fn, count, limited=group_id)


# --- the page and the badge ------------------------------------------------------------------


GROUP_LIMIT = 20  # rows a group shows before "Show N more" (like a column's cards)
SHOWN_MAX = 10_000  # a `shown_<group>` above this is read as this
_GROUP_ID = re.compile(r"[a-z0-9-]{1,60}")


@dataclass(frozen=True)
class InboxState:
    """The groups the reader opened further: `shown_<group id>=N` in the page's address,
    kept by the list's live refresh (its hx-include) like the board's `shown_<stage>`."""

    shown: tuple[tuple[str, int], ...] = ()

    @classmethod
    def from_query(cls, query: Any) -> InboxState:
        shown = []
        for name in sorted(query.keys()):
            group_id = name.removeprefix("shown_")
            if group_id == name or not _GROUP_ID.fullmatch(group_id):
                continue
            value = (query.get(name) or "").strip()
            if value.isdigit() and int(value) > GROUP_LIMIT:
                shown.append((group_id, min(int(value), SHOWN_MAX)))
        return cls(tuple(shown))

    def limit(self, group_id: str) -> int:
        return dict(self.shown).get(group_id, GROUP_LIMIT)

    @property
    def inputs(self) -> list[tuple[str, str]]:
        """The hidden inputs of #inbox-state: what the list's live refresh sends."""
        return self.params()

    def params(self, **raised: int) -> list[tuple[str, str]]:
        """The query of this state with the groups in `raised` opened further."""
        merged = {**dict(self.shown), **raised}
        return [(f"shown_{g}", str(n)) for g, n in sorted(merged.items()) if n > GROUP_LIMIT]


@dataclass(frozen=True)
class GroupView:
    """A group as the page shows it: its first rows, its whole count and, when it has more,
    where "Show N more" leads (the page, and the group alone through the same partial)."""

    id: str
    title: str
    rows: tuple[InboxRow, ...]
    link: str
    count: int
    more: int  # rows not shown yet
    next_batch: int  # what "Show N more" adds
    more_href: str  # the whole page with this group opened further (no script)
    more_hx: str  # this group alone, opened further


def group_view(group: InboxGroup, state: InboxState) -> GroupView:
    limit = state.limit(group.id)
    rows = group.rows[:limit]
    more = max(group.count - len(rows), 0)
    query = urlencode(state.params(**{group.id: limit + GROUP_LIMIT}))
    return GroupView(
        id=group.id,
        title=group.title,
        rows=rows,
        link=group.link,
        count=group.count,
        more=more,
        next_batch=min(more, GROUP_LIMIT),
        more_href=f"{reverse('inbox')}?{query}#inbox-{group.id}" if more else "",
        more_hx=f"{reverse('inbox_group', args=[group.id])}?{query}" if more else "",
    )


@dataclass(frozen=True)
class Inbox:
    groups: list[GroupView]  # the groups that have rows, in order, each cut to its limit
    total: int  # rows of every group: the sidebar badge
    state: InboxState = InboxState()


def inbox(state: InboxState | None = None) -> Inbox:
    """Every group with rows, each built only as far as the page shows it."""
    global _badge
    register()
    state = state or InboxState()
    stamp = _stamp()
    groups = [g for g in extensions.inbox_groups(state.limit) if g.count]
    found = Inbox(
        groups=[group_view(g, state) for g in groups],
        total=sum(g.count for g in groups),
        state=state,
    )
    _badge = (*stamp, found.total)  # the badge of the pages after it need not count again
    return found


def inbox_one(group_id: str, state: InboxState) -> GroupView | None:
    """One group for its "Show N more" (None: it has no rows now)."""
    register()
    group = extensions.inbox_group(group_id, state.limit(group_id))
    return group_view(group, state) if group is not None and group.count else None


# The badge is in every page's frame, and counting its groups costs about ten queries — a
# third of a 2,000-task board page (bench/README.md). Every change a group shows is recorded
# as an event by the write that makes it (one write path), and what turns true with time
# alone is recorded by the minute's sweep (sessions/sweep.py); so a total is reused while no
# event has been added since it was counted, for at most BADGE_TTL seconds, within which a
# change no event names (a session ageing out of a group) shows.
BADGE_TTL = 10.0
_badge: tuple[int, float, int] | None = None  # newest event id, monotonic time, total
caches.register(
    "tasks.selectors.inbox._badge",
    key="none: one total, with the newest event id it counted to",
    bound="one value",
    invalidation="an event added since it was counted, or BADGE_TTL (10 s)",
    reset="`inbox.forget_badge()` (the autouse fixture)",
)


def _stamp() -> tuple[int, float]:
    with connection.cursor() as cursor:
        cursor.execute(sql.NEWEST_EVENT_ID.text)
        newest = cursor.fetchone()[0] or 0
    return newest, time.monotonic()


def inbox_total() -> int:
    """The sidebar badge: Inbox().total, counted without building the rows, and
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
