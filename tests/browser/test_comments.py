"""Owner comments end to end in headless Chromium against a real server (§2 Comments, §4).

The owner writes in the task dialog's comment box; a simulated Claude Code session (the
real hook payloads POSTed to /hooks/claude-code) receives it with its next PostToolUse; the
agent answers with comment_add through the real MCP client, and the reply appears in the
open thread without a reload — while a draft typed in the box stays where it is.
"""

from __future__ import annotations

import itertools
import json
import re
import urllib.request
import uuid
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.helpers import sign_in, slow_gets, wait_state
from tests.sessions.hook_payloads import payload
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

_numbers = itertools.count(1)


class Agent:
    """One Claude Code session: its relaybay name, its Claude Code id and its folder."""

    def __init__(self, server: RelaybayServer) -> None:
        n = next(_numbers)
        self.server = server
        self.slug, self.name = f"talk-{n}", f"agent-c{n}"
        self.cwd, self.agent_id = f"/home/dev/talk-{n}", str(uuid.uuid4())
        self.key = f"{self.slug}-1"
        self.tool("project_upsert", slug=self.slug, name=f"Talk {n}", repo_path=self.cwd)
        self.tool("task_create", project=self.slug, title="Checkout page")
        self.tool("task_bind_session", task=self.key, session=self.name)
        self.hook("SessionStart.startup.print")
        self.tool("task_update", task=self.key, next_step="Build it", hook_session=self.agent_id)

    def tool(self, tool: str, /, **args: Any) -> str:
        return call_tool(
            self.server.base_url, self.server.token, tool, {"session": self.name, **args}
        )

    def hook(self, fixture: str) -> dict[str, Any] | None:
        body = json.dumps(payload(fixture, session_id=self.agent_id, cwd=self.cwd)).encode()
        request = urllib.request.Request(
            self.server.base_url + "/hooks/claude-code", data=body, method="POST"
        )
        request.add_header("Authorization", f"Bearer {self.server.token}")
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read()) if response.status == 200 else None

    def context(self, fixture: str = "PostToolUse.Bash") -> str:
        answer = self.hook(fixture) or {}
        return answer.get("hookSpecificOutput", {}).get("additionalContext", "")


def open_dialog(w: Any, server: RelaybayServer, agent: Agent) -> Any:
    page = w.page
    sign_in(page, server, f"/p/{agent.slug}")
    wait_state(page, "live")
    page.evaluate("window.__marker = 'still here'")
    page.locator(f"#link-{agent.key}").click()
    expect(page.locator("#task-dialog")).to_be_visible()
    expect(page.locator(f"#comments-thread-{agent.key}")).to_be_visible()
    return page


@pytest.mark.parametrize("slow_panel_ms", [0, 1500], ids=["quick", "slow-panel-refresh"])
def test_a_comment_travels_to_the_agent_and_its_reply_comes_back_to_the_open_thread(
    server: RelaybayServer, new_page: Any, shot: Any, slow_panel_ms: int
):
    """With slow panel refreshes too: the thread's writes once queued behind the panel's
    refetch, and the refetch's swap silently dropped them (Mark replies read was lost)."""
    agent = Agent(server)
    w = new_page(1440, 900)
    if slow_panel_ms:
        slow_gets(w.page, "/panel/", slow_panel_ms)
    page = open_dialog(w, server, agent)
    thread = page.locator(f"#comments-thread-{agent.key}")
    box = page.locator(f"#comment-body-{agent.key}")
    expect(page.locator(f"#comment-note-{agent.key}")).to_have_text(
        f"New comments go to {agent.name}, with its next hook event."
    )

    box.fill("Please show the **total** with tax.")
    page.get_by_role("button", name="Send comment").click()

    item = thread.locator(".cm-item.is-owner").first
    expect(item).to_contain_text("Please show the total with tax.")
    expect(item.locator(".cm-undelivered")).to_have_text("not delivered yet")
    expect(page.locator(f"#comment-body-{agent.key}")).to_have_value("")
    cid = int(item.get_attribute("data-comment-id"))

    line = agent.context().splitlines()[0]
    assert line == f"Owner comment on {agent.key} (#{cid}): Please show the **total** with tax."
    expect(item.locator(".cm-delivered")).to_contain_text(f"to {agent.name}")
    assert agent.context() == ""  # delivered once

    agent.tool("comment_add", task=agent.key, body="Done: total incl. tax.", in_reply_to=cid)

    reply = thread.locator(".cm-item.is-agent")
    expect(reply).to_contain_text("Done: total incl. tax.")
    expect(reply.locator(".cm-author")).to_have_text(agent.name)
    expect(reply.locator(".cm-unread")).to_have_text("unread")
    expect(thread.locator(f'[data-comment-id="{cid}"] .cm-read-at')).to_contain_text("read")
    shot(page, "comments-thread")

    page.get_by_role("button", name=re.compile(r"Mark replies read")).click()
    expect(reply.locator(".cm-unread")).to_have_count(0)
    assert page.evaluate("window.__marker") == "still here"
    w.assert_clean()


def test_a_typed_draft_stays_while_the_thread_refreshes_live(server: RelaybayServer, new_page: Any):
    agent = Agent(server)
    w = new_page(1440, 900)
    page = open_dialog(w, server, agent)
    box = page.locator(f"#comment-body-{agent.key}")
    box.fill("Half-written thought about the")

    agent.tool("comment_add", task=agent.key, body="A question: which currency?")
    agent.tool("task_update", task=agent.key, progress="Cart done.")  # the task's own events

    thread = page.locator(f"#comments-thread-{agent.key}")
    expect(thread.locator(".cm-item.is-agent")).to_contain_text("which currency?")
    expect(box).to_have_value("Half-written thought about the")
    box.press("End")
    box.type(" currency: EUR.")
    page.get_by_role("button", name="Send comment").click()
    expect(thread.locator(".cm-item.is-owner")).to_contain_text(
        "Half-written thought about the currency: EUR."
    )
    # Writing a comment marks the task's replies read.
    expect(thread.locator(".cm-unread")).to_have_count(0)
    assert page.evaluate("window.__marker") == "still here"
    w.assert_clean()


def test_a_refused_comment_keeps_the_text_and_shows_why(server: RelaybayServer, new_page: Any):
    agent = Agent(server)
    w = new_page(1440, 900)
    page = open_dialog(w, server, agent)
    box = page.locator(f"#comment-body-{agent.key}")
    box.fill("   ")
    # Spaces pass the browser's `required`; the service refuses an empty comment.
    page.get_by_role("button", name="Send comment").click()
    expect(page.locator(f"#comments-{agent.key} .cm-error")).to_contain_text("body is empty")
    expect(page.locator(f"#comment-body-{agent.key}")).to_have_value("   ")
    w.assert_clean()


def test_the_task_page_thread_is_live_too(server: RelaybayServer, new_page: Any):
    agent = Agent(server)
    w = new_page(390, 844)  # a phone
    page = w.page
    sign_in(page, server, f"/t/{agent.key}")
    wait_state(page, "live")
    page.evaluate("window.__marker = 'still here'")
    page.locator(f"#comment-body-{agent.key}").fill("From the phone")
    page.get_by_role("button", name="Send comment").click()
    thread = page.locator(f"#comments-thread-{agent.key}")
    expect(thread.locator(".cm-item.is-owner")).to_contain_text("From the phone")

    assert "From the phone" in agent.context("UserPromptSubmit.print")
    expect(thread.locator(".cm-delivered")).to_contain_text(f"to {agent.name}")
    agent.tool("comment_add", task=agent.key, body="Seen on the page")
    expect(thread.locator(".cm-item.is-agent")).to_contain_text("Seen on the page")
    assert page.evaluate("window.__marker") == "still here"
    w.assert_clean()
