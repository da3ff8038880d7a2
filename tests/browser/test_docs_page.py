"""Docs & rules in headless Chromium against a real server (§8 Docs & rules page).

Agents write documents, decisions, notes and blocks through the real MCP client; the owner
searches, opens a document, compares two versions and edits a block on the page; a decision
added over MCP appears without a reload. Every flow runs at desktop and at 390 px and checks
that nothing scrolls sideways and that the page logged no CSP violation and no console
error. Screenshots: tests/artifacts/browser/.
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

from tests.browser.conftest import save_shot
from tests.browser.helpers import sign_in, wait_state
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

FLOW_WIDTHS = {"desktop": 1280, "phone": 390}
SHOT_WIDTHS = {"desktop-1280": 1280, "desktop-1440": 1440, "phone": 390}
NO_OVERFLOW = "document.documentElement.scrollWidth <= window.innerWidth + 1"
WIDER = """() => Array.from(document.querySelectorAll("main *"))
  .filter(el => el.getBoundingClientRect().right > window.innerWidth + 1)
  .slice(0, 5)
  .map(el => el.tagName + "." + el.className + " " + JSON.stringify(el.textContent.slice(0, 40)))"""
_numbers = itertools.count(1)

RUNBOOK_V1 = """# Release runbook

Ship from `main` only.

## Before the release

- Freeze merges at noon.
- Check the rollback tag exists.

## Rollback

Roll back by tag, never by hand: `git checkout <tag>`.
"""
RUNBOOK_V2 = RUNBOOK_V1.replace("Freeze merges at noon.", "Freeze merges at 10:00.").replace(
    "never by hand", "never by hand <script>alert(1)</script>"
)


def agent(server: RelaybayServer, tool: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, tool, {"session": "agent-docs", **args})


def seeded(server: RelaybayServer) -> str:
    slug = f"docs-shop-{next(_numbers)}"
    agent(server, "project_upsert", slug=slug, name="Docs Shop")
    agent(
        server,
        "doc_update",
        project=slug,
        name="runbook",
        text=RUNBOOK_V1,
        base_version=0,
        title="Release runbook",
        kind="runbook",
    )
    agent(
        server,
        "doc_update",
        project=slug,
        name="runbook",
        text=RUNBOOK_V2,
        base_version=1,
        reason="earlier freeze",
    )
    agent(server, "decision_add", project=slug, text="Releases go out on Tuesdays")
    agent(
        server,
        "memory_add",
        scope="project",
        project=slug,
        kind="project",
        title="Staging needs the VPN",
        body="Connect **wg0** before any rollback drill.",
    )
    agent(
        server,
        "block_set",
        project=slug,
        label="persona",
        body="Be brief.",
        base_version=0,
        description="How agents talk here",
    )
    return slug


def no_overflow(page: Any) -> None:
    assert page.evaluate(NO_OVERFLOW), page.evaluate(WIDER)


@pytest.mark.parametrize("name", list(FLOW_WIDTHS))
def test_search_open_a_document_and_diff_two_versions(server, new_page, name):
    slug = seeded(server)
    w = new_page(width=FLOW_WIDTHS[name], height=900)
    page = w.page
    sign_in(page, server, f"/p/{slug}/docs")
    expect(page.get_by_role("heading", level=1)).to_have_text("Docs & rules")
    expect(page.locator('#sidebar [aria-current="page"]')).to_have_text("Docs & rules")
    expect(page.locator("#docs-documents")).to_contain_text("Release runbook")
    expect(page.locator("#docs-decisions")).to_contain_text("Releases go out on Tuesdays")
    expect(page.locator("#docs-notes strong", has_text="wg0")).to_be_visible()
    expect(page.locator("#docs-rules")).to_contain_text("Working rules for")
    no_overflow(page)

    page.get_by_role("searchbox").fill("rollback")
    w.remember_violations()
    page.get_by_role("button", name="Search", exact=True).click()
    hits = page.locator("#docs-hits")
    expect(hits).to_contain_text("Release runbook")
    expect(hits).to_contain_text("Staging needs the VPN")
    no_overflow(page)

    w.remember_violations()
    hits.get_by_role("link", name="Release runbook").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Release runbook")
    expect(page.locator("#doc-body #rollback")).to_have_text("Rollback")
    expect(page.locator("#doc-body")).to_contain_text("<script>alert(1)</script>")
    expect(page.locator("#doc-sections a")).to_have_count(3)
    no_overflow(page)

    page.locator("#diff-from").select_option("1")
    page.locator("#diff-to").select_option("2")
    w.remember_violations()
    page.get_by_role("button", name="Compare").click()
    expect(page.locator(".diff-line.is-del")).to_have_count(2)
    expect(page.locator(".diff-line.is-add").first).to_contain_text("Freeze merges at 10:00.")
    no_overflow(page)

    w.remember_violations()
    page.locator("#doc-history").get_by_role("link", name="Version 1").click()
    expect(page.locator("#older")).to_contain_text("You are reading version 1")
    w.assert_clean()


@pytest.mark.parametrize("name", list(FLOW_WIDTHS))
def test_include_superseded_brings_replaced_decisions_back_into_the_search(server, new_page, name):
    slug = seeded(server)
    answer = agent(server, "decision_add", project=slug, text="Releases go out on Fridays")
    old = re.search(r"Recorded decision #(\d+)", answer)
    assert old is not None, answer
    agent(
        server,
        "decision_add",
        project=slug,
        text="Releases go out on Thursdays",
        supersedes=int(old[1]),
    )
    w = new_page(width=FLOW_WIDTHS[name], height=900)
    page = w.page
    sign_in(page, server, f"/p/{slug}/docs")
    expect(page.get_by_label("Include superseded")).not_to_be_checked()
    no_overflow(page)

    page.get_by_role("searchbox").fill("releases")
    w.remember_violations()
    page.get_by_role("button", name="Search", exact=True).click()
    hits = page.locator("#docs-hits")
    expect(hits).to_contain_text("Releases go out on Thursdays")
    expect(hits).not_to_contain_text("Releases go out on Fridays")
    expect(page.get_by_label("Include superseded")).not_to_be_checked()

    page.get_by_label("Include superseded").check()
    w.remember_violations()
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page).to_have_url(f"{server.base_url}/p/{slug}/docs?q=releases&superseded=1")
    expect(hits).to_contain_text("Releases go out on Fridays")
    expect(hits.locator(".docs-hit.is-superseded")).to_have_count(1)
    expect(page.get_by_label("Include superseded")).to_be_checked()
    no_overflow(page)
    save_shot(page, f"docs-search-superseded-{name}")
    w.assert_clean()


@pytest.mark.parametrize("name", list(FLOW_WIDTHS))
def test_owner_edits_a_block_and_a_refusal_keeps_the_text(server, new_page, name):
    slug = seeded(server)
    w = new_page(width=FLOW_WIDTHS[name], height=900)
    page = w.page
    sign_in(page, server, f"/p/{slug}/docs")
    block = page.locator("#block-project-persona")
    block.locator("summary", has_text="Edit").click()
    block.locator('input[name="char_limit"]').fill("10")
    block.locator('textarea[name="body"]').fill("Far too long for ten characters.")
    no_overflow(page)
    w.remember_violations()
    block.get_by_role("button", name="Save block").click()
    expect(page.locator("#refusal")).to_contain_text("the limit is 10")
    block = page.locator("#block-project-persona")
    expect(block.locator('textarea[name="body"]')).to_have_value("Far too long for ten characters.")
    no_overflow(page)

    block.locator('input[name="char_limit"]').fill("200")
    block.locator('input[name="owner_only"]').check()
    w.remember_violations()
    block.get_by_role("button", name="Save block").click()
    expect(page.locator("#flash")).to_have_text("Block persona saved (version 2).")
    expect(page.locator("#block-project-persona")).to_contain_text("owner-only")
    # The refused write answered 400 (Chromium logs that much) and loaded like any page.
    assert w.csp_violations() == []
    assert [e for e in w.errors() if "status of 400 (Bad Request)" not in e] == []


def test_decisions_and_notes_refresh_live_and_blocks_stay(server, new_page):
    slug = seeded(server)
    w = new_page(width=1280, height=900)
    page = w.page
    sign_in(page, server, f"/p/{slug}/docs")
    wait_state(page, "live")
    page.evaluate("window.__docsMarker = 'kept'")
    block = page.locator("#block-project-persona")
    block.locator("summary", has_text="Edit").click()
    block.locator('textarea[name="body"]').fill("typed, not saved")

    agent(server, "decision_add", project=slug, text="Hotfixes skip the freeze")
    expect(page.locator("#docs-decisions")).to_contain_text("Hotfixes skip the freeze")
    agent(
        server,
        "memory_add",
        scope="project",
        project=slug,
        kind="project",
        title="Tag names are vYYYY.MM.DD",
        body="Always.",
    )
    expect(page.locator("#docs-notes")).to_contain_text("Tag names are vYYYY.MM.DD")
    assert page.evaluate("window.__docsMarker") == "kept"
    expect(block.locator('textarea[name="body"]')).to_have_value("typed, not saved")
    expect(page.locator("#docs-live")).to_have_count(1)
    w.assert_clean()


def test_an_open_document_shows_an_agents_edit_live(server, new_page):
    slug = seeded(server)
    w = new_page(width=1280, height=900)
    page = w.page
    sign_in(page, server, f"/p/{slug}/docs/runbook")
    wait_state(page, "live")
    page.evaluate("window.__docMarker = 'kept'")
    agent(
        server,
        "doc_update",
        project=slug,
        name="runbook",
        section="rollback",
        text="## Rollback\n\nRedeploy the previous tag; never restore a backup first.\n",
        base_version=2,
        reason="safer order",
    )
    expect(page.locator(".doc-main")).to_contain_text("never restore a backup first")
    expect(page.locator("#doc-live")).to_contain_text("version 3 of 3")
    expect(page.get_by_role("link", name="Version 3")).to_have_count(1)
    assert page.evaluate("window.__docMarker") == "kept"  # refreshed in place, not reloaded
    expect(page.locator("#doc-live")).to_have_count(1)
    w.assert_clean()


def test_owner_creates_a_block_with_the_new_block_form(server, new_page):
    slug = seeded(server)
    w = new_page(width=390, height=900)
    page = w.page
    sign_in(page, server, f"/p/{slug}/docs")
    form = page.locator("#block-new")
    form.locator("summary", has_text="New block").click()
    form.get_by_label("Label").fill("release-notes")
    form.get_by_label("Text").fill("Write them in the past tense.")
    no_overflow(page)
    form.get_by_role("button", name="Create block").click()
    expect(page.locator("#flash")).to_have_text("Block release-notes saved (version 1).")
    expect(page.locator("#block-project-release-notes")).to_contain_text("v1 · 29/2000 chars")
    w.assert_clean()


@pytest.mark.parametrize("name", list(SHOT_WIDTHS))
def test_screenshots(server, new_page, name):
    slug = seeded(server)
    w = new_page(width=SHOT_WIDTHS[name], height=900)
    page = w.page
    sign_in(page, server, f"/p/{slug}/docs?q=rollback")
    no_overflow(page)
    save_shot(page, f"docs-page-{name}", full_page=True, parts=4)
    page.goto(f"{server.base_url}/p/{slug}/docs/runbook/diff?from=1&to=2")
    no_overflow(page)
    save_shot(page, f"docs-document-{name}", full_page=True, parts=4)
    w.assert_clean()
