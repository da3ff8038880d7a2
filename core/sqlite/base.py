"""Django's SQLite backend, every writing statement read by core.no_secrets first.

The ORM, `core/rows.py`'s SQL written once and raw cursors all run through
`create_cursor`, so no write reaches SQLite without the check (§9.9).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import tee
from typing import Any

from django.db.backends.sqlite3 import base

from core import no_secrets


class CheckedCursor(base.SQLiteCursorWrapper):
    """The cursor Django's backend uses, refusing a token shape in a written value."""

    def execute(self, query: str, params: Sequence[Any] | None = None) -> Any:
        if params:
            no_secrets.check_write(query, params)
        return super().execute(query, params)

    def executemany(self, query: str, param_list: Iterable[Sequence[Any]]) -> Any:
        checked, param_list = tee(param_list)
        for params in checked:
            no_secrets.check_write(query, params)
        return super().executemany(query, param_list)


class DatabaseWrapper(base.DatabaseWrapper):
    # Commits made on this connection: core/on_loop.py may hand a write to another thread
    # only if it committed nothing yet.
    commits = 0

    def create_cursor(self, name: str | None = None) -> Any:
        return self.connection.cursor(factory=CheckedCursor)

    # What the door let through lives as long as the transaction it was let through in.
    def _commit(self) -> None:
        try:
            super()._commit()
            self.commits += 1
        finally:
            no_secrets.forget_allowed()

    def _rollback(self) -> None:
        try:
            super()._rollback()
        finally:
            no_secrets.forget_allowed()
