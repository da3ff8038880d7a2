"""Every statement the plans app writes by hand, in one ledger (docs/architecture.md §6)."""

from __future__ import annotations

from typing import NamedTuple

from core.rows import Statement
from plans.models import DONE, PlanStep


class StepCounts(NamedTuple):
    task_id: int
    done: int
    steps: int


# Done and all steps of each task of a list, its ids one JSON array: the same text whatever
# their number (a list line needs the two counts, not the steps).
STEP_COUNTS = Statement(
    f'SELECT "task_id", SUM("status" = \'{DONE}\'), COUNT(*) FROM "{PlanStep._meta.db_table}" '  # noqa: S608
    'WHERE "task_id" IN (SELECT value FROM json_each(%s)) GROUP BY 1',
    row=StepCounts,
    twin="tests/test_sql_ledger.py::test_the_plan_step_counts_equal_the_orms",
)
