"""The one-time flash cookie (§9): signed, small enough for any browser, round trip intact."""

from __future__ import annotations

import secrets

import pytest
from django.test import RequestFactory

from core import flash

pytestmark = pytest.mark.django_db


def _value(f: flash.Flash) -> str:
    response = flash.redirect_with(RequestFactory().post("/"), "/settings/integrations", f)
    return response.cookies[flash.COOKIE].value


def _read(value: str) -> flash.Flash | None:
    request = RequestFactory().get("/settings/integrations")
    request.COOKIES[flash.COOKIE] = value
    return flash.take(request)


def test_a_flash_with_check_items_comes_back_as_it_was_sent():
    items = tuple(
        {
            "ok": i % 2 == 0,
            "name": f"item {i}",
            "detail": f"detail {i}",
            "fix": "" if i % 2 == 0 else f"relaybay setup --apply # {i}",
        }
        for i in range(9)
    )
    sent = flash.Flash("Check: 4 of 9 items failed.", ok=False, items=items)
    assert _read(_value(sent)) == sent


def test_incompressible_long_details_are_cut_so_the_cookie_stays_under_4_kb():
    # 20 items with 2,000 random characters each: far past 4 KB unless the details shrink.
    items = tuple(
        {
            "ok": False,
            "name": f"item {i}",
            "detail": secrets.token_urlsafe(1500),
            "fix": secrets.token_urlsafe(300),
        }
        for i in range(20)
    )
    value = _value(flash.Flash("Check: 20 of 20 items failed.", ok=False, items=items))
    assert len(value) <= flash.MAX_COOKIE
    back = _read(value)
    assert back is not None
    assert back.message == "Check: 20 of 20 items failed."
    assert [i["name"] for i in back.items] == [f"item {i}" for i in range(20)]
    assert all(len(i["detail"]) < 1500 for i in back.items)


def test_a_long_message_is_kept_whole_up_to_a_thousand_characters():
    message = "Wrote /" + "a" * 600 + "/settings.json. Backup: …"
    assert _read(_value(flash.Flash(message))).message == message


def test_a_value_signed_by_anyone_else_is_ignored():
    value = _value(flash.Flash("Wrote it."))
    body, _, mac = value.partition(".")
    assert _read(f"{body}.{'0' * len(mac)}") is None
    assert _read(body) is None
    assert _read("not-base64!.abc") is None
