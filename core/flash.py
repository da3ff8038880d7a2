"""The one-time outcome of a full-page form (§9 #spec-security, POST → redirect → GET).

A successful write answers 303 to its page; what happened ("Wrote …", the check results)
rides in the `relaybay_flash` cookie: 60 s, HttpOnly, SameSite=Strict, signed with a key
derived from the token so a cookie the server did not set is ignored. The page shows it
once and deletes it. The value is compressed and item details are cut as far as needed to
keep it under 3,800 bytes, so a browser never drops it for size.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest, HttpResponse

from core import tokens
from core.security import current_token

COOKIE = "relaybay_flash"
MAX_AGE = 60
PURPOSE = "relaybay flash"
MAX_MESSAGE = 1000
MAX_ITEMS = 20
MAX_COOKIE = 3800  # bytes of the value: browsers drop a cookie past 4 KB with its attributes
DETAIL_STEPS = (400, 200, 100, 40, 0)  # details shrink until the value fits
MAX_FIX = 240  # a failed check's fix command (agents.setup.items.Item.fix)


@dataclass(frozen=True)
class Flash:
    """A message and, for the check, its {ok, name, detail, fix} items."""

    message: str
    ok: bool = True
    items: tuple[dict[str, Any], ...] = field(default=())


def _encode(flash: Flash) -> str:
    """The signed value, with item details cut as far as needed to stay under MAX_COOKIE."""
    for limit in DETAIL_STEPS:
        items = [
            {
                "ok": bool(i["ok"]),
                "name": str(i["name"])[:60],
                "detail": _cut(i["detail"], limit),
                # The way out outlives the details: cut only when nothing else is left to cut.
                "fix": _cut(i.get("fix", ""), MAX_FIX if limit else 80),
            }
            for i in flash.items[:MAX_ITEMS]
        ]
        data = json.dumps({"m": _cut(flash.message, MAX_MESSAGE), "ok": flash.ok, "i": items})
        body = base64.urlsafe_b64encode(zlib.compress(data.encode())).decode().rstrip("=")
        value = f"{body}.{tokens.sign(current_token(), PURPOSE, body)}"
        if len(value) <= MAX_COOKIE:
            break
    return value


def _cut(text: Any, limit: int) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def _decode(value: str) -> Flash | None:
    body, _, mac = value.partition(".")
    if not tokens.same(mac, tokens.sign(current_token(), PURPOSE, body)):
        return None
    try:
        raw = zlib.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        data = json.loads(raw)
        items = tuple(
            {
                "ok": bool(i["ok"]),
                "name": str(i["name"]),
                "detail": str(i["detail"]),
                "fix": str(i.get("fix", "")),
            }
            for i in data["i"]
        )
        return Flash(str(data["m"]), bool(data["ok"]), items)
    except (binascii.Error, zlib.error, ValueError, KeyError, TypeError):
        return None


def redirect_with(request: HttpRequest, location: str, flash: Flash) -> HttpResponse:
    """303 to `location` carrying `flash` for the next GET of the page."""
    response = HttpResponse(status=303)
    response["Location"] = location
    response.set_cookie(
        COOKIE,
        _encode(flash),
        max_age=MAX_AGE,
        httponly=True,
        samesite="Strict",
        secure=request.is_secure(),
        path="/",
    )
    return response


def take(request: HttpRequest) -> Flash | None:
    """The flash this request carries (None when absent or not signed by this server)."""
    value = request.COOKIES.get(COOKIE)
    return _decode(value) if value else None


def forget(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Delete the flash cookie once the page showed it (or ignored a forged one)."""
    if COOKIE in request.COOKIES:
        response.delete_cookie(COOKIE, path="/", samesite="Strict")
    return response
