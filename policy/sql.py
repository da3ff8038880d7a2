"""Every statement the policy app writes by hand, in one ledger (docs/architecture.md §6)."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from core.rows import shape
from policy.models import PolicyLayer


class LayerStamp(NamedTuple):
    id: int
    changed_at: datetime  # naive, in UTC: a plain cursor's, no converter


@shape(row=LayerStamp, twin="tests/test_sql_ledger.py::test_the_layer_stamps_equal_the_orms")
def layer_stamps(with_environment: bool) -> str:
    """(id, changed_at) of a scope's stored layers: its project layer and, for an
    environment, its own. The cache key of the effective policy, read on every guard call,
    so one plain statement instead of an ORM query (bench/policy_cost.py)."""
    table = PolicyLayer._meta.db_table
    sql = f"SELECT id, changed_at FROM {table} WHERE project_id = %s AND "  # noqa: S608
    if with_environment:
        return sql + "(environment_id IS NULL OR environment_id = %s)"
    return sql + "environment_id IS NULL"
