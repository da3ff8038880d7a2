"""Screenshots on the Review tab in headless Chromium against a real server (§2 Review
tab, Viewer): an agent attaches them through the real MCP client (attach_file with
content_base64); the owner sees the thumbnails, pages through them in the viewer with the
keys and leaves it with Esc back to the dialog, removes one with its confirmed Remove and
pastes an image into a step (a synthetic ClipboardEvent holding a PNG File). Each test
asserts that the page logged no CSP violation and no console error. Screenshots:
tests/artifacts/browser/.
"""

from __future__ import annotations

import base64
import itertools
import re
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.helpers import sign_in, wait_state
from tests.reviews import images
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
_slugs = itertools.count(1)

PASTE = """([selector, b64]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const file = new File([bytes], "clip.png", { type: "image/png" });
  const data = new DataTransfer();
  data.items.add(file);
  const target = document.querySelector(selector);
  target.focus();
  target.dispatchEvent(new ClipboardEvent("paste", {
    clipboardData: data, bubbles: true, cancelable: true,
  }));
}"""

SWIPE = """(dx) => {
  const stage = document.querySelector(".viewer-stage");
  const box = stage.getBoundingClientRect();
  const x = box.left + box.width / 2;
  const y = box.top + box.height / 2;
  const base = { pointerType: "touch", isPrimary: true, bubbles: true, clientY: y };
  stage.dispatchEvent(new PointerEvent("pointerdown", { ...base, clientX: x }));
  stage.dispatchEvent(new PointerEvent("pointerup", { ...base, clientX: x + dx }));
}"""


def agent(server: RelaybayServer, tool: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, tool, {"session": "agent-shots", **args})


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def task_with_shots(server: RelaybayServer) -> tuple[str, str]:
    slug = f"shots-shop-{next(_slugs)}"
    agent(server, "project_upsert", slug=slug, name="Shots Shop")
    text = agent(server, "task_create", project=slug, title="Two-factor login")
    key = re.match(r"Created (\S+) ", text).group(1)
    agent(server, "review_steps_set", task=key, steps=["Login with 2FA", "Logout"])
    shots = [
        (1, "The **code** prompt", 40, 30),
        (1, "Wrong code", 30, 40),
        (2, "Signed out", 50, 20),
        (None, "The whole page", 20, 20),
    ]
    for n, (step, caption, width, height) in enumerate(shots):
        args: dict[str, Any] = {"caption": caption}
        if step is not None:
            args["step"] = step
        data = images.png(width=width, height=height, shade=60 * n + 10)
        agent(server, "attach_file", task=key, content_base64=b64(data), **args)
    return slug, key


def open_review_tab(page: Any, server: RelaybayServer, slug: str, key: str) -> Any:
    sign_in(page, server, f"/p/{slug}")
    page.goto(f"{server.base_url}/p/{slug}?task={key}&tab=review")
    wait_state(page, "live")
    panel = page.locator(f"#review-panel-{key}")
    expect(panel).to_be_visible()
    return panel


def loaded(page: Any, selector: str) -> bool:
    return page.evaluate(
        "(s) => [...document.querySelectorAll(s)].every((i) => i.complete && i.naturalWidth > 0)",
        selector,
    )


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_thumbnails_and_the_viewer_paged_with_the_keys(server, new_page, shot, size):
    slug, key = task_with_shots(server)
    name = "desktop" if size is DESKTOP else "phone"
    w = new_page(**size)
    page = w.page
    panel = open_review_tab(page, server, slug, key)

    step1 = page.locator(f"#review-step-{key}-1")
    expect(step1.locator(".rv-thumb img")).to_have_count(2)
    expect(page.locator(f"#review-step-{key}-2 .rv-thumb img")).to_have_count(1)
    expect(panel.locator(".rv-other-title")).to_have_text("Other screenshots")
    expect(panel.locator(".rv-other .rv-thumb img")).to_have_count(1)
    expect(step1.locator(".rv-caption strong").first).to_have_text("code")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.rv-thumb img')]"
        ".every((i) => i.complete && i.naturalWidth > 0)"
    )
    if size is PHONE:
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the screenshots scroll sideways on a phone"
    shot(page, f"screenshots-thumbnails-{name}")

    # The second thumbnail of step 1 opens the viewer on "2 / 4".
    second = step1.locator(".rv-thumb").nth(1)
    second.click()
    viewer = page.locator("dialog.viewer")
    expect(viewer).to_be_visible()
    counter = viewer.locator(".viewer-counter")
    expect(counter).to_have_text("2 / 4")
    expect(viewer.locator(".viewer-caption")).to_have_text("Wrong code")
    assert page.evaluate("() => document.body.dataset.viewerOpen") == "1"
    assert page.evaluate("() => !!document.activeElement.closest('dialog.viewer')")
    page.wait_for_function(
        "() => { const i = document.querySelector('.viewer-img'); "
        "return i.complete && i.naturalWidth > 0; }"
    )
    box = viewer.locator(".viewer-img").bounding_box()
    assert box["width"] <= size["width"]
    assert box["height"] <= size["height"]
    # Fitted: the image box fills the screen's width and most of its height (contain).
    assert box["width"] >= size["width"] * 0.9
    assert box["height"] >= size["height"] * 0.5
    shot(page, f"screenshots-viewer-{name}")

    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text("3 / 4")
    expect(viewer.locator(".viewer-caption")).to_have_text("Signed out")
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text("4 / 4")
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text("1 / 4")
    page.keyboard.press("ArrowLeft")
    expect(counter).to_have_text("4 / 4")
    viewer.get_by_role("button", name="Previous screenshot").click()
    expect(counter).to_have_text("3 / 4")

    # A swipe to the left shows the next one, to the right the one before (pointer events).
    page.evaluate(SWIPE, -150)
    expect(counter).to_have_text("4 / 4")
    page.evaluate(SWIPE, 150)
    expect(counter).to_have_text("3 / 4")
    page.evaluate(SWIPE, 20)  # too short: nothing
    expect(counter).to_have_text("3 / 4")

    # Esc leaves the viewer; the dialog stays open and the focus is back on the thumbnail.
    page.keyboard.press("Escape")
    expect(viewer).to_have_count(0)
    expect(page.locator("dialog[data-task-dialog]")).to_be_visible()
    assert page.evaluate("() => document.body.dataset.viewerOpen") is None
    assert page.evaluate("() => document.activeElement.getAttribute('data-viewer-shot')") == "2"

    # Close does the same.
    panel.locator(".rv-other .rv-thumb").click()
    expect(counter).to_have_text("4 / 4")
    viewer.get_by_role("button", name="Close").click()
    expect(viewer).to_have_count(0)
    expect(page.locator("dialog[data-task-dialog]")).to_be_visible()
    w.assert_clean()


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_paste_an_image_into_a_step_and_remove_one(server, new_page, shot, size):
    slug, key = task_with_shots(server)
    name = "desktop" if size is DESKTOP else "phone"
    w = new_page(**size)
    page = w.page
    panel = open_review_tab(page, server, slug, key)
    marker = page.evaluate("() => (window.__marker = Math.random())")

    step2 = page.locator(f"#review-step-{key}-2")
    expect(step2.locator(".rv-thumb")).to_have_count(1)
    page.evaluate(PASTE, [f"#review-comment-{key}-2", b64(images.png(24, 16, shade=222))])
    expect(step2.locator(".rv-thumb")).to_have_count(2, timeout=8_000)
    expect(panel.locator("[data-paste-status]")).to_have_text("Screenshot added to step 2.")
    page.wait_for_function(
        f"() => [...document.querySelectorAll('#review-step-{key}-2 .rv-thumb img')]"
        ".every((i) => i.complete && i.naturalWidth > 0)"
    )
    shot(page, f"screenshots-pasted-{name}")

    # A non-image refused by its content keeps the panel and says why.
    page.evaluate(PASTE, [f"#review-comment-{key}-1", b64(images.SVG)])
    status = panel.locator("[data-paste-status]")
    expect(status).to_contain_text("Not attached:", timeout=8_000)
    expect(page.locator(f"#review-step-{key}-1 .rv-thumb")).to_have_count(2)

    # Remove asks once more, then the thumbnail goes.
    other = panel.locator(".rv-other .rv-shot")
    other.locator(".rv-remove > summary").click()
    expect(other.locator(".rv-remove-ask")).to_have_text("Remove this screenshot?")
    other.get_by_role("button", name="Yes, remove").click()
    expect(panel.locator(".rv-other")).to_have_count(0, timeout=8_000)
    assert page.evaluate("() => window.__marker") == marker  # no reload
    # The refused paste logged its 400 in the console: that one is expected.
    unexpected = [e for e in w.errors() if "400" not in e]
    assert unexpected == []
    assert w.csp_violations() == []
