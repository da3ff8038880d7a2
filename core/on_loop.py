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

Work a write need not do before its answer (an app's derived rows, as effort's time tally)
is left for after it: the app keeps a `Left` of it, an on-loop write `leave`s an item
there, and once the /mcp answer has gone out (`answer_sent`) the loop does it,
in a transaction of its own — or, if a request that may read it comes first, before that
request (`settle`). Off the loop there
is no answer to wait for: `leave` says no and the write does the work itself, in its own
transaction, as before.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.db import OperationalError, connection, transaction

from core import no_secrets

log = logging.getLogger("relaybay.on_loop")
_tuned: list[Any] = [None]  # the raw connection whose busy_timeout is already 0
_here = threading.local()  # .writing: an on-loop write runs on this thread now
_handed: set[asyncio.Task[Any]] = set()  # work handed to the sync thread, kept till done


class LockTaken(Exception):
    """Another connection holds SQLite's write lock: run the write where it may wait."""


def run_on_loop[T](fn: Callable[[], T]) -> T:
    """Run `fn` here, on the loop's thread; raise LockTaken if the write lock is held.

    Must be called from a coroutine (the loop's thread). Anything `fn` raises passes
    through, except a busy database before the first commit, which becomes LockTaken.
    """
    loop = asyncio.get_running_loop()
    asyncio._set_running_loop(None)  # Django's sync code may run here for this call
    _here.writing = True
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
        _here.writing = False
        no_secrets.forget_allowed()  # a token the door let through was for this call alone
        asyncio._set_running_loop(loop)


def _no_wait() -> None:
    connection.ensure_connection()
    raw = connection.connection
    if raw is not _tuned[0]:
        raw.execute("PRAGMA busy_timeout = 0")
        _tuned[0] = raw


# --- work left for after the answer -----------------------------------------------------


class Left[T]:
    """What on-loop writes leave of one kind for after their answers (task ids, events).

    `step` does it, in one transaction; `recover` finds and does what a stopped server left
    undone (at start; None where the start does it another way). An app makes one per kind,
    at import; the loop does every kind that holds something."""

    def __init__(
        self, step: Callable[[list[T]], None], *, recover: Callable[[], object] | None
    ) -> None:
        self._step, self.recover = step, recover
        self._items: list[T] = []
        self._lock = threading.Lock()
        _kinds.append(self)

    def leave(self, item: T) -> bool:
        """Leave `item` for after the answer of the on-loop write running here, once it
        commits; False anywhere else (a sync thread, a command, a test): do it now, in the
        write's own transaction."""
        if not getattr(_here, "writing", False):
            return False
        transaction.on_commit(lambda: self._add(item))
        return True

    def finish(self) -> None:
        """Everything left, in one transaction; refused (the lock taken), it all stays left
        for whoever runs next."""
        with self._lock:
            items, self._items = self._items, []
        if not items:
            return
        try:
            with transaction.atomic():
                self._step(items)
        except BaseException:
            self._add(*items)
            raise

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

    def _add(self, *items: T) -> None:
        with self._lock:
            self._items.extend(items)


_kinds: list[Left[Any]] = []


def pending() -> bool:
    return any(len(kind) for kind in _kinds)


def answer_sent(loop: asyncio.AbstractEventLoop) -> None:
    """The /mcp answer's last bytes went to the transport: do what its write left on the
    loop's turn after next, once the transport has written them to the socket — while the
    client reads the answer. (Done 5 ms later instead, to batch back-to-back writes, it
    landed inside the client's next call and cost that call its time: bench/README.md.)"""
    if pending():
        loop.call_soon(loop.call_soon, finish_left)


def settle() -> None:
    """Before a request that may read what writes left (any but an on-loop write): do it
    now, so no reader ever sees a write without its left work. On the loop's thread."""
    if pending():
        finish_left()


def finish_left() -> None:
    """Do the work writes left, on the loop's thread while the write lock is free, else on
    the sync thread (which waits for it, before any work queued there after it). Must run
    on the loop's thread."""
    loop = asyncio.get_running_loop()
    for kind in _kinds:
        if not len(kind):
            continue
        try:
            run_on_loop(kind.finish)
        except LockTaken:
            handed = loop.create_task(sync_to_async(_logged(kind.finish), thread_sensitive=True)())
            _handed.add(handed)
            handed.add_done_callback(_handed.discard)
        except Exception:
            log.exception("left work failed; the next write of it catches up")


def recover_left() -> None:
    """At start, on a thread of its own: what a stop between a write's commit and its left
    work left undone."""
    for kind in _kinds:
        if kind.recover is not None:
            _logged(kind.recover)()


def _logged(fn: Callable[[], object]) -> Callable[[], None]:
    def run() -> None:
        try:
            fn()
        except Exception:
            log.exception("left work %s failed", getattr(fn, "__qualname__", fn))

    return run
