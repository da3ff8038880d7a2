"""Every statement the tasks app writes by hand, in one ledger (docs/architecture.md §6).

The hot reads of every MCP call and hook, and the lists of a busy project: compiling their
querysets cost more than SQLite's run of them. Each is a `Statement` (or a
`shape`, built once per shape) naming what its rows hold and the test that holds it equal
to the queryset it replaced. Names come from the models' metadata and values are
parameters: nothing here comes from a caller (hence the S608 waivers).
"""

from __future__ import annotations

from typing import NamedTuple

from django.db.models import Model

from core.rows import Statement, columns, shape
from tasks.models import STAGES, Comment, Decision, Event, Project, ProjectRules, Report, Task

ROWS = "tests/test_rows.py::"
LISTS = "tests/test_rows_lists.py::"

_TASK = columns(Task, "t")
_PROJECT = columns(Project, "p")
_RULES = columns(ProjectRules, "r")
_DECISION = columns(Decision, "d")
_COMMENT = columns(Comment, "c")
# A comments_list thread's head needs the task's key and title only: the rest stays deferred.
LIST_TASK = columns(
    Task,
    "t",
    tuple(f.name for f in Task._meta.concrete_fields if f.name not in ("id", "key", "title")),
)


class Count(NamedTuple):
    count: int


class StageCount(NamedTuple):
    stage: str
    count: int


class Found(NamedTuple):
    found: int  # 1: there is such a row


class NewestEvent(NamedTuple):
    id: int | None  # None: the log is empty


class TaskLineRow(NamedTuple):
    """A task line's values (tasks.selectors.TaskLine), after the number it is sorted by."""

    number: int
    id: int
    key: str
    title: str
    stage: str
    size: str
    waiting_on: str
    next_step: str
    next_step_stale: int
    tracker_name: str
    tracker_ref: str
    tracker_logged: int
    plan_status: str
    last_moved: str  # closed_at, else stage_changed_at, as stored


# --- lookups ---------------------------------------------------------------------------------

# Project.objects.select_related("rules").filter(slug=…).first(): nearly every MCP tool and
# project page starts here.
PROJECT_BY_SLUG = Statement(
    f"SELECT {_PROJECT.select}, {_RULES.select} FROM {_PROJECT.table} "  # noqa: S608
    f'LEFT OUTER JOIN {_RULES.table} ON r."project_id" = p."id" WHERE p."slug" = %s '
    'ORDER BY p."id" LIMIT 1',
    row=(Project, ProjectRules),
    twin=ROWS + "test_get_project_equals_the_queryset_it_replaces",
)

# Task.objects.select_related("project", "project__rules"): every MCP call and hook.
TASK_BY_KEY = Statement(
    f"SELECT {_TASK.select}, {_PROJECT.select}, {_RULES.select} FROM {_TASK.table} "  # noqa: S608
    f'INNER JOIN {_PROJECT.table} ON p."id" = t."project_id" '
    f'LEFT OUTER JOIN {_RULES.table} ON r."project_id" = p."id" WHERE t."key" = %s',
    row=(Task, Project, ProjectRules),
    twin=ROWS + "test_get_task_equals_the_queryset_it_replaces",
)

# A move the rules ask a report for (by default every move to test): one since the last move?
REPORT_SINCE = Statement(
    f'SELECT 1 FROM "{Report._meta.db_table}" '  # noqa: S608
    'WHERE "task_id" = %s AND "created_at" >= %s LIMIT 1',
    row=Found,
    twin=ROWS + "test_a_report_since_the_last_move_is_found_as_the_queryset_found_it",
)


@shape(row=(Task, Project), twin=ROWS + "test_tasks_bound_to_equals_the_queryset_it_replaces")
def linked_tasks(link: type[Model], field: str, unset: str | None) -> str:
    """The tasks another app's `link` rows point to (`b`, the row a task is linked by: the
    text is the one sessions wrote for its bindings, which tests find by it)."""
    meta = link._meta
    where = f'b."{meta.get_field(field).column}" = %s'
    if unset:
        where += f' AND b."{meta.get_field(unset).column}" IS NULL'
    return (
        f"SELECT {_TASK.select}, {_PROJECT.select} FROM {_TASK.table} "  # noqa: S608
        f'INNER JOIN {_PROJECT.table} ON p."id" = t."project_id" '
        f'INNER JOIN "{meta.db_table}" b ON b."{meta.get_field("task").column}" = t."id" '
        f'WHERE {where} ORDER BY t."id"'
    )


# --- task lines ------------------------------------------------------------------------------

TEXT_COLUMNS = ("key", "title", "description", "progress", "next_step")


def _col(name: str) -> str:
    return f't."{Task._meta.get_field(name).column}"'


# A line's values in TaskLine's order; is_next_step_stale and "closed, else moved" are asked of
# SQLite, which compares the stored UTC texts as the moments compare (one format, zero-padded;
# a whole second has no fraction and sorts before any fraction of it).
_LINE_SELECT = ", ".join(
    [
        *(_col(n) for n in ("id", "key", "title", "stage", "size", "waiting_on", "next_step")),
        f"({_col('next_step')} != '' AND {_col('next_step_at')} IS NOT NULL "
        f"AND {_col('next_step_at')} < {_col('stage_changed_at')})",
        *(_col(n) for n in ("tracker_name", "tracker_ref", "tracker_logged", "plan_status")),
        f"COALESCE({_col('closed_at')}, {_col('stage_changed_at')})",
    ]
)
_TASKS = f'"{Task._meta.db_table}" t'
_OPEN = ", ".join(f"'{s}'" for s in STAGES if s != "done")  # the stages, never a caller's


def _list_where(stage: bool, text: bool) -> str:
    where = 't."project_id" = %s' + (' AND t."stage" = %s' if stage else "")
    if text:  # Django's icontains on SQLite: LIKE with its escape character
        like = " OR ".join(f"{_col(name)} LIKE %s ESCAPE '\\'" for name in TEXT_COLUMNS)
        where += f" AND ({like})"
    return where


@shape(row=TaskLineRow, twin=LISTS + "test_task_list_answers_equal_the_querysets_they_replace")
def task_list(stage: bool, text: bool, hide_done: bool) -> str:
    """task_list's lines: `Task.objects.filter(…)` with `icontains`, open ones only when done
    tasks are left out."""
    rows = f'SELECT t."number", {_LINE_SELECT} FROM {_TASKS} WHERE {_list_where(stage, text)}'  # noqa: S608
    return f'{rows} AND t."stage" IN ({_OPEN})' if hide_done else rows


@shape(row=Count, twin=LISTS + "test_task_list_answers_equal_the_querysets_they_replace")
def task_list_done(stage: bool, text: bool) -> str:
    """task_list's count of the done tasks it left out."""
    where = _list_where(stage, text)
    return f"SELECT COUNT(*) FROM {_TASKS} WHERE {where} AND t.\"stage\" = 'done'"  # noqa: S608


SNAPSHOT_TWIN = LISTS + "test_snapshot_answers_equal_the_querysets_they_replace"
# project_snapshot's tasks: the open ones and the done ones closed since a cutoff, in two parts
# that each walk their own index (project and stage; project and closing time).
SNAPSHOT_LINES = Statement(
    f'SELECT t."number", {_LINE_SELECT} FROM {_TASKS} '  # noqa: S608
    f'WHERE t."project_id" = %s AND t."stage" IN ({_OPEN}) UNION ALL '
    f'SELECT t."number", {_LINE_SELECT} FROM {_TASKS} '
    'WHERE t."project_id" = %s AND t."closed_at" >= %s AND t."stage" = \'done\'',
    row=TaskLineRow,
    twin=SNAPSHOT_TWIN,
)
STAGE_COUNTS = Statement(
    f'SELECT "stage", COUNT(*) FROM "{Task._meta.db_table}" WHERE "project_id" = %s GROUP BY 1',  # noqa: S608
    row=StageCount,
    twin=SNAPSHOT_TWIN,
)
SNAPSHOT_DECISIONS = 20
# The current decisions (§8) with their tasks' keys: `.select_related("task")
# .order_by("-id")[:20]`.
CURRENT_DECISIONS = Statement(
    f'SELECT {_DECISION.select}, t."key" FROM {_DECISION.table} '  # noqa: S608
    f'LEFT OUTER JOIN "{Task._meta.db_table}" t ON t."id" = d."task_id" WHERE d."project_id" = %s '
    f'AND d."superseded_at" IS NULL ORDER BY d."id" DESC LIMIT {SNAPSHOT_DECISIONS}',
    row=(Decision, str),
    twin=SNAPSHOT_TWIN,
)

# --- comments --------------------------------------------------------------------------------

DELIVERY_TWIN = ROWS + "test_the_delivery_reads_equal_the_querysets_they_replace"
# The owner comments on a list of tasks that no agent read, on hooks of bound sessions. The
# task ids go in as one JSON array, so the text is the same whatever their number.
_UNREAD_OWNER = (
    'c."task_id" IN (SELECT value FROM json_each(%s)) '
    'AND c."author_kind" = %s AND c."read_at" IS NULL'
)
_NOT_DELIVERED_TO = '(c."delivered_to_session_id" IS NULL OR c."delivered_to_session_id" <> %s)'
_WITH_TASK = (
    f"SELECT {_COMMENT.select}, {_TASK.select} FROM {_COMMENT.table} "  # noqa: S608
    f'INNER JOIN {_TASK.table} ON t."id" = c."task_id" WHERE {_UNREAD_OWNER}'
)
PENDING_DELIVERY = Statement(
    f'{_WITH_TASK} AND {_NOT_DELIVERED_TO} ORDER BY c."id"',
    row=(Comment, Task),
    twin=DELIVERY_TWIN,
)
STOP_CANDIDATES = Statement(
    f'{_WITH_TASK} AND ({_NOT_DELIVERED_TO} OR c."stop_blocks" < %s) ORDER BY c."id"',
    row=(Comment, Task),
    twin=DELIVERY_TWIN,
)
UNREAD_OWNER_COUNT = Statement(
    f"SELECT COUNT(*) FROM {_COMMENT.table} WHERE {_UNREAD_OWNER}",  # noqa: S608
    row=Count,
    twin=DELIVERY_TWIN,
)

COMMENTS_TWIN = LISTS + "test_comments_list_answers_equal_the_querysets_they_replace"


def _list_joined(on_task: bool, on_project: bool, unread_only: bool) -> tuple[str, str]:
    where = ['c."task_id" = %s'] if on_task else ['t."project_id" = %s'] if on_project else []
    if unread_only:
        where.append('c."author_kind" = %s AND c."read_at" IS NULL')
    cond = f" WHERE {' AND '.join(where)}" if where else ""
    return f'{_COMMENT.table} INNER JOIN {LIST_TASK.table} ON t."id" = c."task_id"{cond}', cond


@shape(row=(Comment, Task), twin=COMMENTS_TWIN)
def comment_list(on_task: bool, on_project: bool, unread_only: bool, limit: int) -> str:
    """comments_list's newest `limit` comments, each with its task's key and title. The newest
    ids first, from the indexes alone, then those rows: sorting a busy project's 700 whole
    comments with their tasks to keep 100 cost twice as much."""
    joined, _ = _list_joined(on_task, on_project, unread_only)
    newest = f'SELECT c."id" FROM {joined} ORDER BY c."id" DESC LIMIT {limit}'  # noqa: S608
    return (
        f"SELECT {_COMMENT.select}, {LIST_TASK.select} FROM {_COMMENT.table} "  # noqa: S608
        f'INNER JOIN {LIST_TASK.table} ON t."id" = c."task_id" '
        f'WHERE c."id" IN ({newest}) ORDER BY c."id" DESC'
    )


@shape(row=Count, twin=COMMENTS_TWIN)
def comment_list_count(on_task: bool, on_project: bool, unread_only: bool) -> str:
    """How many comments comments_list's filters hold (the left-out count)."""
    joined, cond = _list_joined(on_task, on_project, unread_only)
    counted = joined if on_project else f"{_COMMENT.table}{cond}"
    return f"SELECT COUNT(*) FROM {counted}"  # noqa: S608


# --- the event log ---------------------------------------------------------------------------


@shape(row=(Event, str, str), twin=ROWS + "test_events_since_equals_the_queryset_it_replaces")
def events_since(by_project: bool) -> str:
    """The events with their task's key and project's slug joined (a primary-key seek per
    row; the log is walked through (project, id) or the rowid alone)."""
    e = columns(Event, "e")
    where = "e.id > %s AND e.project_id = %s" if by_project else "e.id > %s"
    return (
        f"SELECT {e.select}, t.key, p.slug FROM {e.table} "  # noqa: S608 (no user text)
        'LEFT JOIN "tasks_task" t ON t.id = e.task_id '
        'LEFT JOIN "tasks_project" p ON p.id = e.project_id '
        f"WHERE {where} ORDER BY e.id LIMIT %s"
    )


# The Inbox badge's stamp: a total is reused until the log grows (tasks/selectors/inbox.py).
NEWEST_EVENT_ID = Statement(
    "SELECT max(id) FROM tasks_event",
    row=NewestEvent,
    twin="tests/test_sql_ledger.py::test_the_newest_event_id_is_the_logs_last",
)
