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
is left for after it: the app registers it by name (`register_left_work`), an on-loop write
`leave`s the name, and once the /mcp answer has gone out (`answer_sent`) the loop does it,
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
# name → (finish: do what writes left, recover: find and do what a stop left undone)
_work: dict[str, tuple[Callable[[], None], Callable[[], None] | None]] = {}
_left: set[str] = set()  # names on-loop writes left, not done yet
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


def register_left_work(
    name: str, *, finish: Callable[[], None], recover: Callable[[], None] | None
) -> None:
    """`finish` does what on-loop writes left under `name` (each in one transaction of its
    own, idempotent); `recover` finds and does what a stopped server left undone (at start;
    None where the start already does it another way)."""
    _work[name] = (finish, recover)


def leave(name: str) -> bool:
    """Leave `name`'s work for after the answer of the on-loop write running here, once it
    commits; False anywhere else (a sync thread, a command, a test): do it now, in the
    write's own transaction."""
    if not getattr(_here, "writing", False):
        return False
    transaction.on_commit(lambda: _left.add(name))
    return True


def answer_sent(loop: asyncio.AbstractEventLoop) -> None:
    """The /mcp answer's last bytes went to the transport: do what its write left on the
    loop's turn after next, once the transport has written them to the socket — while the
    client reads the answer. (Done 5 ms later instead, to batch back-to-back writes, it
    landed inside the client's next call and cost that call its time: bench/README.md.)"""
    if _left:
        loop.call_soon(loop.call_soon, finish_left)


def settle() -> None:
    """Before a request that may read what writes left (any but an on-loop write): do it
    now, so no reader ever sees a write without its left work. On the loop's thread."""
    if _left:
        finish_left()


def finish_left() -> None:
    """Do the work writes left, on the loop's thread while the write lock is free, else on
    the sync thread (which waits for it, before any work queued there after it). Must run
    on the loop's thread."""
    loop = asyncio.get_running_loop()
    while _left:
        name = _left.pop()
        finish = _work[name][0]
        try:
            run_on_loop(finish)
        except LockTaken:
            handed = loop.create_task(sync_to_async(_logged(finish), thread_sensitive=True)())
            _handed.add(handed)
            handed.add_done_callback(_handed.discard)
        except Exception:
            log.exception("%s: left work failed; the next write of it catches up", name)


def recover_left() -> None:
    """At start, on a thread of its own: what a stop between a write's commit and its left
    work left undone."""
    for name, (_, recover) in list(_work.items()):
        if recover is not None:
            _logged(recover)()
            log.debug("%s: caught up at start", name)


class Left[T]:
    """What on-loop writes left of one kind (task ids, events), added on the loop's thread
    at commit and taken by whichever thread does the work."""

    def __init__(self) -> None:
        self._items: list[T] = []
        self._lock = threading.Lock()

    def add(self, *items: T) -> None:
        with self._lock:
            self._items.extend(items)

    def take(self, step: Callable[[list[T]], None]) -> None:
        """`step` on everything left, in one transaction; refused (the lock taken), it all
        stays left for whoever runs next."""
        with self._lock:
            items, self._items = self._items, []
        if not items:
            return
        try:
            with transaction.atomic():
                step(items)
        except BaseException:
            self.add(*items)
            raise

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


def _logged(fn: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        try:
            fn()
        except Exception:
            log.exception("left work %s failed", getattr(fn, "__qualname__", fn))

    return run
