"""The page frame in headless Chromium (§2 header bar, Navigation, Live updates; §9.7 CSP).

Every page here runs under the real server's CSP; each test asserts that the page logged
no CSP violation and no console error. Screenshots land in tests/artifacts/browser/.
"""

from __future__ import annotations

import re

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.helpers import focused, in_sidebar, sign_in, wait_state
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}


def test_signing_in_through_the_form_lands_on_a_live_board(server, new_page, shot):
    w = new_page(**DESKTOP)
    page = w.page
    page.goto(server.base_url + "/")
    assert re.search(r"/login\?next=/$", page.url)
    assert page.locator("#token").evaluate("el => el === document.activeElement")
    shot(page, "login")
    w.remember_violations()

    page.locator("#token").press_sequentially(server.token)
    page.get_by_role("button", name="Sign in").click()

    page.wait_for_url(server.base_url + "/")
    assert "token" not in page.url
    assert page.get_by_role("heading", level=1).inner_text() == "All boards"
    wait_state(page, "live")
    assert page.locator("#live-status .label").inner_text() == "live"
    shot(page, "board-desktop")
    w.assert_clean()


def test_a_wrong_token_shows_why_and_keeps_the_form(server, new_page):
    w = new_page(**DESKTOP)
    page = w.page
    page.goto(server.base_url + "/login")
    page.locator("#token").fill("not-the-token")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#login-error")
    assert "not this server's token" in page.locator("#login-error").inner_text()
    assert page.locator("#token").get_attribute("aria-invalid") == "true"
    # The refused sign-in answers 403; that one network error is expected, nothing else.
    assert w.csp_violations() == []
    assert [e for e in w.errors() if "403" not in e] == []


def test_all_boards_is_the_current_item_and_the_breadcrumb(server, new_page):
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, "/")
    current = page.locator('#sidebar [aria-current="page"]')
    assert current.count() == 1
    assert current.inner_text().strip() == "All boards"
    assert current.get_attribute("href") == "/"
    assert page.locator('.crumbs [aria-current="page"]').inner_text() == "All boards"
    assert page.title() == "All boards · relaybay"
    w.assert_clean()


def test_the_empty_board_says_how_to_connect_an_agent(server, new_page):
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, "/")
    empty = page.locator(".empty-state")
    expect(empty.get_by_role("heading", name="No projects yet")).to_be_visible()
    assert "relaybay token" in empty.inner_text()
    assert page.locator(".empty-state .steps li").count() == 3
    expect(page.locator("#sidebar .nav-empty")).to_be_visible()


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_at_phone_width_the_sidebar_is_a_drawer(server, new_page, shot, motion):
    w = new_page(**PHONE, reduced_motion=motion)
    page = w.page
    sign_in(page, server, "/")
    wait_state(page, "live")
    toggle = page.locator("#nav-toggle")
    sidebar = page.locator("#sidebar")
    expect(toggle).to_be_visible()
    expect(sidebar).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")

    # The header button opens it and moves the focus to the current item.
    toggle.click()
    expect(sidebar).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    assert in_sidebar(page)
    expect(sidebar).to_have_css("transform", "none")  # slid in (after any transition)
    box = sidebar.bounding_box()
    assert box is not None
    assert box["x"] == 0
    assert box["width"] < PHONE["width"]
    if motion == "reduce":
        shot(page, "board-phone-drawer-open")

    # Esc closes it and gives the focus back to the button.
    page.keyboard.press("Escape")
    expect(sidebar).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    assert focused(page) == "#nav-toggle"

    # A click outside (on the scrim over the page) closes it.
    toggle.click()
    expect(sidebar).to_be_visible()
    page.mouse.click(PHONE["width"] - 20, PHONE["height"] // 2)
    expect(sidebar).to_be_hidden()
    assert focused(page) == "#nav-toggle"

    # Following a link closes it (the navigation is held back to watch the drawer itself).
    toggle.click()
    page.evaluate(
        """() => document.addEventListener("click", (e) => {
               if (e.target.closest("#sidebar a")) e.preventDefault(); })"""
    )
    sidebar.get_by_role("link", name="All boards").click()
    expect(sidebar).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    w.assert_clean()


def test_the_drawer_works_from_the_keyboard(server, new_page):
    w = new_page(**PHONE)
    page = w.page
    sign_in(page, server, "/")
    page.keyboard.press("Tab")
    assert focused(page).startswith("a:Skip to content")
    page.keyboard.press("Tab")
    assert focused(page) == "#nav-toggle"
    outline = page.locator("#nav-toggle").evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline != "none", "the focused button shows a focus ring"

    page.keyboard.press("Enter")
    expect(page.locator("#sidebar")).to_be_visible()
    assert focused(page) == "a:All boards"
    # Tabbing out of the drawer (here backwards onto the brand link) closes it; no trap.
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#sidebar")).to_be_hidden()
    assert not in_sidebar(page)

    # Closed, the drawer's links are out of the tab order.
    page.locator("#nav-toggle").focus()
    page.keyboard.press("Tab")
    assert not in_sidebar(page)
    w.assert_clean()


def test_at_desktop_width_the_button_hides_the_sidebar_and_a_reload_remembers(server, new_page):
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, "/")
    toggle = page.locator("#nav-toggle")
    sidebar = page.locator("#sidebar")
    expect(sidebar).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    main_left = page.locator("main").bounding_box()["x"]
    assert main_left > 200

    toggle.click()
    expect(sidebar).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    assert page.locator("main").bounding_box()["x"] == 0
    assert page.evaluate("localStorage.getItem('relaybay.sidebar')") == "hidden"

    page.reload()
    expect(sidebar).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")

    toggle.click()
    expect(sidebar).to_be_visible()
    page.reload()
    expect(sidebar).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    w.assert_clean()


def test_the_phone_drawer_ignores_the_desktop_choice(server, new_page):
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, "/")
    page.locator("#nav-toggle").click()  # hidden on wide screens
    page.set_viewport_size(PHONE)
    expect(page.locator("#sidebar")).to_be_hidden()
    page.locator("#nav-toggle").click()
    expect(page.locator("#sidebar")).to_be_visible()
    page.set_viewport_size(DESKTOP)
    # Back on a wide screen: the drawer is gone and the remembered choice applies again.
    expect(page.locator("#sidebar")).to_be_hidden()
    expect(page.locator(".scrim")).to_be_hidden()
    w.assert_clean()


def test_the_indicator_goes_offline_when_the_server_stops_and_live_after_a_restart(
    fresh_server, new_page
):
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, fresh_server, "/")
    wait_state(page, "live")

    fresh_server.stop()
    wait_state(page, "offline")
    assert page.locator("#live-status .label").inner_text() == "offline"

    again = RelaybayServer(home=fresh_server.home, port=fresh_server.port).start()
    try:
        wait_state(page, "live", timeout=30_000)
    finally:
        again.stop()
    # While the server was down the browser logged failed /events requests; nothing else.
    assert w.csp_violations() == []
    assert [e for e in w.errors() if "/events" not in e and "ERR_" not in e] == []


def test_the_dark_theme_follows_the_system_setting(server, new_page, shot):
    w = new_page(**DESKTOP, color_scheme="dark")
    page = w.page
    page.goto(server.base_url + "/login")
    shot(page, "login-dark")
    sign_in(page, server, "/")
    wait_state(page, "live")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    red, green, blue = (int(n) for n in re.findall(r"\d+", background)[:3])
    assert max(red, green, blue) < 60, background
    shot(page, "board-dark")

    phone = new_page(**PHONE, color_scheme="dark")
    sign_in(phone.page, server, "/")
    phone.page.locator("#nav-toggle").click()
    shot(phone.page, "board-phone-dark-drawer-open")
    w.assert_clean()
    phone.assert_clean()


def test_the_csp_watcher_sees_a_violation(server, new_page):
    """Guards the guard: an inline script on a relaybay page is reported and blocked."""
    w = new_page(**DESKTOP)
    page = w.page
    page.goto(server.base_url + "/login")
    page.evaluate(
        """() => { const s = document.createElement("script");
                  s.textContent = "window.__ran = true"; document.head.appendChild(s); }"""
    )
    page.wait_for_function("window.__cspViolations.length > 0")
    assert page.evaluate("window.__ran") is None
    assert any("script-src" in str(v) for v in w.csp_violations())


def test_the_console_watcher_lets_an_aborted_request_pass_but_not_a_failed_one(server, new_page):
    """Guards the guard: a request htmx aborts (hx-sync replace, navigation) is not an error
    of the page, one that fails is."""
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, "/")
    page.evaluate(
        """() => { const b = document.createElement("div");
                  b.id = "probe"; document.body.appendChild(b);
                  htmx.ajax("GET", "/healthz", {source: b, target: b}).catch(() => {});
                  htmx.trigger(b, "htmx:abort"); }"""
    )
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    assert any("htmx:sendAbort" in text for _, text in w.console), w.console
    assert w.errors() == []
    page.evaluate(  # a 404: htmx logs the failed response
        """() => { htmx.ajax("GET", "/no-such-page", {source: "#probe", target: "#probe"})
                      .catch(() => {}); }"""
    )
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    assert any("Response Status Error Code 404" in e for e in w.errors()), w.console
