"""Settings → Notifications and the script every page loads for it (§2 Browser notification)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from core import tokens
from core.security import current_token
from relaybay_site.settings import STATIC_DIR
from tests.support.board import signed_in_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> Client:
    return signed_in_client()


def test_settings_leads_to_integrations_the_first_tab(client):
    response = client.get("/settings")
    assert response.status_code == 302
    assert response["Location"] == "/settings/integrations"


def test_the_page_shows_each_permission_state_and_the_one_button(client):
    response = client.get("/settings/notifications")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Notifications</h1>" in html
    panel = re.search(
        r'<section class="notify-panel" id="notify-settings".*?</section>', html, re.S
    )[0]
    # notify.js shows the part matching Notification.permission; the rest stay hidden.
    for state, words in (
        ("granted", "allows"),
        ("denied", "blocks"),
        ("default", "has not decided"),
        ("unsupported", "offers no notifications"),
    ):
        part = re.search(rf'<p class="notify-line" data-when="{state}" hidden>.*?</p>', panel, re.S)
        assert part is not None, state
        assert words in part[0]
    button = re.search(r'<button[^>]*id="notify-allow"[^>]*>Allow notifications</button>', panel)
    assert button is not None
    assert 'data-when="default" hidden' in button[0]
    assert "Waiting for your acceptance" in panel
    assert 'role="status"' in panel


def test_settings_is_the_current_sidebar_item_with_a_breadcrumb(client):
    html = client.get("/settings/notifications").content.decode()
    assert re.search(r'<a href="/settings" aria-current="page">', html)
    assert '<a href="/settings">Settings</a><span aria-current="page">Notifications</span>' in html
    # The tab bar: Integrations first, Notifications current, then Policy and Storage.
    tabs = re.search(r'<nav class="settings-tabs" aria-label="Settings">(.*?)</nav>', html, re.S)[1]
    assert re.findall(r'<a href="([^"]+)"', tabs) == [
        "/settings/integrations",
        "/settings/notifications",
        "/settings/policy",
        "/settings/storage",
    ]
    assert '<a href="/settings/notifications" aria-current="page">Notifications</a>' in tabs


def test_every_page_loads_notify_js_and_no_inline_script(client):
    for url in ("/", "/settings/notifications", "/inbox", "/activity"):
        html = client.get(url).content.decode()
        assert re.search(r'<script src="/static/relaybay/notify\.js\?v=[0-9a-f]{12}" defer>', html)
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), url
        assert " onclick=" not in html
        assert " style=" not in html


def test_notify_js_asks_for_the_permission_only_from_the_button():
    source = (STATIC_DIR / "relaybay" / "notify.js").read_text()
    code = "\n".join(line.split("//")[0] for line in source.splitlines())
    assert code.count("requestPermission(") == 1
    # The one call sits in the button's click handler (the browser test proves no page load
    # asks: tests/browser/test_inbox_activity.py).
    handler = code.index('allow.addEventListener("click"')
    assert handler < code.index("requestPermission(") < code.index("var test =", handler)
    assert "tag: data.key" in code
    assert '"Waiting for your acceptance: "' in code


def test_signed_out_visitors_are_sent_to_sign_in():
    for url in ("/settings", "/settings/notifications"):
        response = Client().get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/login?next=")


def test_the_settings_pages_only_answer_reads(client):
    headers = {
        "HTTP_SEC_FETCH_SITE": "same-origin",
        "HTTP_X_RELAYBAY_CSRF": tokens.csrf_token(current_token()),
    }
    for url in ("/settings", "/settings/notifications"):
        assert client.post(url, **headers).status_code == 405
