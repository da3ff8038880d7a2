"""The Inbox's bounded groups in headless Chromium (issue 33), at 1280 and 390 px: a group
longer than its first rows shows them, its whole count and "Show N more"; each click adds the
next rows through the same partial, a live refresh keeps what the reader opened, and the
last click leaves no link. Docs & rules' lists, bounded the same way, open twice too.
Screenshots in tests/artifacts/browser/ (looked at).

Both lists are live regions whose refresh includes their state (hx-include): a "Show N more"
link inside inherits it, and before the links unset it the second click sent the older
`shown_<group>=40` after its own 60 — the server read the last, and nothing opened.
"""

from __future__ import annotations

from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.helpers import htmx_idle, sign_in, wait_state
from tests.support.mcp_client import mcp_client, run_async, text_of
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

WAITING = 45  # more than two batches of GROUP_LIMIT (20): two clicks, the second for 5


def agent_many(server: RelaybayServer, calls: list[tuple[str, dict[str, Any]]]) -> None:
    """Several tool calls through one client connection, back to back."""

    async def main() -> None:
        async with mcp_client(server.base_url, server.token) as client:
            for tool, args in calls:
                result = await client.call_tool(tool, {"session": "agent-7", **args})
                assert not result.is_error, f"{tool} failed: {text_of(result)}"

    run_async(main())


def waiting_task(n: int) -> tuple[str, dict[str, Any]]:
    title = f"Pick the refund wording for the checkout page, variant {n}"
    args = {"project": "shop", "title": title, "waiting_on": "owner", "next_step": "Ask"}
    return ("task_create", args)


@pytest.fixture(scope="module")
def long_inbox(server: RelaybayServer) -> RelaybayServer:
    """A project whose owner has 45 tasks to answer, and one rule warning (a second group)."""
    calls = [("project_upsert", {"slug": "shop", "name": "Shop"})]
    calls += [waiting_task(n) for n in range(1, WAITING + 1)]
    calls.append(("task_create", {"project": "shop", "title": "Moved without a plan", "size": "M"}))
    agent_many(server, calls)
    agent_many(server, [("task_set_stage", {"task": f"shop-{WAITING + 1}", "stage": "dev"})])
    return server


def rows(page: Any) -> Any:
    return page.locator("#inbox-waiting-on-you .inbox-row")


def count(page: Any) -> int:
    return int(page.locator("#inbox-waiting-on-you-title .count").inner_text())


def no_overflow(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0


@pytest.mark.parametrize(("name", "width"), [("desktop", 1280), ("phone", 390)])
def test_a_long_inbox_group_opens_twenty_rows_at_a_time(
    long_inbox: RelaybayServer, new_page, shot, name: str, width: int
) -> None:
    server = long_inbox
    w = new_page(width=width, height=844)
    page = w.page
    sign_in(page, server, "/inbox")
    wait_state(page, "live")
    total = count(page)
    assert total >= WAITING
    expect(rows(page)).to_have_count(20)
    more = page.locator("#inbox-waiting-on-you .inbox-more")
    expect(more).to_contain_text(f"{total - 20} more")
    expect(more.locator(".inbox-more-link")).to_have_text("Show 20 more")
    expect(page.locator("#inbox-rule-warnings .inbox-row")).to_have_count(1)
    no_overflow(page)
    shot(page, f"inbox-bounded-top-{name}")
    more.scroll_into_view_if_needed()
    shot(page, f"inbox-bounded-more-{name}")

    more.locator(".inbox-more-link").click()
    expect(rows(page)).to_have_count(40)
    expect(more.locator(".inbox-more-link")).to_have_text(f"Show {min(total - 40, 20)} more")
    assert page.url.endswith("/inbox")  # fetched in place, no navigation
    htmx_idle(page)

    # An agent adds one more: the live refresh counts it and keeps the 40 rows opened.
    agent_many(server, [waiting_task(100 + width)])
    expect(page.locator("#inbox-waiting-on-you-title .count")).to_have_text(str(total + 1))
    expect(rows(page)).to_have_count(40)
    more.scroll_into_view_if_needed()
    no_overflow(page)
    shot(page, f"inbox-bounded-opened-{name}")

    more.locator(".inbox-more-link").click()
    expect(rows(page)).to_have_count(total + 1)
    expect(page.locator("#inbox-waiting-on-you .inbox-more")).to_have_count(0)
    htmx_idle(page)
    page.locator("#inbox-waiting-on-you .inbox-row").last.scroll_into_view_if_needed()
    no_overflow(page)
    shot(page, f"inbox-bounded-all-{name}")
    w.assert_clean()


DECISIONS = 120  # Docs & rules show 50 a list: two clicks, the second for 20


def test_a_long_docs_list_opens_fifty_rows_at_a_time(
    long_inbox: RelaybayServer, new_page, shot
) -> None:
    calls = [
        ("decision_add", {"project": "shop", "text": f"Refunds go through the ledger, rule {n}"})
        for n in range(1, DECISIONS + 1)
    ]
    agent_many(long_inbox, calls)
    w = new_page(width=1280, height=900)
    page = w.page
    sign_in(page, long_inbox, "/p/shop/docs")
    wait_state(page, "live")
    decisions = page.locator("#docs-list-decisions .docs-decision")
    link = page.locator("#docs-list-decisions .docs-more-link")
    expect(decisions).to_have_count(50)
    expect(link).to_have_text("Show 50 more")
    link.click()
    expect(decisions).to_have_count(100)
    expect(link).to_have_text("Show 20 more")
    htmx_idle(page)
    link.click()
    expect(decisions).to_have_count(DECISIONS)
    expect(link).to_have_count(0)
    htmx_idle(page)
    decisions.last.scroll_into_view_if_needed()
    shot(page, "docs-bounded-all-desktop")
    w.assert_clean()
