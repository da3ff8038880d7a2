"""A short write run on the event loop's own thread while SQLite's write lock is free.

Why: a write hopped to Django's one sync thread pays two hand-overs, and with several
clients at once the loop and that thread pass the GIL back and forth on every call: 8
clients moving tasks reached a third of a bare MCP tool's calls/s (bench/README.md).

How: for the length of the call the running loop is hidden, so Django sees a sync thread
(its async-safety check passes, `connections` hands out this thread's own kept connection),
and that connection never waits for the lock (`busy_timeout` 0). A write that finds the lock
taken (a hook, a page or the effort reader is writing) has changed nothing yet: the caller
runs it on the sync thread as before, which waits there. So the loop never waits on SQLite;
it only runs the write itself, a millisecond, as it would run any request's own work.

Only for services that write in one transaction (`run_write`): a refusal of the lock can
then only come before anything was committed. `tests/test_on_loop.py` holds the six MCP
writes that use it to one transaction each.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from django.db import OperationalError, connection

from core import no_secrets

_tuned: list[Any] = [None]  # the raw connection whose busy_timeout is already 0


class LockTaken(Exception):
    """Another connection holds SQLite's write lock: run the write where it may wait."""


def run_on_loop[T](fn: Callable[[], T]) -> T:
    """Run `fn` here, on the loop's thread; raise LockTaken if the write lock is held.

    Must be called from a coroutine (the loop's thread). Anything `fn` raises passes
    through, except a busy database before the first commit, which becomes LockTaken.
    """
    loop = asyncio.get_running_loop()
    asyncio._set_running_loop(None)  # Django's sync code may run here for this call
    try:
        before = connection.commits
        try:
            _no_wait()
            return fn()
        except OperationalError as exc:
            if "database is locked" in str(exc) and connection.commits == before:
                raise LockTaken from None
            raise
    finally:
        no_secrets.forget_allowed()  # a token the door let through was for this call alone
        asyncio._set_running_loop(loop)


def _no_wait() -> None:
    connection.ensure_connection()
    raw = connection.connection
    if raw is not _tuned[0]:
        raw.execute("PRAGMA busy_timeout = 0")
        _tuned[0] = raw
