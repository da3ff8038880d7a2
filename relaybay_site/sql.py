"""The roof's hand-written statements (docs/architecture.md §6): read through the standard
library's sqlite3, read-only, before a server or a demo touches the data folder."""

from __future__ import annotations

from typing import NamedTuple

from core.rows import Statement, shape

GOLDEN = "tests/test_sql_ledger.py::"


class Applied(NamedTuple):
    app: str
    name: str


class Found(NamedTuple):
    found: int


# Which migrations a database has applied: `serve` keeps a copy before migrating a new one.
APPLIED_MIGRATIONS = Statement(
    "SELECT app, name FROM django_migrations",
    row=Applied,
    twin=GOLDEN + "test_the_roofs_statements_read_a_database_without_django",
)


@shape(row=Found, twin=GOLDEN + "test_the_roofs_statements_read_a_database_without_django")
def any_row(table: str) -> str:
    """Whether a table holds a row (the demo never seeds over a database with content);
    `table` is one of the demo's own constants."""
    return f"SELECT 1 FROM {table} LIMIT 1"  # noqa: S608
