"""The in-process live bus and the `/events` Server-Sent Events stream (§2 Live updates).

Writers hand a committed event to `bus.publish()` (from `transaction.on_commit`, in any
thread); every open `/events` response owns one bounded queue on its own event loop.
Replay after a reconnect reads the event table, so the bus itself keeps no history.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

QUEUE_SIZE = 256
REPLAY_LIMIT = 5000


@dataclass(frozen=True)
class LiveMessage:
    """One event as the stream sends it: id, kind and the small JSON data of §2."""

    id: int
    kind: str
    project: str | None
    data: dict[str, Any]

    def encode(self) -> str:
        body = json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))
        return f"id: {self.id}\nevent: {self.kind}\ndata: {body}\n\n"


@dataclass(eq=False)
class Subscriber:
    project: str | None
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[LiveMessage | None] = field(
        default_factory=lambda: asyncio.Queue(QUEUE_SIZE)
    )
    dropped: bool = False

    def wants(self, message: LiveMessage) -> bool:
        return self.project is None or message.project == self.project


class LiveBus:
    """Fan-out to subscribers; a subscriber whose queue overflows is dropped (it reconnects)."""

    def __init__(self) -> None:
        self._subs: set[Subscriber] = set()
        self._lock = threading.Lock()

    def subscribe(self, project: str | None) -> Subscriber:
        sub = Subscriber(project=project, loop=asyncio.get_running_loop())
        with self._lock:
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            self._subs.discard(sub)

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, message: LiveMessage) -> None:
        """Thread-safe: called after commit from whatever thread wrote the event."""
        with self._lock:
            targets = [s for s in self._subs if s.wants(message)]
        for sub in targets:
            _call_soon(sub, _deliver, sub, message)

    def close_all(self) -> None:
        """End every open stream (server shutdown): each generator sees None and returns."""
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            _call_soon(sub, _close, sub)


def _call_soon(sub: Subscriber, fn: Callable[..., None], *args: Any) -> None:
    with contextlib.suppress(RuntimeError):  # the subscriber's loop is already closed
        sub.loop.call_soon_threadsafe(fn, *args)


def _deliver(sub: Subscriber, message: LiveMessage) -> None:
    if sub.dropped:
        return
    try:
        sub.queue.put_nowait(message)
    except asyncio.QueueFull:
        sub.dropped = True


def _close(sub: Subscriber) -> None:
    sub.dropped = True
    with contextlib.suppress(asyncio.QueueFull):
        sub.queue.put_nowait(None)


bus = LiveBus()
# Hooks for tests and the shutdown trigger: the number of stream generators still running.
_open_streams = 0


def open_streams() -> int:
    return _open_streams


# --- /events ---------------------------------------------------------------------------


def _parse_last_id(request: HttpRequest) -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.GET.get("last_event_id")
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        return None


async def events_view(request: HttpRequest) -> HttpResponse:
    """GET /events[?project=<slug>]: replay after Last-Event-ID, then live events."""
    project = request.GET.get("project") or None
    last_id = _parse_last_id(request)
    sub = bus.subscribe(project)  # subscribe before reading the table: nothing falls between
    try:
        replay = await _replay(project, last_id) if last_id is not None else []
    except BaseException:
        bus.unsubscribe(sub)
        raise
    response = StreamingHttpResponse(
        _stream(sub, replay, settings.RELAYBAY.heartbeat_seconds),
        content_type="text/event-stream; charset=utf-8",
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@sync_to_async(thread_sensitive=True)
def _replay(project: str | None, last_id: int) -> list[LiveMessage] | None:
    """Events newer than last_id, or None when the client must resync."""
    from tasks.events import live_messages_after, newest_event_id

    newest = newest_event_id()
    if last_id > newest:
        return None
    messages = live_messages_after(last_id, project=project, limit=REPLAY_LIMIT + 1)
    return None if len(messages) > REPLAY_LIMIT else messages


async def _stream(
    sub: Subscriber, replay: list[LiveMessage] | None, heartbeat: float
) -> AsyncIterator[str]:
    global _open_streams
    _open_streams += 1
    sent_up_to = 0
    try:
        yield "retry: 2000\n: connected\n\n"
        if replay is None:
            yield "event: resync\ndata: {}\n\n"
        else:
            for message in replay:
                sent_up_to = message.id
                yield message.encode()
        deadline = time.monotonic() + heartbeat
        while True:
            if sub.dropped:
                return  # overflowed or shutting down: the client replays from Last-Event-ID
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                yield ": heartbeat\n\n"
                deadline += heartbeat
                continue
            try:
                message = await asyncio.wait_for(sub.queue.get(), timeout)
            except TimeoutError:
                continue
            if message is None:
                return
            if message.id > sent_up_to:
                sent_up_to = message.id
                yield message.encode()
    finally:
        bus.unsubscribe(sub)
        _open_streams -= 1
