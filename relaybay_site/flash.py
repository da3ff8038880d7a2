"""The one-time outcome of a full-page form (§9 #spec-security, POST → redirect → GET).

A successful write answers 303 to its page; what happened ("Wrote …", the check results)
rides in the `relaybay_flash` cookie: 60 s, HttpOnly, SameSite=Strict, signed with a key
derived from the token so a cookie the server did not set is ignored. The page shows it
once and deletes it. Details are trimmed so the cookie stays well under 4 KB.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest, HttpResponse

from relaybay_site import tokens
from relaybay_site.security import current_token

COOKIE = "relaybay_flash"
MAX_AGE = 60
PURPOSE = "relaybay flash"
MAX_DETAIL = 300
MAX_ITEMS = 20


@dataclass(frozen=True)
class Flash:
    """A message and, for the check, its {ok, name, detail} items."""

    message: str
    ok: bool = True
    items: tuple[dict[str, Any], ...] = field(default=())


def _encode(flash: Flash) -> str:
    items = [
        {"ok": bool(i["ok"]), "name": str(i["name"]), "detail": str(i["detail"])[:MAX_DETAIL]}
        for i in flash.items[:MAX_ITEMS]
    ]
    data = json.dumps({"m": flash.message[:MAX_DETAIL], "ok": flash.ok, "i": items})
    body = base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")
    return f"{body}.{tokens.sign(current_token(), PURPOSE, body)}"


def _decode(value: str) -> Flash | None:
    body, _, mac = value.partition(".")
    if not tokens.same(mac, tokens.sign(current_token(), PURPOSE, body)):
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        items = tuple(
            {"ok": bool(i["ok"]), "name": str(i["name"]), "detail": str(i["detail"])}
            for i in data["i"]
        )
        return Flash(str(data["m"]), bool(data["ok"]), items)
    except (binascii.Error, ValueError, KeyError, TypeError):
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
