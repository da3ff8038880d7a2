"""Held hooks waiting for the owner's Approve or Deny, without a thread each.

The hook door (sessions/hooks/endpoint.py) holds an answer whose approval request is
pending: one asyncio future per request on the door's event loop, woken by the live bus
(approval.decided names the request and its outcome, whoever ended it: the owner on the
board, the terminal, a timeout). A hold ends with the request's outcome; with GONE when
the hook's client went away (the agent stopped, the person pressed Esc); with TIMED_OUT
when its time is up; with SHUTDOWN when the server stops (core.live.on_shutdown). The
database is read once after the future is in place: a decision made before the hold began
is not missed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async

from core import live
from sessions.models import GONE, PENDING, TIMED_OUT, ApprovalRequest

log = logging.getLogger("relaybay.approvals")

SHUTDOWN = "shutdown"
DECIDED = "approval.decided"


def _state(approval_id: int) -> str:
    found = ApprovalRequest.objects.filter(pk=approval_id).values_list("state", flat=True)
    return next(iter(found), GONE)


_state_async: Callable[[int], Awaitable[str]] = sync_to_async(_state, thread_sensitive=True)


@dataclass(eq=False)
class ApprovalRoom:
    """Every held hook of one event loop, and the one bus subscriber that wakes them."""

    loop: asyncio.AbstractEventLoop
    bus: live.LiveBus = field(default_factory=lambda: live.bus)
    waiters: dict[int, asyncio.Future[str]] = field(default_factory=dict)
    closed: bool = False
    _listener: asyncio.Task[None] | None = None

    async def hold(self, approval_id: int, seconds: float, gone: Awaitable[Any]) -> str:
        """The request's outcome, GONE when `gone` (the client's disconnect) comes first,
        TIMED_OUT after `seconds`, SHUTDOWN when the server stops."""
        if self.closed or self.bus.closed:
            return SHUTDOWN
        future: asyncio.Future[str] = self.loop.create_future()
        self.waiters[approval_id] = future
        self._listen()  # subscribed before the database is read
        client = asyncio.ensure_future(gone)
        try:
            state = await _state_async(approval_id)
            if state != PENDING and not future.done():
                future.set_result(state)
            done, _ = await asyncio.wait(
                {future, client}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED
            )
            if future in done:
                return future.result()
            return GONE if client in done else TIMED_OUT
        finally:
            client.cancel()
            if self.waiters.get(approval_id) is future:
                del self.waiters[approval_id]
            if not self.waiters and self._listener is not None:
                self._listener.cancel()
                self._listener = None

    @property
    def held(self) -> int:
        return len(self.waiters)

    def finish(self, approval_id: int, outcome: str) -> None:
        future = self.waiters.get(approval_id)
        if future is not None and not future.done():
            future.set_result(outcome)

    def close(self) -> None:
        """The server stops: every hold ends now."""
        self.closed = True
        for approval_id in list(self.waiters):
            self.finish(approval_id, SHUTDOWN)

    def _listen(self) -> None:
        if self._listener is None or self._listener.done():
            subscriber = self.bus.subscribe(None)
            self._listener = self.loop.create_task(self._read_bus(subscriber))

    async def _read_bus(self, subscriber: live.Subscriber) -> None:
        try:
            while not subscriber.dropped:
                message = await subscriber.queue.get()
                if message is None:
                    break
                if message.kind == DECIDED:
                    approval = message.data.get("approval")
                    if isinstance(approval, int):
                        self.finish(approval, str(message.data.get("outcome") or GONE))
            if subscriber.dropped:  # the queue overflowed: look each hold up again
                for approval_id in list(self.waiters):
                    state = await _state_async(approval_id)
                    if state != PENDING:
                        self.finish(approval_id, state)
        finally:
            self.bus.unsubscribe(subscriber)


_rooms: dict[asyncio.AbstractEventLoop, ApprovalRoom] = {}


def room() -> ApprovalRoom:
    """This event loop's room (one per loop: daphne runs one)."""
    loop = asyncio.get_running_loop()
    found = _rooms.get(loop)
    if found is None or found.closed:
        found = ApprovalRoom(loop)
        _rooms[loop] = found
    return found


def close_all() -> None:
    """The server stops (called on its loop): every held hook is answered now."""
    for each in list(_rooms.values()):
        each.close()
    _rooms.clear()


def held() -> int:
    """Hooks held now, every loop (a gauge: 50 held hooks cost 50 futures, no thread)."""
    return sum(r.held for r in _rooms.values())


live.on_shutdown(close_all)
live.register_gauge("approvals_held", held)
