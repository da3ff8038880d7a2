"""POST /hooks/claude-code: the Claude Code hook input in, the answer for the agent out (§4).

A thin adapter: the outer ASGI app has already checked the Bearer token and the Host and
Origin rules for every /hooks path. This view drops bodies over 256 KB (204), refuses a
body that is not a JSON object (400), and hands the rest to
sessions.hook_service.hook_event in one hop to the sync thread; 200 with the JSON answer
when there is one, 204 otherwise. Nothing here waits on anything else.
"""

from __future__ import annotations

import json
import logging

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_POST

from sessions.hook_service import hook_event

log = logging.getLogger("relaybay.hooks")

BODY_MAX = 256 * 1024  # §9.8: hook bodies are capped at 256 KB
# Headers the hook service may read; never the Authorization or Cookie headers.
PASSED_HEADERS = ("x-relaybay-host-session", "x-relaybay-host-attended", "user-agent")


def _no_content() -> HttpResponse:
    return HttpResponse(status=204)


def _refused(reason: str) -> HttpResponse:
    return HttpResponse(reason + "\n", status=400, content_type="text/plain; charset=utf-8")


def _too_big(request: HttpRequest) -> bool:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0) > BODY_MAX
    except ValueError:
        return False


@require_POST
async def claude_code(request: HttpRequest) -> HttpResponse:
    if _too_big(request):
        return _no_content()
    body = request.read(BODY_MAX + 1)  # the actual body counts, whatever the header said
    if len(body) > BODY_MAX:
        return _no_content()
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return _refused("Refused: the body is not JSON. Send the hook input JSON as it is.")
    if not isinstance(payload, dict):
        return _refused("Refused: the body must be a JSON object (the hook input).")
    headers = {name: request.headers[name] for name in PASSED_HEADERS if name in request.headers}
    try:
        result = await sync_to_async(hook_event, thread_sensitive=True)(
            payload=payload, headers=headers
        )
    except Exception:
        # Never in the agent's way: a failure is logged and the hook ends quietly.
        log.exception("hook %s failed", payload.get("hook_event_name"))
        return _no_content()
    if result.answer is None:
        return _no_content()
    return JsonResponse(result.answer, json_dumps_params={"ensure_ascii": False})
