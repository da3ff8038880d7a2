"""The Inbox's task groups' statements, in their own ledger (docs/architecture.md §6).

The page's groups that grow with a year's tasks and comments: Rule warnings (inbox.py),
Waiting on you (inbox.py) and Agent replies (comments.py). Each reads the values its shown
rows need and counts the rest in the same pass (a window count is taken over every row the
WHERE keeps, before the LIMIT), since compiling their querysets, and building every row as
a model to show twenty, cost more than SQLite's run. A ledger of its own: the tasks app's
(tasks/sql.py) holds the reads of every MCP call and hook, a concept of its own. Each
statement names its row and the test that holds it equal to the querysets it replaced
(tests/tasks/test_inbox_sql.py). Names come from the models' metadata and values are
parameters: nothing here comes from a caller (hence the S608 waivers).
"""

from __future__ import annotations

from typing import NamedTuple

from core.rows import Statement, columns, shape
from tasks.models import STAGES, Comment, Event, Project, Task

TWINS = "tests/tasks/test_inbox_sql.py::"

_TASK = columns(Task, "t")
_PROJECT = columns(Project, "p")
_COMMENT = columns(Comment, "c")
_TASKS = f'"{Task._meta.db_table}" t'
_EVENTS = f'"{Event._meta.db_table}"'
_OPEN = ", ".join(f"'{s}'" for s in STAGES if s != "done")  # the stages, never a caller's


def _shown(tracker_log: bool) -> str:
    """The tasks the board still shows (tasks.selectors.inbox.not_archived): open, done
    within the window (a param: its cutoff), and with `tracker_log` done without the mark."""
    shown = f"t.stage IN ({_OPEN}) OR (t.stage = 'done' AND t.closed_at >= %s)"
    return shown + " OR t.tracker_logged = 0" if tracker_log else shown


# --- Rule warnings ---------------------------------------------------------------------------
# Each shown task's newest stage move (the (task, kind, id) index read backwards), kept when it
# carries warnings: the first `limit` by id and, in the same pass, how many there are. params:
# kind, the done window's cutoff, limit (-1: all).
WARNINGS_TWIN = TWINS + "test_rule_warnings_are_the_querysets_rows"


class WarnedMove(NamedTuple):
    id: int
    total: int  # every shown task's last move with warnings


class WarnedMoveRow(NamedTuple):
    id: int
    payload: str
    key: str
    title: str
    slug: str
    project: str


@shape(row=WarnedMove, twin=WARNINGS_TWIN)
def warned_moves(tracker_log: bool) -> str:
    """The shown tasks are the board's (`_shown`)."""
    return (
        f"SELECT e.id, count(*) OVER () FROM {_EVENTS} e "  # noqa: S608
        f"WHERE e.id IN (SELECT (SELECT u.id FROM {_EVENTS} u WHERE u.task_id = t.id "
        f"AND u.kind = %s ORDER BY u.id DESC LIMIT 1) FROM {_TASKS} WHERE {_shown(tracker_log)}) "
        "AND json_array_length(e.payload, '$.warnings') > 0 ORDER BY e.id LIMIT %s"
    )


# What a warned move's row shows: its payload, its task's key and title, its project's slug
# and name; the event ids go in as one JSON array.
WARNED_MOVE_ROWS = Statement(
    f"SELECT e.id, e.payload, t.key, t.title, p.slug, p.name "  # noqa: S608
    f"FROM {_EVENTS} e INNER JOIN {_TASK.table} ON t.id = e.task_id "
    f"INNER JOIN {_PROJECT.table} ON p.id = t.project_id "
    "WHERE e.id IN (SELECT value FROM json_each(%s)) ORDER BY e.id",
    row=WarnedMoveRow,
    twin=WARNINGS_TWIN,
)


# --- Waiting on you --------------------------------------------------------------------------
# Open tasks with someone to wait on: the distinct names with how many tasks carry each (the
# group keeps those naming the owner, compared in Python), then the first `limit` of the
# tasks carrying the kept names (one JSON array), the longest unchanged first.
WAITING_TWIN = TWINS + "test_waiting_on_you_is_the_querysets_rows"
_WAITING = f"t.stage IN ({_OPEN}) AND NOT t.waiting_on = ''"


class WaitingOn(NamedTuple):
    waiting_on: str
    count: int


class WaitingTask(NamedTuple):
    key: str
    title: str
    stage: str
    next_step: str
    slug: str
    project: str


WAITING_ON_VALUES = Statement(
    f"SELECT t.waiting_on, count(*) FROM {_TASKS} WHERE {_WAITING} GROUP BY t.waiting_on",  # noqa: S608
    row=WaitingOn,
    twin=WAITING_TWIN,
)


@shape(row=WaitingTask, twin=WAITING_TWIN, kept=8)
def waiting_on_tasks(limit: int | None) -> str:
    """The first `limit` tasks carrying the kept names (None: all); a text per limit the page
    asks, the latest few kept."""
    return (
        f"SELECT t.key, t.title, t.stage, t.next_step, p.slug, p.name FROM {_TASKS} "  # noqa: S608
        f"INNER JOIN {_PROJECT.table} ON p.id = t.project_id WHERE {_WAITING} "
        "AND t.waiting_on IN (SELECT value FROM json_each(%s)) ORDER BY t.updated_at, t.id"
        + ("" if limit is None else f" LIMIT {int(limit)}")
    )


# --- Agent replies ---------------------------------------------------------------------------


class ReplyRow(NamedTuple):
    author: str  # of the task's newest unread reply
    body: str
    replies: int  # the task's unread agent replies
    key: str
    title: str
    slug: str
    project: str
    total: int  # every shown task with unread agent replies


@shape(row=ReplyRow, twin=TWINS + "test_agent_replies_are_the_querysets_rows")
def agent_replies(tracker_log: bool) -> str:
    """The shown tasks (`_shown`) with unread agent replies, the newest reply first: the
    first `limit` tasks by their newest reply's id, how many replies each, and how many
    such tasks there are, in one pass; then what those rows show. Params: the author kind,
    the done window's cutoff, the limit (-1: all)."""
    newest = (
        "SELECT max(c.id) AS id, count(*) AS n, count(*) OVER () AS total "  # noqa: S608
        f"FROM {_COMMENT.table} INNER JOIN {_TASKS} ON t.id = c.task_id "
        f"WHERE c.author_kind = %s AND c.read_at IS NULL AND ({_shown(tracker_log)}) "
        "GROUP BY c.task_id ORDER BY 1 DESC LIMIT %s"
    )
    return (
        "SELECT c.author_name, c.body, r.n, t.key, t.title, p.slug, p.name, r.total "  # noqa: S608
        f"FROM ({newest}) r INNER JOIN {_COMMENT.table} ON c.id = r.id "
        f"INNER JOIN {_TASKS} ON t.id = c.task_id "
        f"INNER JOIN {_PROJECT.table} ON p.id = t.project_id ORDER BY r.id DESC"
    )
