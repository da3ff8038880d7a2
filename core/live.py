"""The in-process live bus and the body of a Server-Sent Events stream (§2 Live updates).

Writers hand a committed event to `bus.publish()` (from `transaction.on_commit`, in any
thread); every open `/events` response owns one bounded queue on its own event loop.
Replay after a reconnect reads the event table, so the bus itself keeps no history; the
`/events` view lives beside that table's catalogue (tasks/views/events.py), and this module
imports no app (docs/architecture.md §2).

Long-lived requests must never keep the server from stopping (docs/architecture.md §5):
`stop_long_lived()` ends every stream, and anything else that holds a request open (the
held wake-up hooks of a later issue) registers its own closer with `on_shutdown()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("relaybay.live")

QUEUE_SIZE = 256
REPLAY_LIMIT = 5000
PREAMBLE = "retry: 2000\n: connected\n\n"
RESYNC = "event: resync\ndata: {}\n\n"
HEARTBEAT = ": heartbeat\n\n"


@dataclass(frozen=True)
class LiveMessage:
    """One event as the stream sends it: id, kind and the small JSON data of §2.

    id 0 is a live-only notice (no row in the event log, never replayed): it goes out
    without an `id:` line, so the browser's Last-Event-ID stays the last logged event's.
    """

    id: int
    kind: str
    project: str | None
    data: dict[str, Any]

    def encode(self) -> str:
        body = json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))
        head = f"id: {self.id}\n" if self.id else ""
        return f"{head}event: {self.kind}\ndata: {body}\n\n"


@dataclass(eq=False)
class Subscriber:
    """One open stream: its project filter, the loop it lives on and its bounded queue."""

    project: str | None
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[LiveMessage | None] = field(
        default_factory=lambda: asyncio.Queue(QUEUE_SIZE)
    )
    dropped: bool = False  # set on the subscriber's own loop only

    def wants(self, message: LiveMessage) -> bool:
        return self.project is None or message.project == self.project


class LiveBus:
    """Fan-out to subscribers; a subscriber whose queue overflows is dropped (it reconnects)."""

    def __init__(self) -> None:
        self._subs: set[Subscriber] = set()
        self._lock = threading.Lock()
        self.closed = False
        # Stream generators still running; touched on the event loop only.
        self.streams = 0

    def subscribe(self, project: str | None) -> Subscriber:
        """Subscribe on the running loop; once the bus is closed the subscriber starts dropped."""
        sub = Subscriber(project=project, loop=asyncio.get_running_loop())
        with self._lock:
            if self.closed:
                sub.dropped = True
            else:
                self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            self._subs.discard(sub)

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._subs)

    @property
    def subscribers(self) -> tuple[Subscriber, ...]:
        with self._lock:
            return tuple(self._subs)

    def publish(self, message: LiveMessage) -> None:
        """Thread-safe: called after commit from whatever thread wrote the event."""
        by_loop: dict[asyncio.AbstractEventLoop, list[Subscriber]] = {}
        with self._lock:
            for sub in self._subs:
                if sub.wants(message):
                    by_loop.setdefault(sub.loop, []).append(sub)
        # One wake-up per loop, not per subscriber: 50 streams cost one self-pipe write.
        for loop, subs in by_loop.items():
            _call_soon(loop, _deliver, subs, message)

    def close_all(self) -> None:
        """End every open stream and refuse new ones (server shutdown)."""
        by_loop: dict[asyncio.AbstractEventLoop, list[Subscriber]] = {}
        with self._lock:
            self.closed = True
            for sub in self._subs:
                by_loop.setdefault(sub.loop, []).append(sub)
        for loop, subs in by_loop.items():
            _call_soon(loop, _close, subs)


def _call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[..., None], *args: Any) -> None:
    with contextlib.suppress(RuntimeError):  # that loop is already closed
        loop.call_soon_threadsafe(fn, *args)


def _deliver(subs: list[Subscriber], message: LiveMessage) -> None:
    for sub in subs:
        if sub.dropped:
            continue
        try:
            sub.queue.put_nowait(message)
        except asyncio.QueueFull:
            sub.dropped = True  # the stream ends; the browser replays from Last-Event-ID


def _close(subs: list[Subscriber]) -> None:
    for sub in subs:
        sub.dropped = True
        with contextlib.suppress(asyncio.QueueFull):  # a full queue wakes its reader anyway
            sub.queue.put_nowait(None)


bus = LiveBus()


def open_streams() -> int:
    """Stream generators still running (for /api/stats, tests and benchmarks)."""
    return bus.streams


_gauges: dict[str, Callable[[], int]] = {}


def register_gauge(name: str, read: Callable[[], int]) -> None:
    """Another holder of long-lived requests (the wake-up waits) adds its count to /api/stats."""
    _gauges[name] = read


def gauges() -> dict[str, int]:
    return {name: read() for name, read in _gauges.items()}


# --- shutdown ---------------------------------------------------------------------------

_shutdown_hooks: list[Callable[[], None]] = []


def on_shutdown(hook: Callable[[], None]) -> None:
    """Register a closer for long-lived requests: called once, on the server's event loop,
    when the server stops; it must only wake its waiters (no I/O, no blocking)."""
    if hook not in _shutdown_hooks:
        _shutdown_hooks.append(hook)


def stop_long_lived(live_bus: LiveBus | None = None) -> None:
    """End every SSE stream and run the registered closers (SIGTERM, Ctrl-C, lifespan)."""
    (live_bus or bus).close_all()
    for hook in list(_shutdown_hooks):
        try:
            hook()
        except Exception:
            log.exception("a shutdown hook failed; stopping anyway")


async def wait_streams_closed(timeout: float) -> bool:
    """Wait until every stream generator has finished; False when some are still open."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while bus.streams and loop.time() < deadline:
        await asyncio.sleep(0.01)
    return bus.streams == 0


# --- the body of one /events response -------------------------------------------------

ReplayLoader = Callable[[str | None, int], Awaitable[list[LiveMessage] | None]]


async def stream(
    live_bus: LiveBus,
    project: str | None,
    last_id: int | None,
    heartbeat: float,
    replay: ReplayLoader,
) -> AsyncIterator[str]:
    """The body of one /events response. Django cancels it when the client goes away.

    `replay` reads the events newer than `last_id` from the log (None: the client must
    resync); the view that owns the log passes it, so the bus imports no app."""
    # Subscribe before reading the table, so no event falls between replay and live.
    sub = live_bus.subscribe(project)
    live_bus.streams += 1
    try:
        yield PREAMBLE
        sent_up_to = 0
        if last_id is not None:
            messages = await replay(project, last_id)
            if messages is None:
                yield RESYNC
            else:
                sent_up_to = last_id
                for message in messages:
                    sent_up_to = message.id
                    yield message.encode()
        async with contextlib.aclosing(_live(sub, heartbeat, sent_up_to)) as chunks:
            async for chunk in chunks:
                yield chunk
    finally:
        live_bus.unsubscribe(sub)
        live_bus.streams -= 1


async def _live(sub: Subscriber, heartbeat: float, sent_up_to: int) -> AsyncIterator[str]:
    """Queued events as they come, and a heartbeat comment on a fixed grid of deadlines."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + heartbeat
    while not sub.dropped:  # overflowed or shutting down: the client replays on reconnect
        try:
            async with asyncio.timeout_at(deadline):
                message = await sub.queue.get()
        except TimeoutError:
            yield HEARTBEAT
            # The next point of the grid, not "heartbeat seconds after this one": a slow
            # write or a busy loop must not push every later heartbeat back.
            now = loop.time()
            while deadline <= now:
                deadline += heartbeat
            continue
        if message is None:
            return
        if not message.id:  # a live-only notice: nothing to replay, nothing to skip
            yield message.encode()
        elif message.id > sent_up_to:  # skip what the replay already sent
            sent_up_to = message.id
            yield message.encode()
