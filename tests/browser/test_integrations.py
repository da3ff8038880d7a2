"""Settings → Integrations in headless Chromium against a real server (§5, §9).

The server runs with HOME set to a throwaway Claude Code profile and a fake `claude`
(2.1.332) first on its PATH, so the page detects it and writes that profile's
.claude/settings.json. Each test starts from the same seeded settings file. Every test
asserts that the page logged no CSP violation and no console error. Screenshots:
tests/artifacts/browser/.
"""

from __future__ import annotations

import json
import shutil
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from agents.claude_code.setup.entries import EVENTS, HOOK_PATH
from tests.browser.helpers import sign_in, wait_state
from tests.sessions.hook_payloads import payload
from tests.support.mcp_client import call_tool
from tests.support.server import (
    RelaybayServer,
    profile_env,
    run_cli,
    seed_claude_settings,
    write_fake_claude,
)

pytestmark = [pytest.mark.browser, pytest.mark.integration]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
PAGE = "/settings/integrations"
SEED = {
    "model": "opus",
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send 'Claude Code' done"}]}]
    },
}
SESSIONSTART_NOTE = "SessionStart is written as the command hook"
NO_OVERFLOW = "document.documentElement.scrollWidth <= window.innerWidth + 1"
SCROLL_WIDTH = "document.documentElement.scrollWidth"


@dataclass
class Machine:
    server: RelaybayServer
    claude_home: Path
    claude: Path

    @property
    def settings_file(self) -> Path:
        return self.claude_home / ".claude" / "settings.json"


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Machine]:
    """A server whose HOME is a throwaway Claude Code profile, with a fake claude on PATH."""
    root = tmp_path_factory.mktemp("integrations")
    claude_home = root / "Users" / "alexandra.konstantinopoulou"
    claude_home.mkdir(parents=True)
    bin_dir = root / "bin"
    claude = write_fake_claude(bin_dir)
    env = profile_env(claude_home, bin_dir)
    server = RelaybayServer(home=root / "data", env=env).start()
    yield Machine(server, claude_home, claude)
    server.stop()


@pytest.fixture
def ig(machine: Machine) -> Machine:
    """The machine with the seeded settings file and no backups, whatever ran before."""
    seed_claude_settings(machine.settings_file, SEED)
    return machine


def check_row(page: Any, name: str) -> Any:
    return page.locator("#ig-check-items li").filter(has=page.locator("strong", has_text=name))


def test_plan_apply_and_check_from_the_page(ig, new_page, shot):
    w = new_page(**DESKTOP)
    page = w.page
    base = ig.server.base_url
    sign_in(page, ig.server, "/")
    wait_state(page, "live")
    w.remember_violations()

    # Settings in the sidebar leads to Integrations, the current tab.
    settings_link = page.locator("#sidebar").get_by_role("link", name="Settings")
    expect(settings_link).to_have_attribute("href", "/settings")
    settings_link.click()
    page.wait_for_url(base + PAGE)
    expect(page.get_by_role("heading", level=1)).to_have_text("Integrations")
    expect(page.locator('.settings-tabs [aria-current="page"]')).to_have_text("Integrations")
    expect(page.locator('#sidebar [aria-current="page"]')).to_have_text("Settings")
    detected = page.locator("#integrations-claude-code")
    expect(detected).to_contain_text(f"{ig.claude} version 2.1.332")
    expect(detected.locator(".state-pill.is-ok", has_text="Supported")).to_be_visible()
    expect(detected).to_contain_text(str(ig.settings_file))
    expect(page.locator("#ig-claude-code-mode")).to_have_value("command")
    expect(page.locator("#ig-claude-code-apply .ig-diff")).to_contain_text(base + HOOK_PATH)
    expect(page.locator("#ig-claude-code-remove")).to_contain_text("No relaybay entries to remove.")

    # The Hook type select swaps the plan section in place: no navigation.
    page.evaluate("window.__igMarker = 'kept'")
    shown_hash = page.locator("#ig-claude-code-apply input[name=expect]").input_value()
    page.locator("#ig-claude-code-mode").select_option("http")
    notes = page.locator("#ig-claude-code-apply .ig-notes")
    expect(notes).to_contain_text(SESSIONSTART_NOTE)
    expect(page.locator("#ig-claude-code-mode")).to_have_value("http")
    expect(page.locator("#ig-claude-code-apply .ig-diff")).to_contain_text('"type": "http"')
    assert page.evaluate("window.__igMarker") == "kept"
    assert page.url == base + PAGE
    assert page.locator("#ig-claude-code-apply input[name=expect]").input_value() != shown_hash
    notes.scroll_into_view_if_needed()
    shot(page, "integrations-plan-http")

    page.locator("#ig-claude-code-mode").select_option("command")
    # command mode keeps one note: why PreToolUse and PermissionRequest wait 600 s
    expect(notes).not_to_contain_text(SESSIONSTART_NOTE)
    expect(notes).to_contain_text("PreToolUse and PermissionRequest: timeout 600 s")
    expect(page.locator("#ig-claude-code-plan-title + form + p")).to_contain_text(
        "command: each hook runs"
    )
    expect(page.locator("#ig-claude-code-apply input[name=expect]")).to_have_value(shown_hash)
    assert page.evaluate("window.__igMarker") == "kept"
    shot(page, "integrations-plan-claude-code")

    # Apply… asks on a page of its own, with the diff that will be written.
    w.remember_violations()
    page.locator("#ig-claude-code-apply").get_by_role("button", name="Apply…").click()
    page.wait_for_url(base + PAGE + "/apply")
    expect(page.get_by_role("heading", level=1)).to_have_text("Apply relaybay's hooks?")
    expect(page.locator("#integrations-confirm .ig-diff")).to_contain_text(base + HOOK_PATH)
    expect(page.locator("#integrations-confirm .ig-hash")).to_have_text(shown_hash)
    expect(page.locator(".settings-tabs")).to_have_count(0)
    assert ig.settings_file.read_text() == json.dumps(SEED, indent=2) + "\n"
    shot(page, "integrations-confirm")

    w.remember_violations()
    page.get_by_role("button", name="Write the settings").click()
    page.wait_for_url(base + PAGE + "?mode=command")
    flash = page.locator("#flash")
    expect(flash).to_contain_text(f"Wrote {ig.settings_file}. Backup: ")
    expect(page.locator("#ig-claude-code-apply .ig-none")).to_contain_text("Nothing to apply")
    expect(page.locator("#ig-claude-code-remove button", has_text="Remove…")).to_be_visible()
    shot(page, "integrations-written")

    # The flash is shown once.
    w.remember_violations()
    page.reload()
    expect(page.locator("#ig-claude-code-apply .ig-none")).to_contain_text("Nothing to apply")
    expect(flash).to_have_count(0)

    # Run check: the results replace the check section in place.
    page.evaluate("window.__igMarker = 'kept'")
    page.get_by_role("button", name="Run check").click()
    server_row = check_row(page, "relaybay server")
    expect(server_row.locator(".state-pill")).to_have_text("ok", timeout=30_000)
    expect(server_row).to_contain_text("with the same token")
    expect(check_row(page, "hooks in user settings").locator(".state-pill")).to_have_text("ok")
    expect(check_row(page, "command hook runs").locator(".state-pill")).to_have_text("ok")
    approvals = check_row(page, "approvals from the board")
    expect(approvals.locator(".state-pill")).to_have_text("ok")
    expect(approvals).to_contain_text("PreToolUse and PermissionRequest wait up to 9 min")
    expect(check_row(page, "MCP registered").locator(".state-pill")).to_have_text("FAIL")
    # Codex, never connected here, is one ok line: "not connected (to connect: …)"
    expect(check_row(page, "Codex").locator(".state-pill")).to_have_text("ok")
    expect(check_row(page, "Codex")).to_contain_text("not connected (to connect: relaybay setup")
    expect(check_row(page, "Gemini CLI")).to_contain_text("not connected (to connect: relaybay")
    expect(page.locator(".ig-check-summary")).to_have_text("Check: 1 of 9 items failed.")
    expect(page.get_by_role("button", name="Run check")).to_be_enabled()
    assert page.evaluate("window.__igMarker") == "kept"
    assert page.url == base + PAGE + "?mode=command"
    shot(page, "integrations-check")

    settings = json.loads(ig.settings_file.read_text())
    assert settings["model"] == "opus"
    assert set(EVENTS) <= set(settings["hooks"])
    assert ig.server.token not in ig.settings_file.read_text()
    for event in EVENTS:
        commands = [h["command"] for g in settings["hooks"][event] for h in g["hooks"]]
        assert any(base + HOOK_PATH in c for c in commands), event
    assert len(list(ig.settings_file.parent.glob("settings.json.relaybay-backup-*"))) == 1
    w.assert_clean()


def test_the_page_and_the_check_results_fit_a_phone(ig, new_page, shot):
    w = new_page(**PHONE)
    page = w.page
    sign_in(page, ig.server, PAGE)
    expect(page.locator("#ig-claude-code-apply .ig-diff")).to_be_visible()
    assert page.evaluate(NO_OVERFLOW), page.evaluate(SCROLL_WIDTH)
    shot(page, "integrations-phone")

    page.get_by_role("button", name="Run check").click()
    server_row = check_row(page, "relaybay server")
    expect(server_row.locator(".state-pill")).to_have_text("ok", timeout=30_000)
    assert page.evaluate(NO_OVERFLOW), page.evaluate(SCROLL_WIDTH)
    shot(page, "integrations-phone-check")
    w.assert_clean()


def test_the_confirmation_and_the_written_page_fit_a_phone(ig, new_page, shot):
    """The settings path is one long word (no hyphen or space to break at), as under
    /Users/alexandra.konstantinopoulou: the confirmation page and, once written, "Nothing
    to apply: <path>" still fit a 390 px screen (they wrap the path)."""
    w = new_page(**PHONE)
    page = w.page
    sign_in(page, ig.server, PAGE)
    w.remember_violations()
    page.locator("#ig-claude-code-apply").get_by_role("button", name="Apply…").click()
    page.wait_for_url(ig.server.base_url + PAGE + "/apply")
    expect(page.get_by_role("button", name="Write the settings")).to_be_visible()
    shot(page, "integrations-phone-confirm")
    widths = {"confirmation": page.evaluate(SCROLL_WIDTH)}

    w.remember_violations()
    page.get_by_role("button", name="Write the settings").click()
    page.wait_for_url(ig.server.base_url + PAGE + "?mode=command")
    expect(page.locator("#ig-claude-code-apply .ig-none")).to_contain_text("Nothing to apply")
    page.locator("#ig-claude-code-apply").scroll_into_view_if_needed()
    shot(page, "integrations-phone-written")
    widths["written"] = page.evaluate(SCROLL_WIDTH)
    w.assert_clean()

    too_wide = {name: px for name, px in widths.items() if px > PHONE["width"] + 1}
    assert too_wide == {}, f"scrollWidth past {PHONE['width']} px: {too_wide}"


def test_an_unlinked_hook_session_appears_live_with_its_reason(ig, new_page, shot):
    """A hook session whose folder is in two projects is listed, with the reason, without
    a reload: the list refetches itself on the Inbox's change notice (§4 linking step 4)."""
    server, n = ig.server, uuid.uuid4().hex[:6]
    outer = f"/home/dev/ig-{n}"
    for slug, repo in ((f"ig-outer-{n}", outer), (f"ig-inner-{n}", f"{outer}/shop")):
        call_tool(
            server.base_url,
            server.token,
            "project_upsert",
            {"session": "agent-ig", "slug": slug, "name": slug, "repo_path": repo},
        )
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, PAGE)
    wait_state(page, "live")
    w.remember_violations()
    page.evaluate("window.__igMarker = 'kept'")

    agent_id = str(uuid.uuid4())
    body = json.dumps(
        payload("SessionStart.startup.print", session_id=agent_id, cwd=f"{outer}/shop")
    ).encode()
    request = urllib.request.Request(
        server.base_url + "/hooks/claude-code", data=body, method="POST"
    )
    request.add_header("Authorization", f"Bearer {server.token}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status in (200, 204)

    row = page.locator("#integrations-unlinked .ig-unlinked-row").filter(has_text=agent_id)
    expect(row).to_contain_text("several projects", timeout=10_000)
    expect(row).to_contain_text(f"{outer}/shop")
    assert page.evaluate("window.__igMarker") == "kept"
    row.scroll_into_view_if_needed()
    shot(page, "integrations-unlinked")
    w.assert_clean()


def test_codex_shows_beside_claude_code_and_reads_well_at_every_width(ig, new_page, shot):
    """relaybay's hooks in the profile's ~/.codex/config.toml (written by `relaybay setup
    --agent codex`): the Codex section lists each item with its pill, the failures with their
    fix, and fits 1280, 1440 and 390 px."""
    codex_home = ig.claude_home / ".codex"
    codex_home.mkdir()
    try:
        done = run_cli(
            "setup", "--agent", "codex", "--apply", "--port", str(ig.server.port),
            home=ig.server.home, env={"HOME": str(ig.claude_home)},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        for size in ({"width": 1280, "height": 900}, DESKTOP, PHONE):
            w = new_page(**size)
            page = w.page
            sign_in(page, ig.server, PAGE)
            section = page.locator("#integrations-codex")
            expect(section.get_by_role("heading", level=2)).to_have_text("Codex")
            items = section.locator("#ig-codex-items li")
            expect(items).to_have_count(6)
            held = items.filter(has=page.locator("strong", has_text="Codex approvals from"))
            expect(held).to_contain_text("--approve-for-me")
            trusted = items.filter(has=page.locator("strong", has_text="Codex hooks trusted"))
            expect(trusted.locator(".state-pill")).to_have_text("ok")
            mcp = items.filter(has=page.locator("strong", has_text="Codex MCP registered"))
            expect(mcp.locator(".state-pill")).to_have_text("FAIL")
            expect(mcp.locator(".ig-fix")).to_be_visible()
            expect(section.locator("#ig-codex-mcp")).to_contain_text("[mcp_servers.relaybay]")
            assert page.evaluate(NO_OVERFLOW), (size, page.evaluate(SCROLL_WIDTH))
            section.scroll_into_view_if_needed()
            shot(page, f"integrations-codex-{size['width']}")
            w.assert_clean()
    finally:
        shutil.rmtree(codex_home)


def test_gemini_shows_beside_the_others_and_reads_well_at_every_width(ig, new_page, shot):
    """relaybay's hooks and MCP entry in the profile's ~/.gemini/settings.json (written by
    `relaybay setup --agent gemini`): the Gemini CLI section lists each item with its pill,
    the failures (folder trust, no hook event yet) with their fix, its plan offers Remove,
    and it fits 1280 and 390 px."""
    gemini_home = ig.claude_home / ".gemini"
    try:
        done = run_cli(
            "setup", "--agent", "gemini", "--apply", "--port", str(ig.server.port),
            home=ig.server.home, env={"HOME": str(ig.claude_home), "GEMINI_CLI_HOME": ""},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        for size in ({"width": 1280, "height": 900}, PHONE):
            w = new_page(**size)
            page = w.page
            sign_in(page, ig.server, PAGE)
            section = page.locator("#integrations-gemini")
            expect(section.get_by_role("heading", level=2)).to_have_text("Gemini CLI")
            items = section.locator("#ig-gemini-items li")
            expect(items).to_have_count(6)
            held = items.filter(has=page.locator("strong", has_text="Gemini approvals from"))
            expect(held).to_contain_text("never reach a hook")
            hooks = items.filter(has=page.locator("strong", has_text="Gemini hooks in settings"))
            expect(hooks.locator(".state-pill")).to_have_text("ok")
            expect(hooks).to_contain_text("failing open")
            mcp = items.filter(has=page.locator("strong", has_text="Gemini MCP server"))
            expect(mcp.locator(".state-pill")).to_have_text("ok")
            trust = items.filter(has=page.locator("strong", has_text="Gemini folder trust"))
            expect(trust.locator(".ig-fix")).to_contain_text("TRUST_FOLDER")
            expect(section.locator("#ig-gemini-connect")).to_contain_text("RELAYBAY_TOKEN")
            plan = page.locator("#integrations-plan-gemini")
            expect(plan.get_by_role("button", name="Remove")).to_be_visible()
            assert page.evaluate(NO_OVERFLOW), (size, page.evaluate(SCROLL_WIDTH))
            section.scroll_into_view_if_needed()
            shot(page, f"integrations-gemini-{size['width']}")
            plan.scroll_into_view_if_needed()
            shot(page, f"integrations-gemini-plan-{size['width']}")
            w.assert_clean()
    finally:
        shutil.rmtree(gemini_home, ignore_errors=True)
