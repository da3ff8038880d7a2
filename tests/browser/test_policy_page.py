"""Settings → Policy in headless Chromium against a real server (§7 Settings → Policy).

Agents propose through the real MCP client (policy_propose); the owner edits, validates,
confirms, accepts and rejects on the page. The broken layer of the screenshots is written
straight into the server's database, as an older version or a hand edit would leave it
(no service stores a layer that does not validate). Every test asserts that the page
logged no CSP violation and no console error. Screenshots: tests/artifacts/browser/.
"""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
import time
from contextlib import closing
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.conftest import save_shot
from tests.browser.helpers import sign_in, wait_state
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

PAGE = "/settings/policy"
WIDTHS = {"desktop-1280": 1280, "desktop-1440": 1440, "phone": 390}
NO_OVERFLOW = "document.documentElement.scrollWidth <= window.innerWidth + 1"
SCROLL_WIDTH = "document.documentElement.scrollWidth"
WIDE = {"levels": {"live": {"default": "full"}}, "guard": {"mode": "block"}}
LONG_PATTERN = {
    "guard": {
        "patterns+": [
            {
                "id": "archive-table-drop",
                "capability": "db",
                "command": r"(psql|pgcli)\s+(--host|-h)\s+prod-eu-central-1-primary\.internal",
                "change": r"drop\s+table\s+(orders|customers|payments|invoices)_archive_2024_q4",
                "description": "dropping an archive table of the quarterly close on the primary",
            }
        ]
    }
}
_numbers = itertools.count(1)


def agent(server: RelaybayServer, tool: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, tool, {"session": "agent-pol", **args})


def new_project(server: RelaybayServer, name: str = "Policy Shop") -> str:
    slug = f"policy-shop-{next(_numbers)}"
    agent(server, "project_upsert", slug=slug, name=name)
    return slug


def propose(server: RelaybayServer, scope: str, patch: dict[str, Any], reason: str) -> int:
    answer = agent(server, "policy_propose", scope=scope, patch=patch, reason=reason)
    found = re.search(r"Proposed policy change #(\d+)", answer)
    assert found is not None, answer
    return int(found[1])


def store_broken_layer(server: RelaybayServer, slug: str) -> None:
    """A project layer that no longer validates, written past the services."""
    with closing(sqlite3.connect(server.home / "relaybay.sqlite")) as db, db:
        found = db.execute("SELECT id FROM tasks_project WHERE slug = ?", (slug,)).fetchone()
        project_id = found[0]
        db.execute(
            "INSERT INTO policy_policylayer (project_id, environment_id, body, changed_at, "
            "changed_by) VALUES (?, NULL, ?, '2026-01-05 09:30:00', 'relaybay 0.9')",
            (project_id, json.dumps({"guard": {"mode": "loud", "disable": ["no-such-rule"]}})),
        )


def open_scope(page: Any, slug: str) -> None:
    page.locator("#policy-scope").select_option(slug)
    page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(rf"\?scope={re.escape(slug)}$"))


def row(page: Any, section: str, setting: str) -> Any:
    return page.locator(f"#{section} tr").filter(has=page.locator("th", has_text=setting))


# --- the editor ---------------------------------------------------------------------------------


def test_edit_validate_confirm_and_save_a_project_layer(server, new_page):
    slug = new_project(server)
    w = new_page(width=1440, height=900)
    page = w.page
    sign_in(page, server, PAGE)
    expect(page.get_by_role("heading", level=1)).to_have_text("Policy")
    expect(page.locator('.settings-tabs [aria-current="page"]')).to_have_text("Policy")
    w.remember_violations()
    open_scope(page, slug)
    expect(page.locator("#pol-effective-title")).to_have_text(f"Effective policy: {slug}")
    expect(row(page, "policy-effective", "levels.live.default")).to_contain_text("preset:default")

    # Validate shows the table after the change and says it widens live; nothing is written.
    page.locator("#policy-text").fill(json.dumps(WIDE, indent=2))
    w.remember_violations()
    page.get_by_role("button", name="Validate").click()
    preview = page.locator("#policy-preview")
    expect(preview).to_contain_text("Widens access on live:")
    expect(preview).to_contain_text("levels.live.default rises from read to full")
    changed = row(page, "policy-preview", "levels.live.default")
    expect(changed).to_have_class("is-changed")
    expect(changed).to_contain_text(f"project:{slug}")
    expect(page.locator("#policy-text")).to_have_value(json.dumps(WIDE, indent=2))
    expect(row(page, "policy-effective", "levels.live.default")).to_contain_text("preset:default")

    # Save asks a second time on its own page; the confirmed save redirects with the flash.
    w.remember_violations()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Save the {slug} policy?")
    expect(page.locator("#policy-confirm")).to_contain_text("levels.live.default rises")
    w.remember_violations()
    page.get_by_role("button", name="Confirm: widen live").click()
    page.wait_for_url(re.compile(rf"{PAGE}\?scope={re.escape(slug)}$"))
    expect(page.locator("#flash")).to_have_text(f"Saved the {slug} policy.")
    expect(row(page, "policy-effective", "levels.live.default").locator("td")).to_have_text(
        ['"full"', f"project:{slug}"]
    )
    expect(page.locator("#policy-layers")).to_contain_text(f"project:{slug}")
    expect(page.locator("#policy-layers")).to_contain_text("changed by owner")

    # The flash is shown once.
    w.remember_violations()
    page.reload()
    expect(page.locator("#pol-effective-title")).to_be_visible()
    expect(page.locator("#flash")).to_have_count(0)
    w.assert_clean()


def test_a_refused_save_keeps_the_typed_text(server, new_page):
    slug = new_project(server)
    w = new_page(width=1280, height=900)
    page = w.page
    sign_in(page, server, PAGE)
    w.remember_violations()
    open_scope(page, slug)
    typed = '{"guard": {"mode": "loud"}}'
    page.locator("#policy-text").fill(typed)
    w.remember_violations()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#policy-editor-errors")).to_contain_text(
        f"project:{slug}: guard.mode: 'loud' is not one of"
    )
    expect(page.locator("#policy-text")).to_have_value(typed)
    # The page answered 400 (Chromium logs that much) and loaded like any page.
    assert w.csp_violations() == []
    assert [e for e in w.errors() if "status of 400 (Bad Request)" not in e] == []


# --- proposals ------------------------------------------------------------------------------------


def test_proposals_appear_live_and_are_accepted_or_rejected(server, new_page):
    slug = new_project(server)
    w = new_page(width=1440, height=900)
    page = w.page
    sign_in(page, server, PAGE)
    wait_state(page, "live")
    w.remember_violations()
    page.evaluate("window.__polMarker = 'kept'")

    keep = propose(server, slug, {"guard": {"mode": "block"}}, "prod is close")
    drop = propose(server, slug, {"secrets": {"disable": ["jwt"]}}, "tokens in fixtures")
    first, second = page.locator(f"#proposal-{keep}"), page.locator(f"#proposal-{drop}")
    expect(first).to_contain_text("prod is close")
    expect(first).to_contain_text("proposed by agent-pol")
    expect(first.locator(".state-pill")).to_have_text("does not widen live")
    expect(second).to_contain_text("tokens in fixtures")
    assert page.evaluate("window.__polMarker") == "kept"  # arrived without a reload

    w.remember_violations()
    first.get_by_role("button", name="Accept").click()
    page.wait_for_url(re.compile(rf"{PAGE}$"))
    expect(page.locator("#flash")).to_have_text(f"Accepted policy proposal #{keep} for {slug}.")
    expect(page.locator(f"#proposal-{keep}")).to_have_count(0)
    w.remember_violations()
    page.locator(f"#proposal-{drop}").get_by_role("button", name="Reject").click()
    expect(page.locator("#flash")).to_have_text(f"Rejected policy proposal #{drop} for {slug}.")
    expect(page.locator(f"#proposal-{drop}")).to_have_count(0)
    expect(page.locator("#policy-layers")).to_contain_text(f"project:{slug}")
    w.assert_clean()


def test_a_proposal_arriving_while_the_list_refetches_is_not_lost(server, new_page):
    """htmx drops a request queued on an element that the running request's answer
    replaces (outerHTML); the live sections swap their content instead, so the refresh a
    second event asks for during a slow refetch still runs (docs/architecture.md §7)."""
    slug = new_project(server)
    w = new_page(width=1280, height=900)
    page = w.page
    sign_in(page, server, PAGE)
    wait_state(page, "live")
    held: list[int] = []

    def hold_the_first_refetch(route: Any) -> None:
        answer = route.fetch()  # the list as it is now: the first proposal only
        if not held:
            held.append(propose(server, slug, {"guard": {"mode": "block"}}, "second, meanwhile"))
            time.sleep(0.5)  # its event reaches the page while this refetch is still open
        route.fulfill(response=answer)

    page.route(re.compile(r"/settings/policy/proposals"), hold_the_first_refetch)
    first = propose(server, slug, {"secrets": {"disable": ["jwt"]}}, "first")
    expect(page.locator(f"#proposal-{first}")).to_contain_text("first")
    assert held, "the first refetch was not held"
    expect(page.locator(f"#proposal-{held[0]}")).to_contain_text("second, meanwhile")
    page.unroute(re.compile(r"/settings/policy/proposals"))
    w.assert_clean()


def test_accepting_a_widening_proposal_asks_first(server, new_page):
    slug = new_project(server)
    wide = propose(server, slug, {"levels": {"live": {"deploy": "full"}}}, "ship on Fridays")
    w = new_page(width=1280, height=900)
    page = w.page
    sign_in(page, server, PAGE)
    proposal = page.locator(f"#proposal-{wide}")
    expect(proposal.locator(".state-pill")).to_have_text("widens live")
    expect(proposal).to_contain_text("levels.live.deploy rises from read to full")
    w.remember_violations()
    proposal.get_by_role("button", name="Accept…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Accept policy proposal #{wide}?")
    expect(page.locator("#policy-confirm")).to_contain_text("ship on Fridays")
    w.remember_violations()
    page.get_by_role("button", name="Confirm: widen live").click()
    expect(page.locator("#flash")).to_have_text(f"Accepted policy proposal #{wide} for {slug}.")
    w.assert_clean()


# --- screenshots ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def showcase(server: RelaybayServer) -> str:
    """A project layer with a long pattern, a pending widening proposal, a broken layer."""
    slug = new_project(server, "Acme Checkout")
    patch = {**LONG_PATTERN, "levels": {"test": {"db": "ask"}}}
    accepted = propose(server, slug, patch, "archive tables are dropped by hand")
    broken = new_project(server, "Legacy Billing")
    store_broken_layer(server, broken)
    propose(
        server,
        slug,
        {"levels": {"live": {"deploy": "full", "db": "ask"}}, "guard": {"mode": "log"}},
        "The release train deploys from the agent's branch every evening; it needs deploy on "
        "live and fewer warnings while it runs the migration checks.",
    )
    return f"{slug} {accepted} {broken}"


@pytest.mark.parametrize("name", list(WIDTHS))
def test_screenshots_of_the_policy_page(server, showcase, new_page, name):
    slug, accepted, broken = showcase.split()
    w = new_page(width=WIDTHS[name], height=900)
    page = w.page
    sign_in(page, server, PAGE)
    if page.locator(f"#proposal-{accepted}").count():
        w.remember_violations()
        page.locator(f"#proposal-{accepted}").get_by_role("button", name="Accept").click()
        expect(page.locator("#flash")).to_contain_text(f"Accepted policy proposal #{accepted}")
    w.remember_violations()
    page.goto(f"{server.base_url}{PAGE}?scope={slug}")
    expect(page.locator("#policy-layers .state-pill.is-bad")).to_have_text("ignored")
    expect(page.locator("#policy-proposals .state-pill.is-warn")).to_have_text("widens live")
    assert page.evaluate(NO_OVERFLOW), page.evaluate(SCROLL_WIDTH)
    save_shot(page, f"policy-{name}", full_page=True)

    # The preview of a change, with its long JSON, fits too.
    text = page.locator("#policy-text").input_value()
    body = json.loads(text)
    body["levels"] = {**body.get("levels", {}), "live": {"default": "full"}}
    page.locator("#policy-text").fill(json.dumps(body, indent=2))
    w.remember_violations()
    page.get_by_role("button", name="Validate").click()
    expect(page.locator("#policy-preview")).to_contain_text("Widens access on live:")
    assert page.evaluate(NO_OVERFLOW), page.evaluate(SCROLL_WIDTH)
    save_shot(page, f"policy-{name}-preview", full_page=True)

    w.remember_violations()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#policy-confirm")).to_be_visible()
    assert page.evaluate(NO_OVERFLOW), page.evaluate(SCROLL_WIDTH)
    save_shot(page, f"policy-{name}-confirm", full_page=True)

    # The broken layer's scope: the ignored layer is listed with the effective policy.
    w.remember_violations()
    page.goto(f"{server.base_url}{PAGE}?scope={broken}")
    expect(page.locator("#policy-ignored")).to_contain_text(f"project:{broken}")
    assert page.evaluate(NO_OVERFLOW), page.evaluate(SCROLL_WIDTH)
    save_shot(page, f"policy-{name}-ignored", full_page=True)
    w.assert_clean()
