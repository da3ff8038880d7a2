"""The Session panel of an agent without a turn end, in headless Chromium against a real
server that registers the fake agent (tests/fake_agent/) by RELAYBAY_AGENT_PACKAGES: the
owner reads that comments reach it with its next prompt or tool output, at desktop and
phone width, and a Claude Code session beside it says nothing of the kind.
Screenshots: tests/artifacts/browser/session-panel-no-turn-end-*.png."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.helpers import sign_in, wait_state
from tests.sessions.hook_payloads import payload
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
NOTE = (
    "FakeCLI has no turn end to block: owner comments reach it with its next prompt or tool output."
)


@pytest.fixture(scope="module")
def fake_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    home: Path = tmp_path_factory.mktemp("fake-panel")
    server = RelaybayServer(home=home, env={"RELAYBAY_AGENT_PACKAGES": "tests.fake_agent.hooks"})
    server.start()
    yield server
    server.stop()


def tool(server: RelaybayServer, tool_name: str, **args: object) -> str:
    return call_tool(server.base_url, server.token, tool_name, args)


def task_of(server: RelaybayServer, title: str, session: str, agent_id: str) -> str:
    """A task bound to `session`, linked to the hook session `agent_id`."""
    created = tool(server, "task_create", project="acme-shop", title=title)
    key = created.split()[1]
    tool(server, "task_bind_session", task=key, session=session)
    tool(server, "task_update", task=key, session=session, hook_session=agent_id, progress="on it")
    return key


def test_the_panel_says_when_comments_reach_an_agent_without_a_turn_end(
    fake_server: RelaybayServer, new_page, shot
) -> None:
    server = fake_server
    tool(server, "project_upsert", slug="acme-shop", name="Acme Shop")
    fake_id, claude_id = str(uuid.uuid4()), str(uuid.uuid4())
    status, _ = server.post_hook(
        "/hooks/fakecli", {"ev": "begin", "sid": fake_id, "dir": "/home/dev/acme-shop"}
    )
    assert status in (200, 204)
    status, _ = server.post_hook(
        "/hooks/claude-code", payload("SessionStart.startup.print", session_id=claude_id)
    )
    assert status in (200, 204)
    fake_key = task_of(server, "Fake the cart", "fake-one", fake_id)
    claude_key = task_of(server, "Fix the login form", "claude-one", claude_id)

    for size, viewport in SIZES.items():
        w = new_page(**viewport)
        page = w.page
        sign_in(page, server, f"/p/acme-shop?task={fake_key}")
        wait_state(page, "live")
        panel = page.locator(f"#session-panel-{fake_key}")
        expect(panel.locator(".sp-agent")).to_have_text("FakeCLI")
        note = panel.locator(".sp-comments-note")
        expect(note).to_have_text(NOTE)
        note.scroll_into_view_if_needed()
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= viewport["width"], "the panel scrolls sideways"
        shot(page, f"session-panel-no-turn-end-{size}")

        page.goto(f"{server.base_url}/p/acme-shop?task={claude_key}")
        other = page.locator(f"#session-panel-{claude_key}")
        expect(other.locator(".sp-agent")).to_have_text("Claude Code")
        expect(other.locator(".sp-comments-note")).to_have_count(0)
        w.assert_clean()
