"""Inbox, Activity and Settings → Notifications in headless Chromium against a real server
(§2 Inbox, Activity, Browser notification, Live updates). Agents write through the real MCP
client; no page here ever reloads (a marker on `window` must survive every live update).

Browser notifications are observed by wrapping window.Notification in an init script
(init scripts run outside the page's CSP) that records every notification and every
permission request (tests/browser/conftest.py: NOTIFICATION_RECORDER, `context_page`).
Screenshots land in tests/artifacts/browser/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.conftest import WatchedPage
from tests.browser.helpers import sign_in, wait_state
from tests.support.mcp_client import call_tool, mcp_client, run_async, text_of
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}

UNDECIDED = "window.__fakePermission = 'default';"


def agent(server: RelaybayServer, tool: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, tool, {"session": "agent-7", **args})


def agent_many(server: RelaybayServer, calls: list[tuple[str, dict[str, Any]]]) -> None:
    """Several tool calls through one client connection, back to back."""

    async def main() -> None:
        async with mcp_client(server.base_url, server.token) as client:
            for tool, args in calls:
                result = await client.call_tool(tool, {"session": "agent-7", **args})
                assert not result.is_error, f"{tool} failed: {text_of(result)}"

    run_async(main())


def create(server: RelaybayServer, slug: str, title: str, **fields: Any) -> str:
    text = agent(server, "task_create", project=slug, title=title, **fields)
    return re.match(r"Created (\S+) ", text).group(1)


def project(server: RelaybayServer, slug: str, name: str) -> None:
    agent(server, "project_upsert", slug=slug, name=name)


def mark(page: Any) -> None:
    page.evaluate("window.__marker = 'still here'")


def not_reloaded(page: Any) -> bool:
    return page.evaluate("window.__marker") == "still here"


def open_page(w: WatchedPage, server: RelaybayServer, path: str) -> Any:
    page = w.page
    sign_in(page, server, path)
    wait_state(page, "live")
    mark(page)
    return page


def badge_count(page: Any) -> int:
    """The badge's number (0 when hidden)."""
    # text_content: on a phone the badge sits in the closed drawer, where innerText is empty.
    return int(page.locator("#inbox-badge").text_content() or 0)


# --- Inbox -------------------------------------------------------------------------------------


def test_an_empty_inbox_says_nothing_needs_you(fresh_server, new_page, shot):
    for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
        w = new_page(**size)
        page = open_page(w, fresh_server, "/inbox")
        expect(page.get_by_role("heading", name="Nothing needs you right now.")).to_be_visible()
        assert badge_count(page) == 0
        expect(page.locator("#inbox-badge")).to_be_hidden()
        shot(page, f"inbox-empty-{name}")
        w.assert_clean()


def test_the_badge_and_the_list_follow_an_agent_live(server, new_page, context_page):
    project(server, "inbox-live", "Inbox Live")
    first = create(server, "inbox-live", "Pick the colour scheme", next_step="Ask the owner")
    second = create(server, "inbox-live", "Approve the copy")

    # Any page carries the badge: here All boards.
    board = new_page(**DESKTOP)
    elsewhere = open_page(board, server, "/")
    before = badge_count(elsewhere)
    inbox_w = new_page(**DESKTOP)
    inbox = open_page(inbox_w, server, "/inbox")
    assert badge_count(inbox) == before

    agent(server, "task_update", task=first, waiting_on="owner")
    expect(elsewhere.locator("#inbox-badge")).to_have_text(str(before + 1))
    expect(elsewhere.locator("#inbox-badge")).to_be_visible()
    row = inbox.locator(f"#inbox-waiting-on-you-{first}")
    expect(row).to_be_visible()
    expect(row).to_contain_text("Pick the colour scheme")
    expect(row).to_have_attribute("href", f"/p/inbox-live?task={first}")

    # Two writes inside one 2 s window: the trailing refetch still brings the second.
    agent_many(
        server,
        [
            ("task_update", {"task": second, "waiting_on": " ME "}),
            ("task_update", {"task": first, "next_step": "Pick blue or green"}),
        ],
    )
    expect(elsewhere.locator("#inbox-badge")).to_have_text(str(before + 2))
    expect(inbox.locator(f"#inbox-waiting-on-you-{second}")).to_be_visible()
    expect(inbox.locator(f"#inbox-waiting-on-you-{first}")).to_contain_text("Pick blue or green")

    agent(server, "task_update", task=first, waiting_on="agent-7")
    expect(inbox.locator(f"#inbox-waiting-on-you-{first}")).to_have_count(0)
    expect(elsewhere.locator("#inbox-badge")).to_have_text(str(before + 1))
    expect(inbox.locator("#inbox-badge")).to_have_text(str(before + 1))

    assert not_reloaded(elsewhere)
    assert not_reloaded(inbox)
    board.assert_clean()
    inbox_w.assert_clean()


def test_a_rule_warning_appears_and_leaves_with_the_next_move(server, new_page):
    project(server, "inbox-rules", "Inbox Rules")
    key = create(server, "inbox-rules", "Ship without a plan", size="M")
    w = new_page(**DESKTOP)
    page = open_page(w, server, "/inbox")
    agent(server, "task_set_stage", task=key, stage="dev", next_step="code", waiting_on="agent-7")
    row = page.locator(f"#inbox-rule-warnings-{key}")
    expect(row).to_contain_text("plan → dev: moving to dev usually needs an accepted plan")
    agent(server, "task_set_stage", task=key, stage="plan", next_step="plan", waiting_on="agent-7")
    expect(row).to_have_count(0)
    assert not_reloaded(page)
    w.assert_clean()


def fill_inbox(server: RelaybayServer) -> None:
    project(server, "shop-web", "Shop Web")
    project(server, "billing", "Billing API")
    agent_many(
        server,
        [
            (
                "task_create",
                {
                    "project": "shop-web",
                    "title": "Choose the checkout button colour",
                    "waiting_on": "owner",
                    "next_step": "Pick between the two mock-ups in docs/checkout.md",
                },
            ),
            (
                "task_create",
                {
                    "project": "billing",
                    "title": "Confirm the refund policy wording",
                    "waiting_on": "me",
                    "stage": "review",
                    "next_step": "Read the new paragraph and say yes or no",
                },
            ),
            (
                "task_create",
                {"project": "shop-web", "title": "Mobile menu overlaps the cart", "size": "M"},
            ),
            (
                "task_set_stage",
                {
                    "task": "shop-web-2",
                    "stage": "dev",
                    "waiting_on": "agent-7",
                    "next_step": "fix the z-index",
                },
            ),
            (
                "task_create",
                {
                    "project": "billing",
                    "title": "Invoice PDF <img src=x onerror=alert(1)>",
                    "stage": "dev",
                },
            ),
            (
                "task_set_stage",
                {
                    "task": "billing-2",
                    "stage": "test",
                    "waiting_on": "agent-7",
                    "next_step": "run the PDF suite",
                },
            ),
        ],
    )


def test_screenshots_of_a_filled_inbox(fresh_server, new_page, shot):
    fill_inbox(fresh_server)
    for name, size, scheme in (
        ("desktop", DESKTOP, "light"),
        ("phone", PHONE, "light"),
        ("dark", DESKTOP, "dark"),
    ):
        w = new_page(**size, color_scheme=scheme)
        page = open_page(w, fresh_server, "/inbox")
        expect(page.locator(".inbox-group")).to_have_count(2)
        assert badge_count(page) == 4
        expect(page.locator("#inbox-badge")).to_have_text("4")
        assert page.locator("img[src=x]").count() == 0
        shot(page, f"inbox-{name}")
        w.assert_clean()


# --- Activity ----------------------------------------------------------------------------------


def test_new_events_are_prepended_live_on_the_first_page(server, new_page):
    project(server, "feed-live", "Feed Live")
    w = new_page(**DESKTOP)
    page = open_page(w, server, "/activity")
    rows = page.locator("#activity-rows > .activity-row")
    top_before = rows.first.get_attribute("id")

    key = create(server, "feed-live", "Watch the feed")
    top = rows.first
    expect(top).to_contain_text("created in plan: Watch the feed")
    expect(top).to_contain_text("task.created")
    expect(top.locator(".activity-target a")).to_have_attribute("href", f"/p/feed-live?task={key}")
    expect(top.locator(".activity-actor")).to_have_text("agent-7")
    assert re.match(
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", top.locator("time").get_attribute("title")
    )

    # A burst inside one 2 s window arrives whole, in order, without duplicates.
    agent_many(
        server,
        [("task_update", {"task": key, "next_step": f"step {i}"}) for i in range(3)]
        + [("report_add", {"task": key, "body": "changed · S · wired the feed"})],
    )
    report = page.locator('#activity-rows > .activity-row[data-kind="report.added"]')
    expect(report).to_contain_text("wired the feed")
    expect(rows.filter(has_text="step 2")).to_have_count(0)  # describe() names fields only
    expect(rows.filter(has_text=key).filter(has_text="changed next_step")).to_have_count(3)
    ids = [int(i.split("-")[1]) for i in rows.evaluate_all("els => els.map(e => e.id)")]
    assert ids == sorted(ids, reverse=True)
    assert len(ids) == len(set(ids))
    assert top_before is None or f"event-{ids[-1]}" != top_before or len(ids) > 1
    assert not_reloaded(page)
    w.assert_clean()


def test_a_filtered_feed_prepends_only_matching_events(server, new_page):
    project(server, "feed-a", "Feed A")
    project(server, "feed-b", "Feed B")
    w = new_page(**DESKTOP)
    page = open_page(w, server, "/activity")
    page.goto(server.base_url + "/activity?project=feed-a&kind=task.created")
    wait_state(page, "live")
    mark(page)
    expect(page.locator(".activity-empty")).to_be_visible()
    create(server, "feed-b", "Not for this feed")
    create(server, "feed-a", "For this feed")
    rows = page.locator("#activity-rows > .activity-row")
    expect(rows.first).to_contain_text("For this feed")
    expect(page.locator(".activity-empty")).to_be_hidden()
    page.wait_for_timeout(2500)  # a trailing refetch would have brought anything else by now
    expect(rows).to_have_count(1)
    assert not_reloaded(page)
    w.assert_clean()


def test_load_more_appends_the_next_page_without_a_reload(fresh_server, new_page, shot):
    project(fresh_server, "feed-long", "Feed Long")
    key = create(fresh_server, "feed-long", "A long history")
    agent_many(
        fresh_server,
        [("task_update", {"task": key, "next_step": f"step {i}"}) for i in range(60)],
    )  # 62 events in all
    w = new_page(**DESKTOP)
    page = open_page(w, fresh_server, "/activity")
    rows = page.locator("#activity-rows > .activity-row")
    expect(rows).to_have_count(50)
    more = page.get_by_role("link", name="Load more")
    href = more.get_attribute("href")
    assert re.fullmatch(r"/activity\?before=\d+", href)
    more.click()
    expect(page.get_by_text("That is the beginning of the log.")).to_be_visible()
    expect(page.get_by_role("link", name="Load more")).to_have_count(0)
    assert page.url.endswith("/activity")
    assert not_reloaded(page)
    ids = [int(i.split("-")[1]) for i in rows.evaluate_all("els => els.map(e => e.id)")]
    assert len(ids) > 61  # 62 task events, plus the agent session's own
    assert ids == sorted(ids, reverse=True)
    assert len(set(ids)) == len(ids)

    # The same link without htmx: the older page, with a way back to the newest.
    page.goto(fresh_server.base_url + href)
    expect(rows).to_have_count(len(ids) - 50)
    expect(page.get_by_role("link", name="← Newest events")).to_be_visible()
    w.assert_clean()


def test_screenshots_of_activity(fresh_server, new_page, shot):
    fill_inbox(fresh_server)
    agent_many(
        fresh_server,
        [
            (
                "report_add",
                {"task": "shop-web-2", "body": "changed · M · moved the cart below the menu"},
            ),
            ("decision_add", {"project": "shop-web", "text": "Keep the cart icon in the header"}),
            (
                "task_set_stage",
                {
                    "task": "shop-web-2",
                    "stage": "review",
                    "waiting_on": "owner",
                    "next_step": "Check on a phone",
                },
            ),
        ],
    )
    for name, size, scheme in (
        ("desktop", DESKTOP, "light"),
        ("phone", PHONE, "light"),
        ("dark", DESKTOP, "dark"),
    ):
        w = new_page(**size, color_scheme=scheme)
        page = open_page(w, fresh_server, "/activity")
        expect(page.locator("#activity-rows > .activity-row").first).to_be_visible()
        shot(page, f"activity-{name}")
        w.assert_clean()
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, fresh_server, "/activity")
    page.goto(fresh_server.base_url + "/activity?kind=task.nope")
    expect(page.get_by_role("alert")).to_contain_text("Unknown event kind 'task.nope'.")
    shot(page, "activity-bad-filter")


# --- Settings → Notifications -------------------------------------------------------------------


def test_a_granted_permission_shows_allowed_and_a_move_to_review_notifies(
    server, context_page, shot
):
    project(server, "notify", "Notify Shop")
    key = create(server, "notify", "Polish the checkout <b>page</b>")
    w = context_page(permissions=["notifications"], **DESKTOP)
    page = open_page(w, server, "/settings/notifications")
    expect(page.locator("#notify-settings")).to_have_attribute("data-state", "granted")
    expect(page.locator('#notify-state [data-when="granted"]')).to_be_visible()
    expect(page.locator("#notify-state")).to_contain_text("allows")
    expect(page.get_by_role("button", name="Allow notifications")).to_be_hidden()
    shot(page, "notifications-desktop")
    assert page.evaluate("window.__permissionRequests") == 0

    # Any open page notifies; here All boards.
    page.goto(server.base_url + "/")
    wait_state(page, "live")
    agent(server, "task_set_stage", task=key, stage="review", next_step="wait", waiting_on="owner")
    page.wait_for_function("() => window.__notes.length === 1")
    note = page.evaluate("({title: __notes[0].title, tag: __notes[0].tag, body: __notes[0].body})")
    assert note == {
        "title": f"Waiting for your acceptance: {key} Polish the checkout <b>page</b>",
        "tag": key,
        "body": "plan → review",
    }
    # Moves elsewhere are quiet; a move to test notifies again under the same tag.
    agent(server, "task_set_stage", task=key, stage="dev", next_step="fix", waiting_on="agent-7")
    agent(server, "task_set_stage", task=key, stage="test", next_step="wait", waiting_on="owner")
    page.wait_for_function("() => window.__notes.length === 2")
    assert page.evaluate("__notes[1].tag") == key
    page.wait_for_timeout(300)
    assert page.evaluate("window.__notes.length") == 2
    assert page.evaluate("window.__permissionRequests") == 0

    # A click opens the task's Review tab.
    page.evaluate("__notes[0].onclick()")
    page.wait_for_url(f"{server.base_url}/p/notify?task={key}&tab=review")
    w.assert_clean()


def test_no_page_asks_for_the_permission_and_the_button_does(server, context_page, shot):
    for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
        w = context_page(scripts=(UNDECIDED,), **size)
        page = open_page(w, server, "/")
        for path in ("/inbox", "/activity", "/settings/notifications"):
            page.goto(server.base_url + path)
            wait_state(page, "live")
            assert page.evaluate("window.__permissionRequests") == 0, path
        expect(page.locator("#notify-settings")).to_have_attribute("data-state", "default")
        expect(page.locator("#notify-state")).to_contain_text("has not decided")
        allow = page.get_by_role("button", name="Allow notifications")
        expect(allow).to_be_visible()
        shot(page, f"notifications-undecided-{name}")
        if name == "phone":
            shot(page, "notifications-phone")
        allow.click()
        expect(page.locator("#notify-settings")).to_have_attribute("data-state", "granted")
        expect(page.locator("#notify-state")).to_contain_text("allows")
        expect(allow).to_be_hidden()
        assert page.evaluate("window.__permissionRequests") == 1
        page.get_by_role("button", name="Show a test notification").click()
        assert page.evaluate("__notes.map(n => n.tag)") == ["relaybay-test"]
        w.assert_clean()


def test_a_blocked_browser_is_told_how_to_unblock(server, context_page):
    w = context_page(scripts=("window.__fakePermission = 'denied';",), **DESKTOP)
    page = open_page(w, server, "/settings/notifications")
    expect(page.locator("#notify-settings")).to_have_attribute("data-state", "denied")
    expect(page.locator("#notify-state")).to_contain_text("blocks")
    expect(page.get_by_role("button", name="Allow notifications")).to_be_hidden()
    w.assert_clean()
