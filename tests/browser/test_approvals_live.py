"""The whole path of an approval, in headless Chromium against a real server: a Claude Code
PermissionRequest (the captured input) arrives with a hook that can wait; the Inbox open in
the browser shows it in "Waiting for your approval" by itself (the live stream, no reload),
the owner clicks Approve, and the held hook answers allow within a second of the click. The
same with Deny and a message, on a phone."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.conftest import save_shot
from tests.browser.helpers import sign_in, wait_state
from tests.integration.test_approvals_held import Held, pending
from tests.sessions.hook_payloads import payload
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]


def prompt(server: RelaybayServer, sid: str) -> Held:
    body = payload("PermissionRequest.Bash.print", session_id=sid, cwd="/home/dev/acme-shop")
    return Held(server, "/hooks/claude-code", body)


def held_on_the_inbox(server: RelaybayServer, page: Any) -> tuple[Held, dict, Any]:
    """The Inbox open and live, then a held PermissionRequest: its block, pushed by the live
    stream with no reload."""
    sign_in(page, server, "/inbox")
    wait_state(page, "live")
    sid = str(uuid.uuid4())
    held = prompt(server, sid)
    request = pending(server.home, sid)
    block = page.locator(f"#approval-inbox-{request['id']}")
    expect(block).to_be_visible(timeout=10_000)
    return held, request, block


def test_a_held_prompt_appears_live_and_approve_answers_the_hook(
    server: RelaybayServer, new_page: Any
) -> None:
    watched = new_page(width=1280, height=900)
    page = watched.page
    held, request, block = held_on_the_inbox(server, page)
    expect(block).to_contain_text("Bash")
    save_shot(page, "approvals-live-1280")

    block.get_by_role("button", name="Approve").click()
    clicked = time.monotonic()
    status, answer = held.result()
    assert (status, answer["hookSpecificOutput"]["decision"]) == (200, {"behavior": "allow"})
    assert held.ended_at - clicked < 1.0
    expect(page.locator(f"#approval-inbox-{request['id']}")).to_have_count(0)
    watched.assert_clean()


def test_deny_with_a_message_on_a_phone_reaches_the_agent(
    server: RelaybayServer, new_page: Any
) -> None:
    watched = new_page(width=390, height=844)
    page = watched.page
    held, _, block = held_on_the_inbox(server, page)
    block.get_by_text("Deny…").click()
    block.get_by_label("Message to the agent").fill("Use the staging box instead.")
    save_shot(page, "approvals-live-deny-390")
    block.get_by_role("button", name="Deny", exact=True).click()
    _, answer = held.result()
    assert answer["hookSpecificOutput"]["decision"] == {
        "behavior": "deny",
        "message": "The owner denied this on the relaybay board: Use the staging box instead.",
    }
    watched.assert_clean()
