"""POST /hooks/claude-code: the Claude Code hook input in, the answer for the agent out (§4).

A thin raw-ASGI adapter (see sessions/asgi_io.py for why not a Django view): the outer app
has already checked the Bearer token and the Host and Origin rules for every /hooks path.
Bodies over 256 KB are dropped (204), a body that is not a JSON object is refused (400),
and the rest goes to sessions.hook_service.hook_event in one hop to the shared sync
thread; 200 with the JSON answer when there is one, 204 otherwise. Nothing here waits on
anything else.
"""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import sync_to_async

from core.security import headers_of
from sessions.activity import flush_pending_activity
from sessions.asgi_io import Receive, Scope, Send, answer, answer_json, parse_object, read_body
from sessions.asgi_io import refuse as _refuse
from sessions.hook_service import hook_event

log = logging.getLogger("relaybay.hooks")

HOOK_PATH = "/hooks/claude-code"
# Headers the hook service may read; never the Authorization or Cookie headers.
PASSED_HEADERS = ("x-relaybay-host-session", "x-relaybay-host-attended", "user-agent")
_hook_event = sync_to_async(hook_event, thread_sensitive=True)
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


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope.get("method") != "POST":
        await _refuse(send, 405, "POST the Claude Code hook input JSON.")
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
    sent = headers_of(scope.get("headers", []))
    headers = {name: sent[name] for name in PASSED_HEADERS if name in sent}
    try:
        result = await _hook_event(payload=payload, headers=headers)
    except Exception:
        # Never in the agent's way: a failure is logged and the hook ends quietly.
        log.exception("hook %s failed", payload.get("hook_event_name"))
        await answer(send, 204)
        return
    _schedule_flush(result.flush_in)
    if result.answer is None:
        await answer(send, 204)
    else:
        await answer_json(send, result.answer)
