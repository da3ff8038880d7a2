"""The project board in headless Chromium against a real server (§2 Paged board, Cards,
Done column and archive, Live updates). Agents write through the real MCP client.

Every test checks that the board never reloads: a marker set on `window` at the start must
still be there at the end. Screenshots land in tests/artifacts/browser/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tasks.selectors.board import COLUMN_LIMIT
from tests.browser.helpers import sign_in, wait_state
from tests.support.mcp_client import call_tool, mcp_client, run_async, text_of
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

DESKTOP_ID = "local_0b9f6c1e-7d2a-4a53-9a31-2f4be0d7c001"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}


def agent(server: RelaybayServer, tool: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, tool, {"session": "agent-7", **args})


def create(server: RelaybayServer, slug: str, title: str, **fields: Any) -> str:
    text = agent(server, "task_create", project=slug, title=title, **fields)
    return re.match(r"Created (\S+) ", text).group(1)


def project(server: RelaybayServer, slug: str, name: str) -> None:
    agent(server, "project_upsert", slug=slug, name=name)


def burst(server: RelaybayServer, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Many tool calls back to back on one client connection, as a busy agent makes them."""

    async def main() -> list[str]:
        async with mcp_client(server.base_url, server.token) as client:
            answers = []
            for name, args in calls:
                result = await client.call_tool(name, {"session": "agent-7", **args})
                assert not result.is_error, text_of(result)
                answers.append(text_of(result))
            return answers

    return run_async(main())


def has_tool(server: RelaybayServer, name: str) -> bool:
    async def main() -> bool:
        async with mcp_client(server.base_url, server.token) as client:
            return any(t.name == name for t in (await client.list_tools()).tools)

    return run_async(main())


def mark(page: Any) -> None:
    page.evaluate("window.__boardMarker = 'still here'")


def not_reloaded(page: Any) -> bool:
    return page.evaluate("window.__boardMarker") == "still here"


def count(page: Any, stage: str) -> Any:
    return page.locator(f"#col-{stage} .column-count")


def open_board(w: Any, server: RelaybayServer, path: str) -> Any:
    page = w.page
    sign_in(page, server, path)
    wait_state(page, "live")
    mark(page)
    return page


# --- live updates --------------------------------------------------------------------------


def test_an_agents_writes_appear_on_the_open_board_without_a_reload(server, new_page):
    project(server, "live-shop", "Live Shop")
    create(server, "live-shop", "Already here", stage="dev")
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/live-shop")
    expect(count(page, "plan")).to_have_text("0")
    expect(count(page, "dev")).to_have_text("1")

    key = create(server, "live-shop", "Fix login", next_step="read the auth code")
    card = page.locator(f"#card-{key}")
    expect(page.locator(f"#col-plan #card-{key}")).to_be_visible()
    expect(count(page, "plan")).to_have_text("1")
    expect(page.locator("#tab-plan .tab-count")).to_have_text("1")

    # A move: the card leaves plan and appears in dev, both counts follow.
    agent(server, "task_set_stage", task=key, stage="dev", waiting_on="agent")
    expect(page.locator(f"#col-dev #card-{key}")).to_be_visible()
    expect(page.locator(f"#col-plan #card-{key}")).to_have_count(0)
    expect(count(page, "plan")).to_have_text("0")
    expect(count(page, "dev")).to_have_text("2")
    # The next step was written before the move: now stale.
    expect(card.locator(".card-next.is-stale .stale-mark")).to_have_text("stale")

    # Any other write refetches just that card.
    agent(server, "task_update", task=key, title="Fix login with 2FA", branch="fix/2fa")
    expect(card.locator(".card-title")).to_have_text("Fix login with 2FA")
    expect(card.locator(".card-branch")).to_contain_text("fix/2fa")

    if has_tool(server, "task_bind_session"):
        agent(server, "task_bind_session", task=key, session=DESKTOP_ID, session_title="Fix 2FA")
        expect(card.locator(".card-desktop")).to_have_attribute(
            "aria-label", re.compile(r"^Open in desktop")
        )

    # Moving to done takes it off page 1; it is on page 2.
    agent(server, "task_set_stage", task=key, stage="done")
    expect(page.locator(f"#card-{key}")).to_have_count(0)
    expect(count(page, "dev")).to_have_text("1")
    expect(page.locator("#tab-done .tab-count")).to_have_text("1")
    page.keyboard.press("ArrowRight")
    expect(page.locator(f"#col-done #card-{key}")).to_be_visible()
    expect(card.locator(".card-next")).to_have_count(0)  # done cards hide the next step
    assert not_reloaded(page)
    w.assert_clean()


def test_an_event_arriving_while_the_cards_refetch_runs_still_shows(server, new_page):
    """htmx queued a card's second refetch on the card itself, and dropped it when the first
    answer replaced the card: the card kept the state that first answer had read. The first
    refetch's answer is held here until the second event has reached the card."""
    project(server, "slow-card", "Slow Card")
    key = create(server, "slow-card", "First title")
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/slow-card")
    card = page.locator(f"#card-{key}")
    expect(card.locator(".card-title")).to_have_text("First title")
    page.evaluate(
        """(id) => {
          window.__cardAsks = 0;
          document.body.addEventListener("htmx:confirm", (e) => {
            if (e.detail.elt.id === id) { window.__cardAsks += 1; }
          });
        }""",
        f"card-{key}",
    )
    held: list[tuple[Any, Any]] = []

    def hold_the_first(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))  # read now, answered later

    page.route(re.compile(rf"/card/{key}(\?|$)"), hold_the_first)
    agent(server, "task_update", task=key, title="Second title")
    page.wait_for_function("() => window.__cardAsks >= 1")
    page.wait_for_function("() => document.querySelector('.card.htmx-request')")
    while not held:  # the route handler runs while Playwright waits
        page.wait_for_timeout(20)
    agent(server, "task_update", task=key, title="Third title")
    page.wait_for_function("() => window.__cardAsks >= 2")
    route, answer = held[0]
    route.fulfill(response=answer)
    expect(card.locator(".card-title")).to_have_text("Third title")
    assert not_reloaded(page)
    w.assert_clean()


def test_a_burst_of_moves_ends_with_every_card_in_its_column(server, new_page):
    project(server, "burst", "Burst")
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/burst")
    keys = [
        re.match(r"Created (\S+) ", text).group(1)
        for text in burst(
            server, [("task_create", {"project": "burst", "title": f"t{n}"}) for n in range(8)]
        )
    ]
    stages = ["dev", "review", "test", "live"]
    burst(
        server,
        [("task_set_stage", {"task": k, "stage": stages[n % 4]}) for n, k in enumerate(keys)],
    )
    expect(count(page, "plan")).to_have_text("0")
    for stage in ("dev", "review", "test"):
        expect(count(page, stage)).to_have_text("2")
        expect(page.locator(f"#col-{stage} .card")).to_have_count(2)
    expect(page.locator("#tab-live .tab-count")).to_have_text("2")
    assert not_reloaded(page)
    w.assert_clean()


def test_a_card_opens_its_task_dialog_over_the_board(server, new_page):
    project(server, "dlg", "Dialog")
    key = create(server, "dlg", "Open me", stage="test")
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dlg")
    link = page.locator(f"#link-{key}")
    expect(link).to_have_attribute("href", f"/p/dlg?task={key}")
    if link.get_attribute("hx-get") is None:
        pytest.skip("the task dialog (tasks/views/task.py) is not there yet")
    link.click()
    expect(page).to_have_url(f"{server.base_url}/p/dlg?task={key}")
    expect(page.locator("#dialog-slot #task-dialog")).to_have_count(1)
    expect(page.locator(f"#col-test #card-{key}")).to_have_count(1)  # the board stays
    # While the dialog is open the page keys belong to it.
    expect(page.locator("body")).to_have_attribute("data-dialog-open", re.compile(r".*"))
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(300)
    expect(page.locator("#col-test")).to_be_visible()
    assert "page=2" not in page.url
    assert not_reloaded(page)


def test_events_of_another_project_leave_the_board_alone(server, new_page):
    project(server, "calm", "Calm")
    project(server, "busy", "Busy")
    create(server, "calm", "Quiet task")
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/calm")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    create(server, "busy", "Elsewhere")
    create(server, "calm", "Here")  # the one event this board acts on, as a fence
    expect(count(page, "plan")).to_have_text("2")
    assert [u for u in requests if "/p/busy" in u] == []
    assert len([u for u in requests if "/board/columns" in u]) == 1
    w.assert_clean()


def test_show_n_more_adds_a_long_columns_cards_and_the_live_refresh_keeps_them(server, new_page):
    project(server, "long", "Long")
    extra = 3
    burst(
        server,
        [
            ("task_create", {"project": "long", "title": f"t{n}", "stage": "dev"})
            for n in range(COLUMN_LIMIT + extra)
        ],
    )
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/long")
    cards = page.locator("#col-dev .card")
    expect(cards).to_have_count(COLUMN_LIMIT)
    expect(count(page, "dev")).to_have_text(str(COLUMN_LIMIT + extra))
    more = page.locator("#col-dev .column-more-link")
    expect(more).to_have_text(f"Show {extra} more")
    more.click()
    expect(cards).to_have_count(COLUMN_LIMIT + extra)
    expect(page.locator("#col-dev .column-more-link")).to_have_count(0)
    expect(page.locator("#board-state input[name=shown_dev]")).to_have_value(str(2 * COLUMN_LIMIT))
    # An agent's new task refetches the columns with the board state: the column stays open
    # and the new card is on top.
    key = create(server, "long", "Newest", stage="dev")
    expect(page.locator("#col-dev .card >> nth=0")).to_have_id(f"card-{key}")
    expect(cards).to_have_count(COLUMN_LIMIT + extra + 1)
    assert not_reloaded(page)
    w.assert_clean()


# --- pager ---------------------------------------------------------------------------------


def test_the_pager_keys_and_links_switch_pages_without_a_reload(server, new_page, shot):
    project(server, "pager", "Pager")
    create(server, "pager", "Planned")
    create(server, "pager", "Running", stage="live")
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/pager")
    base = server.base_url + "/p/pager"
    expect(page.locator(".column")).to_have_count(4)
    expect(page.locator("#pager-1")).to_have_attribute("aria-current", "page")

    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(base + "?page=2")
    expect(page.locator(".column")).to_have_count(2)
    expect(page.locator("#col-live")).to_be_visible()
    expect(page.locator("#pager-2")).to_have_attribute("aria-current", "page")
    page.keyboard.press("ArrowRight")  # already on the last page
    expect(page).to_have_url(base + "?page=2")

    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(base)
    expect(page.locator("#col-plan")).to_be_visible()

    # The links do the same, and Back returns to the previous page.
    page.get_by_role("link", name="Live · Done").click()
    expect(page).to_have_url(base + "?page=2")
    expect(page.locator("#col-done")).to_be_visible()
    page.go_back()
    expect(page).to_have_url(base)
    expect(page.locator("#col-plan")).to_be_visible()
    page.get_by_role("link", name="Plan · Dev · Review · Test").focus()
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(base + "?page=2")
    assert not_reloaded(page)
    w.assert_clean()


def test_the_page_keys_are_ignored_while_typing_with_modifiers_and_under_a_dialog(server, new_page):
    project(server, "keys", "Keys")
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/keys")
    base = server.base_url + "/p/keys"

    page.locator("#board-q").focus()
    page.keyboard.press("ArrowRight")
    for combo in ("Shift+ArrowRight", "Control+ArrowRight", "Meta+ArrowRight"):
        page.locator("#main").focus()
        page.keyboard.press(combo)
    page.evaluate("document.body.dataset.dialogOpen = '1'")
    page.keyboard.press("ArrowRight")
    page.evaluate("delete document.body.dataset.dialogOpen")
    page.evaluate(
        """() => { const v = document.createElement("div");
                  v.id = "viewer"; v.setAttribute("data-viewer-open", "");
                  document.body.appendChild(v); }"""
    )
    page.keyboard.press("ArrowRight")
    page.evaluate("document.getElementById('viewer').remove()")
    page.wait_for_timeout(300)  # a request the keys should not have made would be back
    expect(page).to_have_url(base)
    expect(page.locator(".column")).to_have_count(4)

    page.locator("#main").focus()
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(base + "?page=2")
    assert not_reloaded(page)
    w.assert_clean()


# --- search and archive ----------------------------------------------------------------------


@pytest.fixture
def no_window_server(tmp_path):
    """A server whose done window is 0 days: every closed task is archived at once."""
    srv = RelaybayServer(home=tmp_path / "home", env={"RELAYBAY_DONE_WINDOW_DAYS": "0"}).start()
    yield srv
    srv.stop()


def test_archive_and_search_bring_old_done_tasks_back(no_window_server, new_page, shot):
    server = no_window_server
    project(server, "arch", "Archive")
    old = create(server, "arch", "Old checkout bug", stage="done")
    other = create(server, "arch", "Old footer typo", stage="done")
    open_key = create(server, "arch", "Checkout redesign", stage="dev")
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/arch?page=2")
    base = server.base_url + "/p/arch"
    expect(page.locator("#col-done .column-empty")).to_contain_text("Nothing closed")
    expect(page.locator("#col-done .column-note")).to_contain_text("2 archived")

    page.locator("#board-archive").click()
    expect(page).to_have_url(base + "?page=2&archived=1")
    expect(page.locator(f"#col-done #card-{old}.is-archived")).to_be_visible()
    expect(page.locator(f"#col-done #card-{other}")).to_be_visible()
    expect(page.locator("#board-archive")).to_have_text("Hide archived")
    page.locator("#board-archive").click()
    expect(page).to_have_url(base + "?page=2")
    expect(page.locator(f"#card-{old}")).to_have_count(0)

    # Search (key or title, any case) also finds the archive, on every page.
    page.locator("#board-q").press_sequentially("CHECKOUT")
    expect(page).to_have_url(base + "?page=2&q=CHECKOUT")
    expect(page.locator(f"#col-done #card-{old}")).to_be_visible()
    expect(page.locator(f"#card-{other}")).to_have_count(0)
    expect(page.locator("#board-q")).to_be_focused()
    page.keyboard.press("ArrowLeft")  # in the search box: moves the caret only
    expect(page).to_have_url(base + "?page=2&q=CHECKOUT")
    page.get_by_role("link", name="Plan · Dev · Review · Test").click()
    expect(page).to_have_url(base + "?q=CHECKOUT")
    expect(page.locator(f"#col-dev #card-{open_key}")).to_be_visible()
    expect(page.locator("#tab-done .tab-count")).to_have_text("1")
    page.locator("#board-q").fill(open_key.upper())
    page.locator("#board-q").press("Enter")
    expect(page).to_have_url(f"{base}?q={open_key.upper()}")
    expect(page.locator(".card")).to_have_count(1)
    assert not_reloaded(page)
    w.assert_clean()


# --- phones ----------------------------------------------------------------------------------


def test_at_phone_width_a_stage_tab_bar_shows_one_column(server, new_page, shot):
    project(server, "phone", "Phone")
    key = create(server, "phone", "Check on a phone", stage="test", waiting_on="owner")
    create(server, "phone", "Plan this")
    w = new_page(**PHONE)
    page = open_board(w, server, "/p/phone")
    base = server.base_url + "/p/phone"
    expect(page.locator("#pager")).to_be_hidden()
    tabs = page.get_by_role("tab")
    expect(tabs).to_have_count(6)
    expect(page.locator("#tab-plan")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#col-plan")).to_be_visible()
    expect(page.locator("#col-test")).to_be_hidden()

    page.get_by_role("tab", name="Test").click()
    expect(page).to_have_url(base + "?stage=test")
    expect(page.locator("#tab-test")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#tab-plan")).to_have_attribute("aria-selected", "false")
    expect(page.locator(f"#col-test #card-{key}")).to_be_visible()
    expect(page.locator("#col-plan")).to_be_hidden()
    expect(page.locator("#tab-test")).to_be_focused()

    # The tab bar follows the ARIA tabs keys; the page keys do nothing on a phone.
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(base + "?stage=live")
    expect(page.locator("#tab-live")).to_be_focused()
    expect(page.locator("#col-live")).to_be_visible()
    page.keyboard.press("Home")
    expect(page).to_have_url(base + "?stage=plan")
    page.locator("#main").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(300)
    expect(page).to_have_url(base + "?stage=plan")

    # Live updates reach the selected column and the tab counts.
    create(server, "phone", "Another plan")
    expect(page.locator("#tab-plan .tab-count")).to_have_text("2")
    expect(page.locator("#col-plan .card")).to_have_count(2)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], "nothing overflows sideways"
    assert not_reloaded(page)
    w.assert_clean()


# --- not found -------------------------------------------------------------------------------


def test_an_unknown_project_shows_a_helpful_page(server, new_page):
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, "/")
    response = page.goto(server.base_url + "/p/no-such-board")
    assert response.status == 404
    expect(page.locator("#board-missing")).to_contain_text("There is no project “no-such-board”")
    page.get_by_role("link", name="All boards").last.click()
    expect(page).to_have_url(server.base_url + "/")
    assert [e for e in w.errors() if "404" not in e] == []


# --- screenshots ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def showcase(server: RelaybayServer) -> str:
    """A board with a bit of everything, made once per module."""
    project(server, "acme-shop", "Acme Shop")
    create(
        server,
        "acme-shop",
        "Write the refund policy page",
        next_step="Ask legal for the wording of the 30-day clause",
        waiting_on="owner",
    )
    create(
        server,
        "acme-shop",
        "Nightly stock sync from the ERP",
        tracker_name="Jira",
        tracker_ref="SHOP-311",
        tracker_url="https://jira.example/SHOP-311",
    )
    stale = create(
        server,
        "acme-shop",
        "Product images load slowly on category pages",
        stage="dev",
        branch="perf/lazy-images",
        next_step="Measure LCP before and after",
    )
    agent(server, "task_set_stage", task=stale, stage="review", waiting_on="owner")
    checkout = create(
        server,
        "acme-shop",
        "Checkout fails with two-factor login on Safari",
        stage="dev",
        waiting_on="agent",
        branch="fix/2fa-safari",
        next_step="Reproduce with the Safari 17 user agent, then fix the cookie flags",
    )
    create(
        server,
        "acme-shop",
        "Dark mode for the admin",
        stage="test",
        waiting_on="owner",
        branch="feat/admin-dark",
        next_step="Check the contrast on the orders table",
        tracker_name="Jira",
        tracker_ref="SHOP-290",
        tracker_logged=True,
    )
    create(server, "acme-shop", "Search suggestions", stage="live", branch="feat/suggest")
    create(
        server,
        "acme-shop",
        "Newsletter double opt-in",
        stage="done",
        tracker_name="Jira",
        tracker_ref="SHOP-250",
        tracker_logged=True,
    )
    create(server, "acme-shop", "Fix the typo in the footer", stage="done")
    if has_tool(server, "task_bind_session"):
        agent(
            server,
            "task_bind_session",
            task=checkout,
            session=DESKTOP_ID,
            session_title="Fix 2FA on Safari",
        )
    return "/p/acme-shop"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_of_the_board(server, showcase, new_page, shot, scheme):
    suffix = "" if scheme == "light" else "-dark"
    desk = new_page(**DESKTOP, color_scheme=scheme)
    page = open_board(desk, server, showcase)
    expect(page.locator(".card").first).to_be_visible()
    shot(page, f"project-board-desktop{suffix}")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#col-done")).to_be_visible()
    shot(page, f"project-board-desktop-page2{suffix}")
    desk.assert_clean()

    phone = new_page(**PHONE, color_scheme=scheme)
    page = open_board(phone, server, showcase + "?stage=dev")
    expect(page.locator("#col-dev .card").first).to_be_visible()
    shot(page, f"project-board-phone{suffix}")
    phone.assert_clean()
