"""Every statement the effort figures write by hand, in one ledger (docs/architecture.md §6).

The page's lines, the project's tokens and the snapshot's total read thousands of rows: the
querysets' compiling and converters cost more than SQLite's run of them. Each
names what its rows hold and the test that holds it to the ORM's figures. Names come from
the models' metadata and values are parameters (hence the S608 waivers).
"""

from __future__ import annotations

from typing import NamedTuple

from core import prices
from core.display import STAGES
from core.rows import Statement, columns, shape
from effort.intervals import TIME_EVENTS
from effort.models import EFFORT_TOTAL_INDEX, TaskEffort, TokenUsage
from tasks.models import Event, Task

GOLDEN = "tests/test_sql_ledger.py::"
SUMMED = ("responses", "shared", "input", "output", "cache_write", "cache_read", "reasoning")
TIME_COLUMNS = (  # a tally's figures, its `state` left out
    "as_of",
    "stage",
    "stage_seconds",
    "agent_seconds",
    "wall_seconds",
    "waiting_seconds",
    "agents_open",
    "waiting_open",
    "sessions",
    "turns",
)
TASK_FIELDS = ("id", "project_id", "number", "key", "title", "stage", "created_at", "updated_at")
TEXT_FIELDS = ("created_at", "updated_at")  # read as stored: parsed for the rows shown only

_EFFORT, _TASK, _USAGE, _EVENT = (m._meta.db_table for m in (TaskEffort, Task, TokenUsage, Event))
_TIME_KINDS = ", ".join(f"'{k}'" for k in sorted(TIME_EVENTS))  # the code's own names


# A line: TASK_FIELDS, its tally's TIME_COLUMNS (NULL without one), then each stage's seconds.
LineRow = NamedTuple(  # its fields: the columns, generated
    "LineRow",
    [*((f, object) for f in TASK_FIELDS), *((f"tally_{c}", object) for c in TIME_COLUMNS)]
    + [(f"{s}_seconds", float) for s in STAGES],
)
# Token sums: SUMMED's for a task's parts (`_usd` reads them in that order), prices.KINDS'
# for the chart's days.
ModelTotal = NamedTuple("ModelTotal", [("model", str), *((k, int) for k in SUMMED)])
TaskModelSums = NamedTuple(
    "TaskModelSums", [("task_id", int), ("model", str), *((k, int) for k in SUMMED)]
)
DayModelSums = NamedTuple(
    "DayModelSums", [("day", str), ("model", str), *((k, int) for k in prices.KINDS)]
)
DayTaskModelSums = NamedTuple(
    "DayTaskModelSums",
    [("day", str), ("task_id", int), ("model", str), *((k, int) for k in prices.KINDS)],
)


class TimeTotal(NamedTuple):
    tasks: int
    timed: int  # tasks with a time row
    agent_seconds: float
    grown: float  # the working rows' agent seconds since their last event


# The project's task count, its time rows, their agent seconds and the working rows' time
# since their last event (julianday of the stored UTC text; never negative). The time rows
# are one stretch of the index of the project and those three columns: through the tasks
# and each row with its kilobyte of state, they cost 2 ms at 2,000 tasks.
TIME_TOTAL = Statement(
    f'SELECT (SELECT COUNT(*) FROM "{_TASK}" WHERE "project_id" = %s), '  # noqa: S608
    'COUNT(*), COALESCE(SUM(e."agent_seconds"), 0), '
    'COALESCE(SUM(CASE WHEN e."agents_open" > 0 THEN e."agents_open" * '
    'MAX(0.0, (%s - julianday(e."as_of")) * 86400.0) ELSE 0 END), 0) '
    f'FROM "{_EFFORT}" e INDEXED BY "{EFFORT_TOTAL_INDEX}" WHERE e."project_id" = %s',
    row=TimeTotal,
    twin="tests/effort/test_effort_total.py::test_the_total_is_the_sum_of_every_tasks_effort",
)

# The model, then SUMMED's sums in their order.
_SUMS = ", ".join(f'SUM(u."{k}")' for k in SUMMED)
TOKEN_TOTALS = Statement(
    f'SELECT u."model", {_SUMS} '  # noqa: S608
    f'FROM "{_USAGE}" u INNER JOIN "{_TASK}" t ON t."id" = u."task_id" '
    'WHERE t."project_id" = %s GROUP BY u."model" ORDER BY u."model"',
    row=ModelTotal,
    twin="tests/effort/test_effort_total.py::test_the_total_is_the_sum_of_every_tasks_effort",
)


SUMS_TWIN = GOLDEN + "test_the_token_sums_equal_the_orms"


@shape(row=LineRow, twin=GOLDEN + "test_the_effort_lines_read_what_the_orm_holds")
def effort_lines() -> str:
    """A project's tasks of the filters with their time figures, newest first. Of one stage
    when the stage is not ""; from a time range's start when one is given (stored UTC text,
    compared as text): changed since, with tokens in the range, a session working now, or
    no time tally yet (replayed, then kept or not in Python). The datetimes come as text (a
    converter per value cost more than SQLite's run) and the stages' seconds also as
    numbers, for the chart's sums without a JSON parse per task."""

    def column(name: str) -> str:
        sql = f't."{Task._meta.get_field(name).column}"'
        return f"CAST({sql} AS TEXT)" if name in TEXT_FIELDS else sql

    columns = ", ".join(column(f) for f in TASK_FIELDS)
    times = ", ".join(
        f'CAST(e."{c}" AS TEXT)' if c == "as_of" else f'e."{c}"' for c in TIME_COLUMNS
    )
    stages = ", ".join(  # as floats, 0.0 for none yet: as Times.stage_seconds holds them
        f"COALESCE(json_extract(e.\"stage_seconds\", '$.{s}'), 0) + 0.0" for s in STAGES
    )
    return (
        f'SELECT {columns}, {times}, {stages} FROM "{_TASK}" t '  # noqa: S608 - names from the models
        f'LEFT JOIN "{_EFFORT}" e ON e."task_id" = t."id" '
        'WHERE t."project_id" = %s AND (%s = \'\' OR t."stage" = %s) '
        'AND (%s = \'\' OR t."updated_at" >= %s OR e."task_id" IS NULL OR e."agents_open" > 0 '
        f'OR EXISTS (SELECT 1 FROM "{_USAGE}" u WHERE u."task_id" = t."id" AND u."day" >= %s)) '
        'ORDER BY t."number" DESC'
    )


@shape(row=TaskModelSums, twin=SUMS_TWIN)
def usage() -> str:
    """A project's tokens between two days summed per task and model."""
    sums = ", ".join(f'COALESCE(SUM(u."{k}"), 0)' for k in SUMMED)
    return (
        f'SELECT u."task_id", u."model", {sums} FROM "{_USAGE}" u '  # noqa: S608 - names from the models
        f'JOIN "{_TASK}" t ON t."id" = u."task_id" '
        'WHERE t."project_id" = %s AND u."day" >= %s AND u."day" <= %s '
        'GROUP BY u."task_id", u."model"'
    )


@shape(row=DayModelSums, twin=SUMS_TWIN)
def per_day() -> str:
    """Tokens per day and model of a project's tasks (of one stage when the stage is not "").
    Read in token_usage_day_model's order (the `+` keeps SQLite off the task's index), the
    GROUP BY streams: no sort of every token row of the range."""
    sums = ", ".join(f'COALESCE(SUM(u."{k}"), 0)' for k in prices.KINDS)
    return (
        f'SELECT CAST(u."day" AS TEXT), u."model", {sums} FROM "{_USAGE}" u '  # noqa: S608 - names from the models
        'WHERE u."day" >= %s AND u."day" <= %s AND +u."task_id" IN '
        f'(SELECT "id" FROM "{_TASK}" WHERE "project_id" = %s AND (%s = \'\' OR "stage" = %s)) '
        'GROUP BY u."day", u."model"'
    )


@shape(row=DayTaskModelSums, twin=SUMS_TWIN)
def drawn_per_day() -> str:
    """Tokens per day, task and model of the drawn tasks (their ids one JSON array)."""
    sums = ", ".join(f'COALESCE(SUM(u."{k}"), 0)' for k in prices.KINDS)
    return (
        f'SELECT CAST(u."day" AS TEXT), u."task_id", u."model", {sums} FROM "{_USAGE}" u '  # noqa: S608 - names from the models
        'WHERE u."task_id" IN (SELECT value FROM json_each(%s)) '
        'AND u."day" >= %s AND u."day" <= %s GROUP BY 1, 2, 3'
    )


# --- the time tally (effort/services/tally.py) ---------------------------------------------

TALLY_TWIN = "tests/effort/test_effort_tally_later.py::"
# A time event of the task after the event its tally is as of, and before the one at hand.
_BEHIND = (
    f'EXISTS (SELECT 1 FROM "{_EVENT}" b WHERE b."task_id" = x."task_id" '  # noqa: S608
    f'AND b."id" > x."event_id" AND b."id" < %s AND b."kind" IN ({_TIME_KINDS}))'
)


@shape(row=(TaskEffort, bool), twin=TALLY_TWIN + "test_a_step_sees_the_events_it_is_behind")
def tally_row() -> str:
    """A task's tally, and whether a time event of the task before the given one is not in
    it yet (an on-loop write's step left for after its answer): one statement on every time
    event of every write."""
    found = columns(TaskEffort, "x")
    return (
        f"SELECT {found.select}, {_BEHIND} FROM {found.table} "  # noqa: S608 - names from the models
        'WHERE x."task_id" = %s'
    )


@shape(row=Event, twin=TALLY_TWIN + "test_a_left_step_is_taken_after_the_answer")
def time_events_between() -> str:
    """The task's time events after one event and before another, in order."""
    found = columns(Event, "e")
    return (
        f'SELECT {found.select} FROM {found.table} WHERE e."task_id" = %s '  # noqa: S608
        f'AND e."id" > %s AND e."id" < %s AND e."kind" IN ({_TIME_KINDS}) ORDER BY e."id"'
    )


class TaskId(NamedTuple):
    task_id: int


# The tasks whose tally is behind their time events, or who have none: what a server
# stopped between a write's commit and its left step leaves (read once, at start).
TALLIES_BEHIND = Statement(
    f'SELECT x."task_id" FROM "{_EFFORT}" x WHERE '  # noqa: S608 - names from the models
    + _BEHIND.replace("%s", "9223372036854775807")
    + f' UNION SELECT t."id" FROM "{_TASK}" t WHERE NOT EXISTS '  # noqa: S608
    f'(SELECT 1 FROM "{_EFFORT}" x WHERE x."task_id" = t."id")',
    row=TaskId,
    twin=TALLY_TWIN + "test_a_start_takes_the_steps_a_stop_left",
)
