"""Sessions in headless Chromium against a real server (§2 Sessions, Task dialog / page).

Data comes from agents through the real MCP client (call_tool). Each test asserts that the
page logged no CSP violation and no console error. Screenshots: tests/artifacts/browser/.
"""

from __future__ import annotations

import itertools
import json
import urllib.error
import urllib.request
import uuid

import pytest

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None
    PlaywrightTimeout = TimeoutError

from tests.browser.helpers import sign_in, wait_state
from tests.sessions.hook_payloads import payload
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
DESK_A = "local_1b4e28ba-2fa1-11d2-883f-0016d3cca427"
DESK_B = "local_7d444840-9dc0-11d1-b245-5ffdce74fad2"
_slugs = itertools.count(1)


def tool(server: RelaybayServer, tool_name: str, **args: object) -> str:
    return call_tool(server.base_url, server.token, tool_name, args)


def new_project(server: RelaybayServer, name: str) -> str:
    slug = f"{name}-{next(_slugs)}"
    tool(server, "project_upsert", slug=slug, name=name.replace("-", " ").title())
    return slug


def new_task(server: RelaybayServer, slug: str, title: str) -> str:
    answer = tool(server, "task_create", project=slug, title=title)
    return next(word.strip(".:*`") for word in answer.split() if word.startswith(slug + "-"))


def test_the_sessions_page_lists_a_session_bound_over_mcp_and_follows_live(server, new_page, shot):
    slug = new_project(server, "acme-shop")
    key = new_task(server, slug, "Fix the login form")
    tool(server, "task_bind_session", task=key, session=DESK_A, session_title="Fix login flow")
    other = new_task(server, slug, "Checkout totals")
    tool(server, "task_bind_session", task=other, session="ana-reviewer")

    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, f"/p/{slug}/sessions")
    wait_state(page, "live")

    rows = page.locator(".ss-row")
    expect(rows).to_have_count(2)
    first = rows.filter(has_text="Fix login flow")
    expect(first.locator(".ss-kind")).to_have_text("desktop")
    expect(first.locator(".ss-status-word")).to_have_text("no hook status")
    expect(first.get_by_role("link", name="Open in desktop")).to_have_attribute(
        "href", f"claude://resume?session={DESK_A}"
    )
    expect(first.get_by_role("link", name=key)).to_have_attribute("href", f"/p/{slug}?task={key}")
    current = page.locator('#sidebar [aria-current="page"]')
    expect(current).to_have_text("Sessions")
    expect(current).to_have_attribute("href", f"/p/{slug}/sessions")
    expect(page.locator('.crumbs [aria-current="page"]')).to_have_text("Sessions")

    # An agent binds one more session: the list refetches without a reload.
    marker = page.evaluate("() => (window.__marker = Math.random())")
    third = new_task(server, slug, "Search ranking")
    tool(server, "task_bind_session", task=third, session=DESK_B, session_title="Tune search")
    expect(rows).to_have_count(3, timeout=8_000)
    expect(rows.first).to_contain_text("Tune search")
    assert page.evaluate("() => window.__marker") == marker
    shot(page, "sessions-project-desktop")

    # The board's card of a desktop-bound task: the icon-only "Open in desktop" link.
    page.goto(f"{server.base_url}/p/{slug}")
    link = page.locator(f"#card-{key} .card-desktop")
    expect(link).to_have_attribute("href", f"claude://resume?session={DESK_A}")
    expect(page.locator(f"#card-{other} .card-desktop")).to_have_count(0)

    page.goto(server.base_url + "/sessions")
    expect(page.get_by_role("heading", level=1)).to_have_text("All sessions")
    expect(page.locator(".ss-row")).to_have_count(3)
    w.assert_clean()

    phone = new_page(**PHONE)
    sign_in(phone.page, server, f"/p/{slug}/sessions")
    expect(phone.page.locator(".ss-row")).to_have_count(3)
    width = phone.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], "the list scrolls sideways on a phone"
    shot(phone.page, "sessions-project-phone")
    phone.assert_clean()

    dark = new_page(**DESKTOP, color_scheme="dark")
    sign_in(dark.page, server, f"/p/{slug}/sessions")
    shot(dark.page, "sessions-project-desktop-dark")
    dark.assert_clean()


def test_an_empty_project_says_how_sessions_appear(server, new_page, shot):
    slug = new_project(server, "empty-proj")
    for size, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        w = new_page(**size)
        sign_in(w.page, server, f"/p/{slug}/sessions")
        expect(
            w.page.get_by_role("heading", name="No sessions in this project yet")
        ).to_be_visible()
        shot(w.page, f"sessions-empty-{name}")
        w.assert_clean()


def _open_panel(page, server: RelaybayServer, slug: str, key: str) -> str:
    """Open the task where the Session panel lives: the dialog, else the task page."""
    panel = page.locator(f"#session-panel-{key}")
    page.goto(f"{server.base_url}/p/{slug}")
    card = page.locator(f"#link-{key}")
    if card.count():
        card.click()  # htmx loads the dialog over the live board
        try:
            panel.wait_for(state="visible", timeout=5_000)
            return "dialog"
        except PlaywrightTimeout:
            pass
    page.goto(f"{server.base_url}/p/{slug}?task={key}")
    page.wait_for_load_state("load")
    if panel.count() and panel.is_visible():
        return "dialog"
    page.goto(f"{server.base_url}/t/{key}")
    if panel.count() and panel.is_visible():
        return "page"
    pytest.skip("neither the task dialog nor the task page renders the registered panels yet")
    return ""


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_binding_and_unbinding_from_the_session_panel(server, new_page, shot, size):
    slug = new_project(server, "panel-proj")
    key = new_task(server, slug, "Wire the payment webhook")
    helper = new_task(server, slug, "Another task")
    tool(server, "task_bind_session", task=helper, session=DESK_A, session_title="Payments")
    tool(server, "task_bind_session", task=helper, session="ana-reviewer")  # becomes an alias
    elsewhere = new_task(server, new_project(server, "elsewhere"), "Elsewhere")
    tool(server, "task_bind_session", task=elsewhere, session="bob-elsewhere")

    w = new_page(**size)
    page = w.page
    sign_in(page, server, "/")
    where = _open_panel(page, server, slug, key)
    wait_state(page, "live")
    panel = page.locator(f"#session-panel-{key}")
    expect(panel).to_contain_text("No session is bound")

    panel.get_by_text("Bind a session").click()
    options = panel.locator(".sp-option")
    expect(options.first).to_contain_text("Payments")  # the project's session first
    expect(panel.locator(".sp-group").first).to_have_text("In this project")
    shot(page, f"session-panel-picker-{where}-{'phone' if size == PHONE else 'desktop'}")
    options.filter(has_text="Payments").click()

    expect(panel.locator(".sp-name")).to_have_text("Payments")
    expect(panel.locator(".sp-status-word")).to_have_text("no hook status")
    expect(panel.get_by_role("link", name="Open in desktop")).to_have_attribute(
        "href", f"claude://resume?session={DESK_A}"
    )
    answer = tool(server, "task_get", task=key)
    assert DESK_A in answer
    bound = [
        line
        for line in tool(server, "events_since", project=slug).splitlines()
        if "task.session_bound" in line and key in line
    ]
    assert bound, "no task.session_bound event"
    assert bound[-1].endswith("(board)")
    shot(page, f"session-panel-bound-{where}-{'phone' if size == PHONE else 'desktop'}")

    # Unbind asks first: the confirm button only appears after "Unbind…".
    confirm = panel.get_by_role("button", name="Unbind session")
    expect(confirm).to_be_hidden()
    panel.get_by_text("Unbind…").click()
    panel.get_by_label("Reason").fill("picked the wrong one")
    shot(page, f"session-panel-unbind-{where}-{'phone' if size == PHONE else 'desktop'}")
    confirm.click()
    expect(panel).to_contain_text("No session is bound")
    panel.get_by_text("Binding history").click()
    expect(panel.locator(".sp-history-row")).to_contain_text("picked the wrong one")

    # An agent binds over MCP: the panel follows without a reload.
    tool(server, "task_bind_session", task=key, session="bob-elsewhere")
    expect(panel.locator(".sp-name")).to_have_text("bob-elsewhere", timeout=8_000)
    w.assert_clean()


# A slow network inside the page: the answers of requests whose method and URL contain a
# rule's text reach htmx `ms` later (the server has answered already); until then the request
# counts as loading, and abort() cancels it as in flight. window.__slow.pending: how many
# such answers are still on their way.
SLOW_ANSWERS = """
(rules) => {
  const P = XMLHttpRequest.prototype;
  const open = P.open, send = P.send, abort = P.abort;
  const state = Object.getOwnPropertyDescriptor(P, "readyState").get;
  const slow = window.__slow = { pending: 0 };
  Object.defineProperty(P, "readyState", { configurable: true, get: function () {
    return this.__late ? 3 : state.call(this);
  } });
  P.open = function (method, url) {
    this.__what = method + " " + url;
    return open.apply(this, arguments);
  };
  P.send = function () {
    const xhr = this;
    const rule = Object.keys(rules).find((part) => xhr.__what.indexOf(part) >= 0);
    if (rule) {
      const onload = xhr.onload;
      slow.pending++;
      xhr.onload = function (event) {
        xhr.__late = setTimeout(function () {
          xhr.__late = null;
          slow.pending--;
          onload.call(xhr, event);
        }, rules[rule]);
      };
    }
    return send.apply(this, arguments);
  };
  P.abort = function () {
    if (!this.__late) { return abort.apply(this, arguments); }
    clearTimeout(this.__late);
    this.__late = null;
    slow.pending--;
    if (this.onabort) { this.onabort(); }
  };
}
"""


def test_a_slow_live_refresh_of_the_session_panel_never_shows_an_older_state(server, new_page):
    """The panel's live refetch may answer late: it keeps text typed meanwhile, loses to a
    write sent after it, and a refresh asked for while it runs still happens."""
    slug = new_project(server, "slow-proj")
    key = new_task(server, slug, "Slow answers")
    helper = new_task(server, slug, "Helper")
    tool(server, "task_bind_session", task=helper, session=DESK_A, session_title="Payments")

    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, "/")
    _open_panel(page, server, slug, key)
    wait_state(page, "live")
    panel = page.locator(f"#session-panel-{key}")
    panel.get_by_text("Bind a session").click()
    panel.locator(".sp-option").filter(has_text="Payments").click()
    expect(panel.locator(".sp-name")).to_have_text("Payments")
    page.evaluate(SLOW_ANSWERS, {"/panel/session": 1500, "/session/unbind": 400})

    def refetch_started_by_an_earlier_event() -> None:
        page.wait_for_function("() => window.__slow.pending === 0")
        page.evaluate(
            "(key) => htmx.trigger(document.querySelector("
            "  `#session-panel-${key}`).closest('[data-live-section]'), 'refresh')",
            key,
        )

    # Text typed while the refetch is on its way stays.
    refetch_started_by_an_earlier_event()
    panel.get_by_text("Unbind…").click()
    reason = panel.get_by_label("Reason")
    reason.fill("picked the wrong one")
    page.wait_for_function("() => window.__slow.pending === 0")
    expect(reason).to_have_value("picked the wrong one")

    # A write sent after it wins, also when the refetch answers after the write.
    refetch_started_by_an_earlier_event()
    panel.get_by_role("button", name="Unbind session").click()
    expect(panel).to_contain_text("No session is bound")
    page.wait_for_function("() => window.__slow.pending === 0")  # the late answer is in
    expect(panel).to_contain_text("No session is bound")
    panel.get_by_text("Binding history").click()
    expect(panel.locator(".sp-history-row")).to_contain_text("picked the wrong one")

    # An agent binds while a refetch runs: the panel still follows.
    refetch_started_by_an_earlier_event()
    tool(server, "task_bind_session", task=key, session="bob-elsewhere")
    expect(panel.locator(".sp-name")).to_have_text("bob-elsewhere", timeout=8_000)
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
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_hook_session_appears_live_with_its_status_and_folder(server, new_page, shot):
    slug = f"hooked-{next(_slugs)}"
    folder = f"/home/dev/{slug}"
    tool(server, "project_upsert", slug=slug, name="Hooked Shop", repo_path=folder)
    key = new_task(server, slug, "Ship the search page")
    tool(server, "task_bind_session", task=key, session=DESK_A, session_title="Search page")

    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, f"/p/{slug}/sessions")
    wait_state(page, "live")
    expect(page.locator(".ss-row")).to_have_count(1)

    agent_id = str(uuid.uuid4())
    status = _hook(server, "UserPromptSubmit.print", session_id=agent_id, cwd=folder + "/web")
    if status == 404:
        pytest.skip("the hooks endpoint is not there yet")
    assert status in (200, 204)
    _hook(server, "PreToolUse.Bash", session_id=agent_id, cwd=folder + "/web")

    # The hooks guess the folder's one desktop session (§4 step 3): its row shows the status.
    row = page.locator(".ss-row").filter(has_text="Search page")
    expect(row.locator(".ss-status-word")).to_have_text("working", timeout=8_000)
    expect(row.locator(".ss-cwd")).to_contain_text(folder + "/web")
    shot(page, "sessions-hooks-desktop")

    phone = new_page(**PHONE)
    sign_in(phone.page, server, f"/p/{slug}/sessions")
    expect(phone.page.locator(".ss-status-word").first).to_have_text("working")
    shot(phone.page, "sessions-hooks-phone")
    w.assert_clean()
    phone.assert_clean()
