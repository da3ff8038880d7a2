"""The Inbox group "Sessions colliding" in headless Chromium (issue 32): two agents change
one file through the real hook endpoint, and the open Inbox shows the pair live, at 1280
and 390 px, and the row opens the task whose Session panel says it (screenshots in
tests/artifacts/browser/, looked at)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.helpers import sign_in, wait_state
from tests.sessions.hook_payloads import CWD, payload
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]


def hook(server: RelaybayServer, body: dict[str, Any]) -> None:
    assert server.post_hook("/hooks/claude-code", body)[0] in (200, 204)


def agent(server: RelaybayServer, name: str, title: str) -> str:
    agent_id = str(uuid.uuid4())

    def tool(tool: str, **args: Any) -> str:
        return call_tool(server.base_url, server.token, tool, {"session": name, **args})

    key = tool("task_create", project="collide", title=title).split()[1]
    tool("task_bind_session", task=key, session=name)
    tool("project_upsert", slug="collide", hook_session=agent_id)
    return agent_id


def edit(server: RelaybayServer, agent_id: str, path: str) -> None:
    tool_input = {"file_path": f"{CWD}/{path}", "old_string": "a", "new_string": "b"}
    body = payload("PreToolUse.Bash", session_id=agent_id, tool_name="Edit", tool_input=tool_input)
    hook(server, body)


@pytest.mark.parametrize(("name", "width"), [("desktop", 1280), ("phone", 390)])
def test_the_inbox_shows_two_sessions_colliding_live(
    fresh_server: RelaybayServer, new_page, shot, name: str, width: int
) -> None:
    server = fresh_server
    call_tool(
        server.base_url,
        server.token,
        "project_upsert",
        {"slug": "collide", "name": "Collide", "repo_path": CWD},
    )
    alice = agent(server, "alice-cart-agent", "Saved carts across devices")
    bob = agent(server, "bob-checkout-agent", "One-page checkout")
    w = new_page(width=width, height=844)
    page = w.page
    sign_in(page, server, "/inbox")
    wait_state(page, "live")

    edit(server, alice, "src/shop/cart/models.py")
    edit(server, bob, "src/shop/cart/models.py")

    group = page.locator("#inbox-sessions-colliding")
    expect(group).to_be_visible()
    expect(group).to_contain_text("bob-checkout-agent · One-page checkout")
    expect(group).to_contain_text("with collide-1 (alice-cart-agent): src/shop/cart/models.py")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    shot(page, f"inbox-colliding-{name}")

    # The row opens bob's task; its Session panel says who else is on the file.
    group.locator("a", has_text="One-page checkout").first.click()
    line = page.locator(".sp-collision")
    expect(line).to_be_visible()
    expect(line).to_contain_text("collide-1 (alice-cart-agent)")
    expect(line).to_contain_text("src/shop/cart/models.py")
    line.scroll_into_view_if_needed()
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    shot(page, f"session-panel-colliding-{name}")
    w.assert_clean()
