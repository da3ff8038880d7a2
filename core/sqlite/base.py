"""Django's SQLite backend, every writing statement read by core.no_secrets first.

The ORM, `core/rows.py`'s SQL written once and raw cursors all run through
`create_cursor`, so no write reaches SQLite without the check (§9.9).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from itertools import tee
from typing import Any

from django.db.backends.sqlite3 import base

from core import caches, no_secrets

# Django turns each statement's %s into ? with a regex on every execute (6 us, a tenth of a
# short statement's whole trip): the hot statements are the same few texts, converted once.
_QMARK: dict[str, str] = {}
_QMARK_MAX = 512
caches.register(
    "core.sqlite.base._QMARK",
    key="a statement's text with %s placeholders",
    bound=_QMARK_MAX,
    invalidation=caches.PURE,
    reset="cleared when full",
)


class CheckedCursor(base.SQLiteCursorWrapper):
    """The cursor Django's backend uses, refusing a token shape in a written value."""

    def execute(self, query: str, params: Sequence[Any] | None = None) -> Any:
        if params:
            no_secrets.check_write(query, params)
        if params is None or isinstance(params, Mapping):
            return super().execute(query, params)
        converted = _QMARK.get(query)
        if converted is None:
            converted = self.convert_query(query)
            if len(_QMARK) >= _QMARK_MAX:
                _QMARK.clear()
            _QMARK[query] = converted
        return sqlite3.Cursor.execute(self, converted, params)

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

    def plain_cursor(self) -> CheckedCursor | None:
        """A checked cursor of the open connection without Django's wrappers, for core/rows'
        statements: the wrappers, made per statement, cost as much as SQLite's run of a
        short one. None while no connection is open or statements are being captured
        (tests, debug): then Django's own cursor runs them."""
        raw = self.connection
        if raw is None or self.queries_logged or self.execute_wrappers:
            return None
        return raw.cursor(factory=CheckedCursor)  # type: ignore[no-any-return]

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
