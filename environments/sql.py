"""Every statement the environments app writes by hand, in one ledger (docs/architecture.md
§6): the guard reads the stands map on every PreToolUse and project_snapshot on every call,
and compiling the querysets cost more than SQLite's run of them."""

from __future__ import annotations

from core.rows import Statement, columns
from environments.models import Environment, EnvironmentAccess

_ACCESS = columns(EnvironmentAccess, "a")
# The access entries of a project's environments in map order, what
# `EnvironmentAccess.objects.filter(environment__in=…).order_by(…)` asked.
ACCESS_ENTRIES = Statement(
    f"SELECT {_ACCESS.select} FROM {_ACCESS.table} "  # noqa: S608 - names from the models
    f'INNER JOIN "{Environment._meta.db_table}" e ON e."id" = a."environment_id" '
    'WHERE e."project_id" = %s ORDER BY a."environment_id", a."position", a."id"',
    row=EnvironmentAccess,
    twin="tests/test_rows.py::test_the_stands_map_reads_what_the_prefetching_queryset_read",
)
