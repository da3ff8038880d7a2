"""The Plan tab in headless Chromium against a real server (§2 Plan tab).

An agent writes the plan and its checkpoints through the real MCP client; the owner
accepts it with the button; the tab follows both without a reload. Each test asserts that
the page logged no CSP violation and no console error. Screenshots: tests/artifacts/browser/.
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

from tests.browser.helpers import sign_in, wait_state
from tests.sessions.hook_payloads import payload
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
_slugs = itertools.count(1)


def agent(server: RelaybayServer, tool: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, tool, {"session": "agent-plan", **args})


def planned_task(server: RelaybayServer) -> tuple[str, str]:
    slug = f"plan-shop-{next(_slugs)}"
    agent(server, "project_upsert", slug=slug, name="Plan Shop")
    text = agent(server, "task_create", project=slug, title="Checkout with saved cards")
    key = re.match(r"Created (\S+) ", text).group(1)
    agent(
        server,
        "plan_set",
        task=key,
        steps=[
            {"title": "Card model", "details": "Store the **token**, never the number."},
            {"title": "Checkout API", "details": "One endpoint; idempotent."},
            "Payment form",
            "Browser tests",
        ],
        reason="first plan",
    )
    agent(server, "plan_step_update", task=key, step=1, status="done", conformance="as planned",
          outcome="model and migration in")  # fmt: skip
    agent(server, "plan_step_update", task=key, step=2, status="in_progress")
    return slug, key


def open_plan_tab(page: Any, server: RelaybayServer, slug: str, key: str) -> Any:
    sign_in(page, server, f"/p/{slug}")
    page.goto(f"{server.base_url}/p/{slug}?task={key}&tab=plan")
    wait_state(page, "live")
    panel = page.locator(f"#plan-panel-{key}")
    expect(panel).to_be_visible()
    return panel


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_accepting_the_plan_and_a_live_step_update(server, new_page, shot, size):
    slug, key = planned_task(server)
    w = new_page(**size)
    page = w.page
    panel = open_plan_tab(page, server, slug, key)
    name = "desktop" if size is DESKTOP else "phone"

    expect(page.locator("#td-tab-plan")).to_have_attribute("aria-selected", "true")
    tabs = page.locator('.td-tabs [role="tab"]')
    expect(tabs.first).to_have_text("Overview")
    expect(tabs.nth(1)).to_have_text("Plan")
    expect(panel.locator(".pl-state")).to_contain_text("Draft")
    expect(panel.locator(".pl-counts")).to_have_text("1 of 4 done")
    expect(panel.locator(".pl-step.is-current .pl-title")).to_have_text("Checkout API")
    if size is PHONE:
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the Plan tab scrolls sideways on a phone"
    shot(page, f"plan-tab-draft-{name}")

    marker = page.evaluate("() => (window.__marker = Math.random())")
    panel.get_by_role("button", name="Accept plan").click()
    expect(panel.locator(".pl-state")).to_contain_text("Accepted", timeout=8_000)
    expect(panel.locator(".pl-state")).to_contain_text("by owner")
    expect(panel.get_by_role("button", name="Accept plan")).to_have_count(0)
    assert page.evaluate("() => window.__marker") == marker  # no reload

    # The agent checks off step 2 with a deviation: the tab follows live.
    agent(server, "plan_step_update", task=key, step=2, status="done",
          conformance="deviation: no pagination yet", outcome="API up")  # fmt: skip
    expect(panel.locator(".pl-counts")).to_have_text("2 of 4 done · 1 deviation", timeout=8_000)
    step2 = page.locator(f"#plan-step-{key}-2")
    expect(step2).to_have_class(re.compile(r"\bis-deviation\b"))
    expect(step2.locator(".pl-conformance")).to_have_text("deviation: no pagination yet")
    expect(panel.locator(".pl-step.is-current .pl-title")).to_have_text("Payment form")
    assert page.evaluate("() => window.__marker") == marker
    panel.locator(".pl-history > summary").click()
    expect(panel.locator(".pl-rev").first).to_contain_text("step 2")
    shot(page, f"plan-tab-accepted-{name}")
    w.assert_clean()


def test_an_update_arriving_before_htmx_has_wired_the_new_panel_still_shows(server, new_page):
    """A refetch's answer is swapped in at once but wired by htmx only when it settles; an
    event in between used to be triggered on a panel with no listener and was lost (CI: the
    test above, on a busy machine). A slow settle makes that gap 5 s wide here."""
    slug, key = planned_task(server)
    w = new_page(**DESKTOP)
    page = w.page
    panel = open_plan_tab(page, server, slug, key)
    page.evaluate("() => { htmx.config.defaultSettleDelay = 5000; }")

    agent(server, "plan_step_update", task=key, step=2, status="done", conformance="as planned")
    expect(panel.locator(".pl-counts")).to_have_text("2 of 4 done", timeout=8_000)
    assert page.locator("#panel-plan.htmx-added").count() == 1, "the gap is not open"
    agent(server, "plan_step_update", task=key, step=3, status="done", conformance="as planned")
    expect(panel.locator(".pl-counts")).to_have_text("3 of 4 done", timeout=15_000)
    w.assert_clean()


def test_the_card_badge_opens_the_plan_tab(server, new_page, shot):
    slug, key = planned_task(server)
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, f"/p/{slug}")
    wait_state(page, "live")
    badge = page.locator(f"#card-{key} .plan-badge")
    expect(badge).to_have_text("Plan 1/4 · draft · now: Checkout API")
    expect(badge).to_have_class(re.compile(r"\bplan-draft\b"))
    shot(page, "plan-card-badge-desktop")
    badge.click()
    expect(page.locator(f"#plan-panel-{key}")).to_be_visible()
    expect(page.locator("#td-tab-plan")).to_have_attribute("aria-selected", "true")
    w.assert_clean()


def _hook(server: RelaybayServer, name: str, **changes: object) -> int:
    """One Claude Code hook event over real HTTP, as the hook client sends it."""
    body = json.dumps(payload(name, **changes)).encode()
    request = urllib.request.Request(
        server.base_url + "/hooks/claude-code",
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


def test_the_agents_todo_appears_live_under_the_current_step(server, new_page, shot):
    slug, key = planned_task(server)
    agent_id = str(uuid.uuid4())
    agent(server, "task_bind_session", task=key)
    # A write naming the Claude Code id links the hook session to agent-plan exactly.
    agent(
        server, "plan_step_update", task=key, step=2, details="One endpoint.", hook_session=agent_id
    )
    w = new_page(**DESKTOP)
    page = w.page
    panel = open_plan_tab(page, server, slug, key)
    expect(panel.locator(".pl-now")).to_have_count(0)

    todos = [
        {"content": "Write the handler", "status": "completed", "activeForm": "Writing it"},
        {"content": "Add the route", "status": "in_progress", "activeForm": "Adding the route"},
        {"content": "Test the endpoint", "status": "pending", "activeForm": "Testing"},
    ]
    status = _hook(
        server, "PostToolUse.Bash", session_id=agent_id, tool_name="TodoWrite",
        tool_input={"todos": todos},
    )  # fmt: skip
    assert status in (200, 204)
    current = panel.locator(".pl-step.is-current")
    expect(current.locator(".pl-now-text")).to_have_text("Adding the route", timeout=8_000)
    todo = current.locator(".pl-todo")
    expect(todo).not_to_have_attribute("open", "")
    todo.locator("summary").click()
    expect(todo.locator(".pl-todo-item")).to_have_count(3)
    shot(page, "plan-tab-todo-desktop")
    w.assert_clean()
