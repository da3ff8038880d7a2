"""Every statement the sessions app writes by hand, in one ledger (docs/architecture.md §6).

The session lookups of every agent write and hook, task_get's session section and the
lists' bound sessions: compiling their querysets cost more than SQLite's run of them.
Each names what its rows hold and the test that holds it equal to the queryset it replaced.
The effort's statements are effort/sql.py. Names come from the models' metadata and values
are parameters (hence the S608 waivers).
"""

from __future__ import annotations

from typing import NamedTuple

from core.rows import Statement, columns, shape
from sessions.models import (
    KIND_NAMED,
    Session,
    SessionAlias,
    SessionTodo,
    TaskBinding,
    TouchedPath,
)
from tasks.models import Comment, Decision, Report

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
