"""POST /hooks/<agent>: an agent's hook input in, the answer for the agent out (§4).

One thin raw-ASGI door per agent adapter (`door(adapter)`; see asgi_io.py for why not a
Django view): the outer app has already checked the Bearer token and the Host and Origin
rules for every /hooks path. Bodies over 256 KB are dropped (204), a body that is not a JSON
object is refused (400); the rest is parsed by the adapter into a neutral event, handled by
sessions.hooks.service.hook_event in one hop to the shared sync thread, and the neutral
answer rendered by the adapter: 200 with its JSON when there is one, 204 otherwise.
Nothing here waits on anything else: what an app does once the agent has its answer (effort
pokes its transcript reader, which counts the tokens on a thread of its own) it registers
with `register_after_answer`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from asgiref.sync import sync_to_async

from core.security import headers_of
from sessions.approvals.room import room
from sessions.hooks import approvals as held
from sessions.hooks import service
from sessions.hooks.activity import flush_pending_activity
from sessions.hooks.answer import HookAnswer
from sessions.hooks.asgi_io import (
    Receive,
    Scope,
    Send,
    answer,
    answer_json,
    parse_object,
    read_body,
)
from sessions.hooks.asgi_io import refuse as _refuse
from sessions.hooks.event import HookEvent
from sessions.hooks.registry import AgentSpec
from sessions.models import GONE, Session

log = logging.getLogger("relaybay.hooks")
# How long the hook's client says it waits for this answer: relaybay.hook_client's
# HOLD_HEADER and HOLD_MAX (the client imports nothing of the server; a test holds them equal).
HOLD_HEADER = "x-relaybay-hold"
HOLD_MAX = 3600.0

App = Callable[[Scope, Receive, Send], Awaitable[None]]
_hook_event = sync_to_async(service.hook_event, thread_sensitive=True)

AfterAnswer = Callable[[Session], None]
_after_answer: list[AfterAnswer] = []


def register_after_answer(fn: AfterAnswer) -> None:
    """Run `fn(session)` on the event loop once the agent has its answer: it must only hand
    work on (a poke), never do it, and never raise (apps register in ready())."""
    if fn not in _after_answer:
        _after_answer.append(fn)


_flush = sync_to_async(flush_pending_activity, thread_sensitive=True)
_flush_timer: asyncio.TimerHandle | None = None


def _schedule_flush(delay: float | None) -> None:
    """Come back when the next pending activity's window ends (§4 "the latest wins").

    One timer at a time: a burst of events inside a window costs one flush, not one each.
    """
    global _flush_timer
    if delay is None:
        return
    loop = asyncio.get_running_loop()
    when = loop.time() + delay
    if _flush_timer is not None and not _flush_timer.cancelled() and _flush_timer.when() <= when:
        return
    if _flush_timer is not None:
        _flush_timer.cancel()
    _flush_timer = loop.call_at(when, lambda: loop.create_task(_run_flush()))


async def _run_flush() -> None:
    global _flush_timer
    _flush_timer = None
    try:
        _schedule_flush(await _flush())
    except Exception:
        log.exception("writing the pending session activity failed")


_settle = sync_to_async(held.settle, thread_sensitive=True)


async def _held(answer_: HookAnswer, event: HookEvent, receive: Receive) -> bool:
    """Hold the answer for the owner's decision (no thread: a future on this loop), then
    settle it; False when the client went away meanwhile."""
    outcome = await room().hold(answer_.hold_id or 0, held.hold_seconds(event), _gone(receive))
    try:
        await _settle(answer_, event, outcome)
    except Exception:  # the decision stays what it was: the guard's ask, never an allow
        log.exception("settling approval #%s failed", answer_.hold_id)
    return outcome != GONE


def _hold_of(headers: dict[str, str]) -> float:
    """How long the hook's client waits for this answer (its X-Relaybay-Hold), 0 when it
    does not say or says nonsense."""
    try:
        seconds = float(headers.get(HOLD_HEADER, "0"))
    except ValueError:
        return 0.0
    return seconds if 0 < seconds <= HOLD_MAX else 0.0


async def _gone(receive: Receive) -> None:
    """Returns when the client has gone away (its hook process ended or was killed)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _parse(adapter: AgentSpec, payload: dict[str, Any], sent: dict[str, str]) -> HookEvent | None:
    """The adapter's event, with how long its client waits when the agent holds it."""
    headers = {name: sent[name] for name in adapter.passed_headers if name in sent}
    event = adapter.parse(payload, headers)
    if event is not None and event.kind in adapter.capabilities.holds:
        event = replace(event, hold=_hold_of(sent))
    return event


def door(adapter: AgentSpec) -> App:
    """The ASGI endpoint of one agent's hooks."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":
            await _refuse(send, 405, f"POST the {adapter.title} hook input JSON.")
            return
        body = await read_body(receive)
        if body is None:
            return
        if not isinstance(body, bytes):  # over 256 KB: dropped
            await answer(send, 204)
            return
        payload, problem = parse_object(body, "hook input")
        if payload is None:
            await _refuse(send, 400, problem)
            return
        event = None
        try:
            event = _parse(adapter, payload, headers_of(scope.get("headers", [])))
            done = await _hook_event(event) if event is not None else None
        except Exception:
            # Never in the agent's way: a failure is logged and the hook ends quietly.
            log.exception("%s hook %s failed", adapter.title, event.name if event else "?")
            await answer(send, 204)
            return
        if done is None or done.answer is None or event is None:
            await answer(send, 204)
            return
        _schedule_flush(done.flush_in)
        if done.answer.hold_id is not None and not await _held(done.answer, event, receive):
            return  # the client went away while the owner was asked: nobody to answer
        body_out = adapter.render(done.answer, event)
        if body_out is None:
            await answer(send, 204)
        else:
            await answer_json(send, body_out)
        if done.session is not None:
            for after in _after_answer:  # the answer is sent: now what waited for it
                after(done.session)

    return app
