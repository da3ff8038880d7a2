"""The Review tab in headless Chromium against a real server (§2 Review tab).

An agent writes the Owner check through the real MCP client; the owner accepts a step with
its checkbox and rejects another with a comment; the tab follows both without a reload, and
a comment box holding text keeps the live refresh away. Each test asserts that the page
logged no CSP violation and no console error. Screenshots: tests/artifacts/browser/.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.helpers import sign_in, wait_state
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
_slugs = itertools.count(1)
STEPS = [
    {"title": "Login with 2FA", "details": "Open **/login** and enter the code from the app."},
    {"title": "Logout", "details": "The menu's *Sign out* ends the session."},
    "Password reset",
]


def agent(server: RelaybayServer, tool: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, tool, {"session": "agent-review", **args})


def checked_task(server: RelaybayServer) -> tuple[str, str]:
    slug = f"review-shop-{next(_slugs)}"
    agent(server, "project_upsert", slug=slug, name="Review Shop")
    text = agent(server, "task_create", project=slug, title="Two-factor login")
    key = re.match(r"Created (\S+) ", text).group(1)
    agent(server, "review_steps_set", task=key, steps=STEPS)
    return slug, key


def open_review_tab(page: Any, server: RelaybayServer, slug: str, key: str) -> Any:
    sign_in(page, server, f"/p/{slug}")
    page.goto(f"{server.base_url}/p/{slug}?task={key}&tab=review")
    wait_state(page, "live")
    panel = page.locator(f"#review-panel-{key}")
    expect(panel).to_be_visible()
    return panel


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_accept_with_the_checkbox_and_reject_with_a_comment(server, new_page, shot, size):
    slug, key = checked_task(server)
    w = new_page(**size)
    page = w.page
    panel = open_review_tab(page, server, slug, key)
    name = "desktop" if size is DESKTOP else "phone"

    expect(page.locator("#td-tab-review")).to_have_attribute("aria-selected", "true")
    tabs = page.locator('.td-tabs [role="tab"]')
    expect(tabs.first).to_have_text("Overview")
    expect(tabs.nth(1)).to_have_text("Plan")
    expect(tabs.nth(2)).to_have_text("Review")
    expect(panel.locator(".rv-counts")).to_have_text("0 of 3 accepted")
    expect(panel.locator(".rv-step")).to_have_count(3)
    if size is PHONE:
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the Review tab scrolls sideways on a phone"
    marker = page.evaluate("() => (window.__marker = Math.random())")

    page.locator(f"#review-accept-{key}-1").check()
    expect(panel.locator(".rv-counts")).to_have_text("1 of 3 accepted", timeout=8_000)
    step1 = page.locator(f"#review-step-{key}-1")
    expect(step1).to_have_class(re.compile(r"\bis-accepted\b"))
    expect(step1.locator(".rv-status")).to_contain_text("by owner")

    step2 = page.locator(f"#review-step-{key}-2")
    step2.locator(".rv-why > summary").click()
    expect(step2.locator(".rv-why-body em")).to_have_text("Sign out")
    step2.locator("textarea").fill("The menu has no Sign out on mobile")
    step2.get_by_role("button", name="Reject").click()
    expect(panel.locator(".rv-counts")).to_have_text("1 of 3 accepted · 1 rejected", timeout=8_000)
    step2 = page.locator(f"#review-step-{key}-2")
    expect(step2).to_have_class(re.compile(r"\bis-rejected\b"))
    expect(step2.locator("textarea")).to_have_value("")
    expect(step2.locator(".rv-why")).to_have_attribute("open", "")  # kept open
    assert page.evaluate("() => window.__marker") == marker  # no reload
    shot(page, f"review-tab-{name}")

    # Unchecking reopens the step.
    page.locator(f"#review-accept-{key}-1").uncheck()
    expect(panel.locator(".rv-counts")).to_have_text("0 of 3 accepted · 1 rejected", timeout=8_000)
    assert page.evaluate("() => window.__marker") == marker
    w.assert_clean()


def test_the_agents_change_appears_live_but_not_over_a_typed_comment(server, new_page, shot):
    slug, key = checked_task(server)
    w = new_page(**DESKTOP)
    page = w.page
    panel = open_review_tab(page, server, slug, key)
    marker = page.evaluate("() => (window.__marker = Math.random())")

    # The agent adds a step: the tab follows without a reload.
    agent(server, "review_steps_set", task=key, steps=[*STEPS, "Remember this device"])
    expect(panel.locator(".rv-step")).to_have_count(4, timeout=8_000)
    expect(page.locator(f"#review-panel-{key} .rv-counts")).to_have_text("0 of 4 accepted")

    # Text in a comment box holds the refresh back.
    box = page.locator(f"#review-comment-{key}-3")
    box.fill("Half-written thought")
    agent(server, "review_steps_set", task=key, steps=[*STEPS, "Remember this device", "Logs"])
    page.wait_for_timeout(2_500)
    expect(page.locator(f"#review-panel-{key} .rv-step")).to_have_count(4)
    expect(box).to_have_value("Half-written thought")
    shot(page, "review-tab-draft-kept-desktop")

    # Emptied, the next event refreshes it again.
    box.fill("")
    agent(server, "review_step_update", task=key, step=5, title="Server logs")
    steps = page.locator(f"#review-panel-{key} .rv-step")
    expect(steps).to_have_count(5, timeout=8_000)
    expect(page.locator(f"#review-step-{key}-5 .rv-title")).to_have_text("Server logs")
    assert page.evaluate("() => window.__marker") == marker
    w.assert_clean()


def test_the_card_badge_is_tinted_and_opens_the_review_tab(server, new_page, shot):
    slug, key = checked_task(server)
    w = new_page(**DESKTOP)
    page = w.page
    panel = open_review_tab(page, server, slug, key)
    page.locator(f"#review-comment-{key}-2").fill("Sign out is missing")
    page.locator(f"#review-step-{key}-2").get_by_role("button", name="Reject").click()
    expect(panel.locator(".rv-counts")).to_have_text("0 of 3 accepted · 1 rejected", timeout=8_000)

    page.goto(f"{server.base_url}/p/{slug}")
    wait_state(page, "live")
    badge = page.locator(f"#card-{key} .review-badge")
    expect(badge).to_have_text("Review 0/3")
    expect(badge).to_have_class(re.compile(r"\breview-rejected\b"))
    red = badge.evaluate("el => getComputedStyle(el).color")
    assert red == "rgb(192, 57, 43)"  # var(--bad), light theme
    shot(page, "review-card-badge-desktop")
    badge.click()
    expect(page.locator(f"#review-panel-{key}")).to_be_visible()
    expect(page.locator("#td-tab-review")).to_have_attribute("aria-selected", "true")
    w.assert_clean()


def _mark(page: Any, key: str) -> None:
    """Mark the shown panel, so that _swapped can tell its replacement."""
    page.evaluate("key => { document.getElementById('review-panel-' + key).dataset.old = 1; }", key)


def _swapped(page: Any, key: str) -> None:
    """Return once a new panel (without the mark) replaced the marked one."""
    script = "key => !document.getElementById('review-panel-' + key).dataset.old"
    page.wait_for_function(script, arg=key, timeout=8_000)


def test_a_decision_keeps_the_text_typed_into_another_steps_comment_box(server, new_page, shot):
    slug, key = checked_task(server)
    w = new_page(**DESKTOP)
    page = w.page
    panel = open_review_tab(page, server, slug, key)
    box1 = page.locator(f"#review-comment-{key}-1")
    box2 = page.locator(f"#review-comment-{key}-2")

    # Step 1 accepted with its checkbox while step 2's box holds a half-written comment.
    box2.fill("Sign out is hidden on mobile")
    _mark(page, key)
    page.locator(f"#review-accept-{key}-1").check()
    _swapped(page, key)
    expect(panel.locator(".rv-counts")).to_have_text("1 of 3 accepted")
    expect(box2).to_have_value("Sign out is hidden on mobile")
    expect(box1).to_have_value("")

    # A comment sent on step 1: its own box empties, step 2's text stays.
    box1.fill("Works with the app's code")
    _mark(page, key)
    page.locator(f"#review-step-{key}-1").get_by_role("button", name="Comment").click()
    _swapped(page, key)
    expect(box1).to_have_value("")
    expect(box2).to_have_value("Sign out is hidden on mobile")

    # Decided while the focus stays in step 2's box (a script's click): focus and caret kept.
    box2.focus()
    box2.evaluate("el => el.setSelectionRange(4, 7)")
    _mark(page, key)
    page.evaluate("id => document.getElementById(id).click()", f"review-accept-{key}-3")
    _swapped(page, key)
    expect(panel.locator(".rv-counts")).to_have_text("2 of 3 accepted")
    expect(box2).to_have_value("Sign out is hidden on mobile")
    expect(box2).to_be_focused()
    assert box2.evaluate("el => [el.selectionStart, el.selectionEnd]") == [4, 7]

    # The owner's own Reject on step 2 then sends it and empties the box.
    page.locator(f"#review-step-{key}-2").get_by_role("button", name="Reject").click()
    expect(panel.locator(".rv-counts")).to_have_text("2 of 3 accepted · 1 rejected", timeout=8_000)
    expect(box2).to_have_value("")
    shot(page, "review-tab-other-draft-kept-desktop")
    w.assert_clean()
