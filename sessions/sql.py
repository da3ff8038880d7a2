"""Every statement the sessions app writes by hand, in one ledger (docs/architecture.md §6).

The session lookups of every agent write and hook, task_get's session section and the
lists' bound sessions: compiling their querysets cost more than SQLite's run of them.
Each names what its rows hold and the test that holds it equal to the queryset it replaced.
The effort's statements are effort/sql.py. Names come from the models' metadata and values
are parameters (hence the S608 waivers).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from core.rows import Statement, columns, shape
from sessions.models import (
    ENDED,
    KIND_NAMED,
    PENDING,
    WAITING,
    WORKING,
    ApprovalRequest,
    Session,
    SessionAlias,
    SessionTodo,
    TaskBinding,
    TouchedPath,
)
from tasks.models import Comment, Decision, Event, Project, Report, Task

ROWS = "tests/test_rows.py::"

_BINDING = columns(TaskBinding, "b")
_SESSION = columns(Session, "s")


class BoundName(NamedTuple):
    task_id: int
    name: str


class BoundFacts(NamedTuple):
    task_id: int
    id: int
    name: str
    agent_exact: int
    agent_session_id: str | None
    hook_status: str
    agent: str


class Found(NamedTuple):
    found: int  # 1: there is such a row


# task_get's session section: every binding of a task, latest first, with its session.
_HISTORY = (
    f"SELECT {_BINDING.select}, {_SESSION.select} FROM {_BINDING.table} "  # noqa: S608
    f'INNER JOIN {_SESSION.table} ON s."id" = b."session_id" '
    'WHERE b."task_id" = %s ORDER BY b."id" DESC'
)


@shape(
    row=(TaskBinding, Session),
    twin=ROWS + "test_task_gets_section_reads_equal_the_querysets_they_replace",
)
def binding_history(limit: int | None) -> str:
    """The bindings of a task with their sessions, the latest `limit` (None: all)."""
    return f"{_HISTORY} LIMIT {int(limit)}" if limit else _HISTORY


# The current bindings of a list of tasks with their sessions' columns: the task ids go in as
# one JSON array, so the text is the same whatever their number (compiling an IN of
# 160 ids cost task_list more than running it).
_BOUND = (
    f'SELECT b."task_id", {{}} FROM "{TaskBinding._meta.db_table}" b '  # noqa: S608
    f'INNER JOIN "{Session._meta.db_table}" s ON s."id" = b."session_id" '
    'WHERE b."task_id" IN (SELECT value FROM json_each(%s)) AND b."unbound_at" IS NULL'
)
BOUND_SESSION_NAMES = Statement(
    _BOUND.format('s."name"'),
    row=BoundName,
    twin="tests/test_rows_lists.py::test_task_list_answers_equal_the_querysets_they_replace",
)
BOUND_SESSION_FACTS = Statement(
    _BOUND.format(
        's."id", s."name", s."agent_exact", s."agent_session_id", s."hook_status", s."agent"'
    ),
    row=BoundFacts,
    twin="tests/test_rows_lists.py::test_comments_list_answers_equal_the_querysets_they_replace",
)

# On every hook: the session an agent's own session id is linked to (the column is unique).
SESSION_BY_AGENT_ID = Statement(
    f"SELECT {_SESSION.select} FROM {_SESSION.table} "  # noqa: S608
    'WHERE s."agent_session_id" = %s',
    row=Session,
    twin=ROWS + "test_session_by_agent_id_builds_the_full_session",
)

# A fact every move to dev may ask: the task's current binding (at most one, a unique
# constraint) -> its session -> a todo row under its current id.
HAS_TODO = Statement(
    f'SELECT 1 FROM "{TaskBinding._meta.db_table}" b '  # noqa: S608
    f'INNER JOIN "{Session._meta.db_table}" s ON s."id" = b."session_id" '
    f'INNER JOIN "{SessionTodo._meta.db_table}" d ON d."session_id" = s."id" '
    'AND d."agent_session_id" = s."agent_session_id" '
    'WHERE b."task_id" = %s AND b."unbound_at" IS NULL AND s."agent_session_id" <> \'\' LIMIT 1',
    row=Found,
    twin=ROWS + "test_move_facts_read_rows_of_their_task_only",
)

# On every agent write: the session an alias names first, else the named session.
SESSION_BY_NAME = Statement(
    f"SELECT {_SESSION.select}, 0 AS pri FROM {_SESSION.table} WHERE s.id IN "  # noqa: S608
    f'(SELECT session_id FROM "{SessionAlias._meta.db_table}" WHERE name = %s) '
    f"UNION ALL SELECT {_SESSION.select}, 1 AS pri FROM {_SESSION.table} "
    f"WHERE s.kind = '{KIND_NAMED}' AND s.name = %s ORDER BY pri LIMIT 1",
    row=(Session, int),
    twin=ROWS + "test_session_lookups_build_full_sessions",
)
# A desktop session by its id.
SESSION_BY_DESKTOP = Statement(
    f"SELECT {_SESSION.select} FROM {_SESSION.table} WHERE s.desktop_id = %s",  # noqa: S608
    row=Session,
    twin=ROWS + "test_session_lookups_build_full_sessions",
)


# --- the resume brief (sessions/brief.py): a task's lines, read on every new binding ----------
# Each was a queryset whose compiling cost more than its run; the bind answer carries them.

BRIEF_TWIN = "tests/sessions/test_brief_reads.py::test_the_brief_reads_equal_the_querysets"


class LastReport(NamedTuple):
    summary: str
    body: str


class NewestUnread(NamedTuple):
    id: int
    body: str
    count: int  # every unread owner comment of the task


class CurrentDecision(NamedTuple):
    text: str
    count: int  # every current decision of the task


class RecentPath(NamedTuple):
    path: str


BRIEF_REPORT = Statement(
    f'SELECT summary, body FROM "{Report._meta.db_table}" '  # noqa: S608
    "WHERE task_id = %s ORDER BY id DESC LIMIT 1",
    row=LastReport,
    twin=BRIEF_TWIN,
)
# The window's count is taken over every row the WHERE keeps, before the LIMIT.
BRIEF_UNREAD = Statement(
    f'SELECT id, body, count(*) OVER () FROM "{Comment._meta.db_table}" '  # noqa: S608
    "WHERE task_id = %s AND author_kind = %s AND read_at IS NULL ORDER BY id DESC LIMIT 1",
    row=NewestUnread,
    twin=BRIEF_TWIN,
)


@shape(row=CurrentDecision, twin=BRIEF_TWIN)
def brief_decisions(limit: int) -> str:
    """The task's newest `limit` current decisions; param: the task."""
    return (
        f'SELECT text, count(*) OVER () FROM "{Decision._meta.db_table}" '  # noqa: S608
        f"WHERE task_id = %s AND superseded_at IS NULL ORDER BY id DESC LIMIT {int(limit)}"
    )


@shape(row=RecentPath, twin=BRIEF_TWIN)
def recent_paths(limit: int) -> str:
    """The paths the task's sessions touched while bound to it since a moment, each once, by
    its newest touch (then by path), the first `limit`; params: task, since, since."""
    return (
        f'SELECT p.path FROM "{TouchedPath._meta.db_table}" p '  # noqa: S608
        f'INNER JOIN "{TaskBinding._meta.db_table}" b ON b.session_id = p.session_id '
        "WHERE b.task_id = %s AND (b.unbound_at IS NULL OR b.unbound_at >= %s) "
        "AND p.touched_at >= %s AND p.touched_at >= b.bound_at "
        "AND (b.unbound_at IS NULL OR p.touched_at < b.unbound_at) "
        f"GROUP BY p.path ORDER BY max(p.touched_at) DESC, p.path LIMIT {int(limit)}"
    )


# --- the Inbox's session groups (sessions/inbox.py, hooks/stuck.py, hooks/forgotten.py) -------
# Each reads the plain values its rows show and counts the rest in the same pass (a window
# count is taken over every row the WHERE keeps, before the LIMIT): building every waiting,
# stuck or forgotten session as a model to show twenty cost more than the rest of the page.

INBOX_TWIN = "tests/sessions/test_inbox_sql.py::"
_WITH_TASK = (
    f'INNER JOIN "{Task._meta.db_table}" t ON t.id = b.task_id '
    f'INNER JOIN "{Project._meta.db_table}" p ON p.id = t.project_id'
)


class WaitingRow(NamedTuple):
    id: int
    name: str
    agent: str
    activity: str
    activity_at: Any  # naive from SQLite: core.rows.moment makes it aware
    total: int  # every session waiting now


class BoundTask(NamedTuple):
    session_id: int
    key: str
    title: str
    slug: str
    project: str


# Sessions waiting for an answer, but not those whose wait is a request pending in "Waiting for
# your approval" (sessions.selectors._waiting), the longest wait first (NULLs first, as
# SQLite's ORDER BY has them).
@shape(row=WaitingRow, twin=INBOX_TWIN + "test_waiting_sessions_are_the_querysets_rows", kept=8)
def waiting_sessions(limit: int) -> str:
    """The first `limit` of them; param: now. A text per limit the page asks (at most the
    group's hundred), the latest few kept."""
    return (
        "SELECT s.id, s.name, s.agent, s.activity, s.activity_at, count(*) OVER () "  # noqa: S608
        f"FROM {_SESSION.table} WHERE s.hook_status = '{WAITING}' AND NOT s.id IN "
        f'(SELECT a.session_id FROM "{ApprovalRequest._meta.db_table}" a '
        f"WHERE a.deadline > %s AND a.session_id IS NOT NULL AND a.state = '{PENDING}') "
        f"ORDER BY s.activity_at, s.id LIMIT {int(limit)}"
    )


# The open tasks bound now to a list of sessions (their ids as one JSON array), by task id.
OPEN_BOUND_TASKS = Statement(
    f'SELECT b.session_id, t.key, t.title, p.slug, p.name FROM "{TaskBinding._meta.db_table}" b '  # noqa: S608
    f"{_WITH_TASK} WHERE b.session_id IN (SELECT value FROM json_each(%s)) "
    "AND b.unbound_at IS NULL AND NOT t.stage = 'done' ORDER BY b.task_id",
    row=BoundTask,
    twin=INBOX_TWIN + "test_waiting_sessions_are_the_querysets_rows",
)


class StuckCandidate(NamedTuple):
    task_id: int
    session_id: int
    bound_at: Any  # naive from SQLite: core.rows.moment makes it aware
    hook_status: str
    wrote: Any  # the task's latest progress event, or None
    key: str
    title: str
    slug: str
    project: str
    session: str
    agent: str


@shape(row=StuckCandidate, twin=INBOX_TWIN + "test_stuck_rows_are_the_querysets_rows")
def stuck_candidates(long_work: bool, progress: tuple[str, ...]) -> str:
    """The current bindings of open tasks to the sessions possibly stuck — those a repeat
    marked (their ids as one JSON array) and, with `long_work`, every working one — each
    with the time of its task's latest `progress` event (the kinds: code's constants); by
    task id."""
    kinds = ", ".join(f"'{kind}'" for kind in progress)
    wanted = "s.id IN (SELECT value FROM json_each(%s))"
    if long_work:
        wanted = f"(s.hook_status = '{WORKING}' OR {wanted})"
    return (
        "SELECT b.task_id, b.session_id, b.bound_at, s.hook_status, "  # noqa: S608
        f'(SELECT u.created_at FROM "{Event._meta.db_table}" u WHERE u.task_id = b.task_id '
        f"AND u.kind IN ({kinds}) ORDER BY u.id DESC LIMIT 1), "
        "t.key, t.title, p.slug, p.name, s.name, s.agent "
        f'FROM "{TaskBinding._meta.db_table}" b INNER JOIN {_SESSION.table} ON s.id = b.session_id '
        f"{_WITH_TASK} WHERE b.unbound_at IS NULL AND NOT t.stage = 'done' AND {wanted} "
        "ORDER BY b.task_id"
    )


class ForgottenRow(NamedTuple):
    id: int
    since: str  # the moment it counts from, as stored: core.rows.moment reads it
    idle: int  # 1: idle for a day, 0: working with no task bound
    name: str
    title: str
    agent: str
    kind: str
    desktop_id: str | None
    project: str  # its project's name, or ""
    total: int  # every forgotten session (at most `shown` of each reason)


@shape(row=ForgottenRow, twin=INBOX_TWIN + "test_forgotten_rows_are_the_querysets_rows")
def forgotten(idle: bool, unbound: bool, shown: int) -> str:
    """The forgotten sessions (sessions/hooks/forgotten.py), the longest forgotten first: the
    first `shown` idle ones by their last moment, and the first `shown` working ones with no
    task bound by when they were made, a session in both counted once, as idle. Params: with
    `idle` its cutoff; with `unbound` the activity window's start twice; the limit (-1: all).
    Ties keep each part's own order (by id), the idle part first."""
    last = "coalesce(s.activity_at, s.last_seen_at, s.created_at)"
    parts = []
    if idle:
        parts.append(
            f"idle AS (SELECT s.id, {last} AS since, 1 AS idle FROM {_SESSION.table} "  # noqa: S608
            f"WHERE NOT s.hook_status = '{ENDED}' AND {last} < %s "
            f"ORDER BY since, s.id LIMIT {int(shown)})"
        )
    if unbound:
        current = (
            f'SELECT 1 FROM "{TaskBinding._meta.db_table}" b '  # noqa: S608
            "WHERE b.session_id = s.id AND b.unbound_at IS NULL"
        )
        parts.append(
            f"unbound AS (SELECT s.id, s.created_at AS since, 0 AS idle FROM {_SESSION.table} "  # noqa: S608
            f"WHERE s.hook_status = '{WORKING}' AND s.activity_at >= %s AND s.created_at < %s "
            f"AND NOT EXISTS ({current}) ORDER BY since, s.id LIMIT {int(shown)})"
        )
    found = "SELECT * FROM idle" if idle else "SELECT * FROM unbound"
    if idle and unbound:  # a session both idle and unbound is listed once, as idle
        found += " UNION ALL SELECT * FROM unbound WHERE id NOT IN (SELECT id FROM idle)"
    return (
        f"WITH {', '.join(parts)} "  # noqa: S608
        "SELECT f.id, f.since, f.idle, s.name, s.title, s.agent, s.kind, s.desktop_id, "
        f"coalesce(p.name, ''), count(*) OVER () FROM ({found}) f "
        f"INNER JOIN {_SESSION.table} ON s.id = f.id "
        f'LEFT OUTER JOIN "{Project._meta.db_table}" p ON p.id = s.project_id '
        "ORDER BY f.since, f.idle DESC, f.id LIMIT %s"
    )
