"""POST <an agent's wake-up route>: the wake-up hook's held request (§4 Wake-up hook).

An agent that wakes (its capabilities.wakes; Claude Code, at /hooks/claude-code/wait) runs
the opt-in wake-up hook in the background after every Stop
(`hook_client --wait`, asyncRewake). Its request is held here for up to WAIT_SECONDS and
answered
- 200 {"wake": "<lines>"} as soon as an undelivered owner comment exists (or appears) for
  the exactly linked (agent_exact) session while it is idle and relaybay did not block this
  turn's Stop (Session.stop_blocks is 0); the comments are marked delivered
  (sessions.hooks.comments.take_wake_lines, via "wake") and the hook exits 2, which wakes
  the agent with the lines;
- 204 when time is up, the session is unknown, not exactly linked or ended, a newer wait
  for the same Claude Code session arrives (each turn starts one; the older answers at
  once), or the server stops (a closer registered with core.live.on_shutdown).
  A client that goes away (the hook process ended) just ends its wait.

Why a raw ASGI endpoint, not a Django view: Django's ASGI handler enters a
ThreadSensitiveContext per request, and its request_started receivers (sync) give every
request a one-thread executor that lives until the request ends — measured: 50 open
/events streams, 50 extra threads. Two hundred held waits would hold two hundred idle
threads. relaybay_site.asgi routes each wake-up route (AgentSpec.wait_path) here after the
Host, Origin and Bearer checks (and adds the §9.7 headers), so a wait holds no thread at
all: it is one asyncio future. Its DB work runs briefly through
sync_to_async(thread_sensitive=True) in the process's one sync thread, the same one the MCP
tools use.

Waking up without polling: one live-bus subscriber per event loop (while waits are open)
re-checks only the waits an event concerns — comment.added, session.status_changed and
task.session_(un)bound whose task key is bound to the waiting session, or that name it.
Each wait is checked once when it starts and once more SETTLE_SECONDS later: the Stop hook
and the wake-up hook run at the same time, so the wait may be checked before the Stop that
made the session idle was written (an allowed Stop of an already idle session emits no
event).

The 25-minute hold can be shortened per request with a number in the body's
`relaybay_wait_seconds` (0 … WAIT_SECONDS; Claude Code never sends it): tests and
benchmarks use it, nothing else does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async

from core import live
from sessions import selectors
from sessions.fields import stored_agent_id
from sessions.hooks.asgi_io import (
    Receive,
    Scope,
    Send,
    answer,
    answer_json,
    parse_object,
    read_body,
    refuse,
)
from sessions.hooks.comments import take_wake_lines
from sessions.models import ENDED, IDLE

log = logging.getLogger("relaybay.wake")

WAIT_SECONDS = 25 * 60  # §4: held up to 25 minutes (the hook's own timeout is 30)
WAIT_SECONDS_FIELD = "relaybay_wait_seconds"
SETTLE_SECONDS = 1.0
AGENT_ID_MAX = 100
WAKE_KINDS = frozenset(
    {"comment.added", "session.status_changed", "task.session_bound", "task.session_unbound"}
)


@dataclass(frozen=True)
class Check:
    """One look at the waiting session: gone (answer 204), or its wake lines, and what
    events concern it (the keys of the tasks bound to it now and its names)."""

    gone: bool = False
    lines: str | None = None
    keys: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()


GONE = Check(gone=True)


def check_session(agent_id: str, wanted: Callable[[], bool]) -> Check:
    """Sync (the one sync thread): take the wake lines when the session may be woken.

    `wanted()` is asked right before anything is marked delivered, so a wait that ended
    meanwhile (superseded, timed out, client gone) takes nothing.
    """
    session = selectors.session_by_agent_id(agent_id)
    if session is None or not session.agent_exact or session.hook_status == ENDED:
        return GONE
    keys = frozenset(t.key for t in selectors.tasks_bound_to(session))
    names = frozenset({session.name, selectors.label(session)})
    idle = session.hook_status == IDLE and not session.stop_blocks
    if not idle or not keys or not wanted():
        return Check(keys=keys, names=names)
    return Check(lines=take_wake_lines(session) or None, keys=keys, names=names)


Checker = Callable[[str, Callable[[], bool]], Awaitable[Check]]
_check_async: Checker = sync_to_async(check_session, thread_sensitive=True)


@dataclass(eq=False)
class Waiter:
    """One held request: its Claude Code session id and the future its answer lands in."""

    agent_id: str
    future: asyncio.Future[str | None]
    keys: frozenset[str] | None = None  # None until the first check: every event concerns it
    names: frozenset[str] = frozenset()
    checking: bool = False
    again: bool = False

    @property
    def finished(self) -> bool:
        return self.future.done()

    def finish(self, lines: str | None) -> bool:
        if self.future.done():
            return False
        self.future.set_result(lines)
        return True

    def concerned_by(self, message: live.LiveMessage) -> bool:
        if self.keys is None:
            return True
        key, session = message.data.get("key"), message.data.get("session")
        return bool((key and key in self.keys) or (session and session in self.names))


@dataclass(eq=False)
class WaitRoom:
    """Every open wait of one event loop, and the one bus subscriber that wakes them."""

    loop: asyncio.AbstractEventLoop
    check: Checker = field(default_factory=lambda: _check_async)
    bus: live.LiveBus = field(default_factory=lambda: live.bus)
    waiters: dict[str, Waiter] = field(default_factory=dict)
    closed: bool = False
    _listener: asyncio.Task[None] | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def hold(self, agent_id: str, seconds: float) -> str | None:
        """The wake lines, or None for a 204. Cancelled when the client goes away."""
        if self.closed or self.bus.closed:
            return None
        older = self.waiters.get(agent_id)
        if older is not None:
            older.finish(None)  # a newer wait for the same session: the older answers 204
        waiter = Waiter(agent_id, self.loop.create_future())
        self.waiters[agent_id] = waiter
        self._listen()  # subscribed before the first check reads the database
        self.schedule(waiter)
        settle = self.loop.call_later(min(SETTLE_SECONDS, seconds), self.schedule, waiter)
        try:
            async with asyncio.timeout(seconds):
                return await asyncio.shield(waiter.future)
        except TimeoutError:
            return None
        finally:
            settle.cancel()
            waiter.finish(None)
            if self.waiters.get(agent_id) is waiter:
                del self.waiters[agent_id]
            if not self.waiters and self._listener is not None:
                self._listener.cancel()
                self._listener = None

    @property
    def open_waits(self) -> int:
        return len(self.waiters)

    def schedule(self, waiter: Waiter) -> None:
        """Check the waiter soon; one check at a time per waiter, repeated when asked again."""
        if waiter.finished:
            return
        if waiter.checking:
            waiter.again = True
            return
        waiter.checking = True
        self._spawn(self._run_checks(waiter))

    async def _run_checks(self, waiter: Waiter) -> None:
        try:
            while not waiter.finished:
                waiter.again = False
                try:
                    result = await self.check(waiter.agent_id, lambda: not waiter.finished)
                except Exception:
                    log.exception("wake-up check for %s failed", waiter.agent_id)
                    waiter.finish(None)
                    return
                if result.gone:
                    waiter.finish(None)
                    return
                waiter.keys, waiter.names = result.keys, result.names
                if result.lines:
                    self._hand_over(waiter, result.lines)
                    return
                if not waiter.again:
                    return
        finally:
            waiter.checking = False

    def _hand_over(self, waiter: Waiter, lines: str) -> None:
        """Lines taken for a wait that was superseded meanwhile go to the newer wait."""
        if waiter.finish(lines):
            return
        newer = self.waiters.get(waiter.agent_id)
        if newer is not None and newer.finish(lines):
            return
        log.warning(
            "wake-up lines for %s were marked delivered after its wait ended", waiter.agent_id
        )

    def _listen(self) -> None:
        if self._listener is None or self._listener.done():
            subscriber = self.bus.subscribe(None)
            self._listener = self.loop.create_task(self._read_bus(subscriber))

    async def _read_bus(self, subscriber: live.Subscriber) -> None:
        while True:
            try:
                while not subscriber.dropped:
                    message = await subscriber.queue.get()
                    if message is None:
                        break
                    if message.kind in WAKE_KINDS:
                        for waiter in list(self.waiters.values()):
                            if waiter.concerned_by(message):
                                self.schedule(waiter)
            finally:
                self.bus.unsubscribe(subscriber)
            if self.closed or self.bus.closed:
                return
            # The queue overflowed and events were lost: subscribe again, check everyone.
            subscriber = self.bus.subscribe(None)
            for waiter in list(self.waiters.values()):
                self.schedule(waiter)

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = self.loop.create_task(coro)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def close(self) -> None:
        """Server shutdown: every wait answers 204 now, and new ones at once."""
        self.closed = True
        for waiter in list(self.waiters.values()):
            waiter.finish(None)


_rooms: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, WaitRoom] = weakref.WeakKeyDictionary()


def room() -> WaitRoom:
    """The wait room of the running event loop (daphne runs one; tests may run several)."""
    loop = asyncio.get_running_loop()
    found = _rooms.get(loop)
    if found is None:
        found = _rooms[loop] = WaitRoom(loop)
    return found


def open_waits() -> int:
    """Held wake-up requests on every loop (for /api/stats, tests and benchmarks)."""
    return sum(r.open_waits for r in list(_rooms.values()))


def close_all() -> None:
    """The shutdown closer: wake every held request on its own loop; no I/O, no blocking."""
    for wait_room in list(_rooms.values()):
        with contextlib.suppress(RuntimeError):  # that loop is already closed
            wait_room.loop.call_soon_threadsafe(wait_room.close)
    with contextlib.suppress(RuntimeError):  # called on a server loop: close it right now
        current = _rooms.get(asyncio.get_running_loop())
        if current is not None:
            current.close()


live.on_shutdown(close_all)
live.register_gauge("waits", open_waits)


# --- the ASGI endpoint -------------------------------------------------------------------


def wait_seconds(event: dict[str, Any]) -> float:
    raw = event.get(WAIT_SECONDS_FIELD)
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        return float(WAIT_SECONDS)
    return float(min(max(raw, 0.0), WAIT_SECONDS))


async def _until_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    """The ASGI endpoint of the wake-up routes (Host, Origin and Bearer already checked)."""
    if scope.get("method") != "POST":
        await refuse(send, 405, "POST the Stop hook input.")
        return
    body = await read_body(receive)
    if body is None:
        return
    if not isinstance(body, bytes):  # over 256 KB: dropped, as on /hooks/claude-code
        await answer(send, 204)
        return
    event, problem = parse_object(body, "Stop hook input")
    if event is None:
        await refuse(send, 400, problem)
        return
    agent_id = event.get("session_id")
    if not isinstance(agent_id, str) or not agent_id.strip() or len(agent_id) > AGENT_ID_MAX:
        await answer(send, 204)
        return
    agent_id = stored_agent_id(agent_id)  # as the hooks keep it
    held = asyncio.ensure_future(room().hold(agent_id, wait_seconds(event)))
    gone = asyncio.ensure_future(_until_disconnect(receive))
    try:
        await asyncio.wait({held, gone}, return_when=asyncio.FIRST_COMPLETED)
        if not held.done():
            return  # the hook process went away: nobody to answer
        lines = held.result()
    except asyncio.CancelledError:
        # Daphne cancels every application instance when it stops, before the shutdown
        # closer has run: the hook still gets its 204 instead of a dropped connection.
        with contextlib.suppress(Exception):
            await answer(send, 204)
        raise
    finally:
        for task in (held, gone):
            task.cancel()
    if lines:
        await answer_json(send, {"wake": lines})
    else:
        await answer(send, 204)
