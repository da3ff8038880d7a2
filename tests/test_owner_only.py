"""Board-only writes refuse the Bearer token in one place (security.owner_only, §9.5).

The refusal had been copied into six views; one copy forgotten in a later app would let an
agent holding the token accept its own plan. So views say `@owner_only(reason)` and nothing
else reads `request.auth_kind`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from core.security import owner_only

ROOT = Path(__file__).resolve().parent.parent
REASON = "Refused: use the tool."
READERS_ALLOWED = {"core/security.py", "relaybay_site/context.py"}


@owner_only(REASON)
def sync_write(request: HttpRequest) -> HttpResponse:
    return HttpResponse("written")


@owner_only(REASON)
async def async_write(request: HttpRequest) -> HttpResponse:
    return HttpResponse("written")


def _request(kind: str | None) -> HttpRequest:
    request = RequestFactory().post("/x")
    request.auth_kind = kind  # type: ignore[attr-defined]
    return request


def test_the_bearer_token_and_no_sign_in_are_refused_with_the_reason() -> None:
    for kind in ("bearer", None):
        for answer in (sync_write(_request(kind)), asyncio.run(async_write(_request(kind)))):
            assert answer.status_code == 403
            assert answer.content.decode() == REASON + "\n"


def test_the_board_cookie_reaches_the_view() -> None:
    assert sync_write(_request("cookie")).content == b"written"
    assert asyncio.run(async_write(_request("cookie"))).content == b"written"


def test_no_view_checks_the_sign_in_kind_itself() -> None:
    readers = []
    for path in ROOT.glob("*/**/*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith((".venv/", "tests/")) or rel in READERS_ALLOWED:
            continue
        if "auth_kind" in path.read_text():
            readers.append(rel)
    assert readers == [], "decorate the view with @owner_only(reason) instead: " + str(readers)
