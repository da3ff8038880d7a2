"""Raw ASGI request/response helpers for the two hook endpoints.

Both /hooks/claude-code and its /wait sibling run outside Django's request handler: Django
gives every request a thread of its own, so 20 busy hook sessions queued 20 threads on
SQLite's write lock (p99 over a second), and 200 held waits would hold 200 threads. Here
the sync work goes to the one shared sync thread, like the MCP tools (docs/architecture.md §4).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from core.responses import PLAIN_TEXT

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

BODY_MAX = 256 * 1024  # §9.8: hook bodies are capped at 256 KB
TOO_BIG = object()


async def read_body(receive: Receive) -> bytes | object | None:
    """The request body; TOO_BIG past BODY_MAX (read to the end and dropped); None when the
    client left before sending it all."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= BODY_MAX:
            chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks) if size <= BODY_MAX else TOO_BIG


async def answer(send: Send, status: int, body: bytes = b"", ctype: str = "") -> None:
    headers = [(b"content-length", str(len(body)).encode())]
    if ctype:
        headers.append((b"content-type", ctype.encode()))
    if status == 405:
        headers.append((b"allow", b"POST"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def refuse(send: Send, status: int, reason: str) -> None:
    await answer(send, status, (reason + "\n").encode(), PLAIN_TEXT)


async def answer_json(send: Send, payload: dict[str, Any]) -> None:
    body = json.dumps(payload, ensure_ascii=False).encode()
    await answer(send, 200, body, "application/json")


def parse_object(body: bytes, what: str) -> tuple[dict[str, Any] | None, str]:
    """The body as a JSON object, or None and the reason for a 400."""
    try:
        event = json.loads(body)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None, f"Refused: the body is not JSON. Send the {what} JSON as it is."
    if not isinstance(event, dict):
        return None, f"Refused: the body must be a JSON object (the {what})."
    return event, ""
