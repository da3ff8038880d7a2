"""The Gemini CLI check items: its hooks present, failing open and not switched off, the
command running, relaybay's MCP entry, the token here, the folders Gemini trusts (it runs no
hook in the others) and a hook event seen — every failure with its fix, nothing written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agents.gemini_cli.setup import checks, detect, entries, trust
from agents.gemini_cli.setup.plan import make_plan
from agents.setup.plan import write_plan
from agents.setup.target import Target

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gemini-cli-0.61.0" / "config"
BASE = "http://127.0.0.1:8765"


@pytest.fixture
def target(tmp_path: Path) -> Target:
    token = tmp_path / "token"
    token.write_text("the-token\n")
    return Target(base_url=BASE, token_file=str(token), python=sys.executable)


@pytest.fixture
def home(tmp_path: Path, target: Target) -> Path:
    """A Gemini home with relaybay's plan applied."""
    folder = tmp_path / "home"
    write_plan(make_plan(detect.settings_file(folder), target))
    return folder


def settings(home: Path) -> dict:
    return json.loads(detect.settings_file(home).read_text())


def rewrite(home: Path, data: dict) -> None:
    detect.settings_file(home).write_text(json.dumps(data, indent=2) + "\n")


def items(home: Path, target: Target, *, env: bool = False) -> dict:
    found = checks.gemini_items(home, BASE, target.token_file, env=env)
    return {i.name: i for i in found}


def test_after_apply_every_item_is_ok(home, target) -> None:
    found = items(home, target)
    assert list(found) == [checks.HOOKS, checks.RUNS, checks.APPROVALS, checks.MCP]
    assert all(i.ok for i in found.values()), found
    assert found[checks.APPROVALS].detail == (
        "BeforeTool waits up to 9 min for you; only the guard's ask can be approved on the "
        "board: Gemini's own confirmations happen only in its TUI and never reach a hook"
    )
    assert found[checks.HOOKS].detail.endswith("failing open")
    assert "(token from ${RELAYBAY_TOKEN}), trusted" in found[checks.MCP].detail


def test_a_beforetool_hook_an_older_setup_wrote_cannot_wait_for_the_board(home, target) -> None:
    """No --hold, 5000 ms: the guard's ask cannot be approved from the board; the fix is
    setup's --apply, which the owner can also turn off with approval_wait_seconds 0."""
    data = settings(home)
    hook = data["hooks"]["BeforeTool"][0]["hooks"][0]
    hook["command"] = hook["command"].replace(" --hold 590", "")
    hook["timeout"] = 5000
    rewrite(home, data)
    item = items(home, target)[checks.APPROVALS]
    assert not item.ok
    assert item.detail.startswith(
        "BeforeTool cannot wait for your Approve or Deny: BeforeTool has no --hold (timeout 5 s)"
    )
    assert item.fix.startswith("relaybay setup --agent gemini --apply")
    assert entries.is_relaybay_hook(hook)
    assert entries.fails_open(hook)
    hook["command"] = hook["command"].replace(" 2>/dev/null", " --hold 590 2>/dev/null")
    rewrite(home, data)
    item = items(home, target)[checks.APPROVALS]
    assert "BeforeTool's timeout 5 s is not above its hold 590 s" in item.detail


def test_missing_events_another_server_and_a_closed_hook_fail_with_apply(home, target) -> None:
    data = settings(home)
    del data["hooks"]["AfterTool"]
    hook = data["hooks"]["BeforeTool"][0]["hooks"][0]
    hook["command"] = hook["command"].removesuffix(" " + entries.FAIL_OPEN)
    rewrite(home, data)
    item = items(home, target)[checks.HOOKS]
    assert (item.ok, item.detail) == (False, "some events are missing: AfterTool")
    assert item.fix.startswith("relaybay setup --agent gemini --apply")
    assert item.fix.endswith(f" --gemini-home {home}")  # not the default home: named
    write_plan(make_plan(detect.settings_file(home), target))
    data = settings(home)
    hook = data["hooks"]["BeforeTool"][0]["hooks"][0]
    hook["command"] = hook["command"].removesuffix(" " + entries.FAIL_OPEN)
    rewrite(home, data)
    item = items(home, target)[checks.HOOKS]
    assert "the hooks of BeforeTool do not fail open" in item.detail
    other = Target("http://127.0.0.1:9999", target.token_file, target.python)
    item = checks.gemini_items(home, other.base_url, target.token_file, env=False)[0]
    assert item.detail.startswith("no relaybay hooks for http://127.0.0.1:9999/hooks/gemini")
    assert "(they point at http://127.0.0.1:8765/hooks/gemini)" in item.detail


@pytest.mark.parametrize(
    ("config", "detail", "fix"),
    [
        ({"enabled": False}, "hooksConfig.enabled is false", "remove hooksConfig.enabled"),
        ({"disabled": ["relaybay"]}, 'names "relaybay"', 'take "relaybay" out of'),
    ],
)
def test_hooks_switched_off_by_hooks_config_fail(home, target, config, detail, fix) -> None:
    rewrite(home, {**settings(home), "hooksConfig": config})
    item = items(home, target)[checks.HOOKS]
    assert not item.ok
    assert detail in item.detail
    assert item.fix.startswith(fix)


def test_mcp_entry_items_and_their_fixes(home, target) -> None:
    data = settings(home)
    entry = data["mcpServers"]["relaybay"]
    for change, detail in (
        ({"trust": False}, "without trust: true"),
        ({"httpUrl": "http://127.0.0.1:1/mcp"}, "registered with http://127.0.0.1:1/mcp, not"),
        ({"headers": {}}, "without an Authorization header"),
    ):
        rewrite(home, {**data, "mcpServers": {"relaybay": {**entry, **change}}})
        item = items(home, target)[checks.MCP]
        assert (item.ok, detail in item.detail) == (False, True), item
        assert item.fix.startswith("relaybay setup --agent gemini --apply")
    literal = {**entry, "headers": {"Authorization": "Bearer the-token"}}
    rewrite(home, {**data, "mcpServers": {"relaybay": literal}})
    item = items(home, target)[checks.MCP]
    assert item.ok
    assert "its token is written in" in item.detail
    rewrite(home, {"hooks": data["hooks"]})
    item = items(home, target)[checks.MCP]
    assert (item.ok, item.detail) == (
        False,
        f"relaybay is not in mcpServers of {detect.settings_file(home)}",
    )


def test_the_token_variable_must_hold_the_token_where_gemini_starts(
    home, target, monkeypatch
) -> None:
    monkeypatch.delenv("RELAYBAY_TOKEN", raising=False)
    item = items(home, target, env=True)[checks.MCP_TOKEN]
    assert not item.ok
    assert item.fix.startswith(f'export RELAYBAY_TOKEN="$(cat {target.token_file})"')
    monkeypatch.setenv("RELAYBAY_TOKEN", "the-token")
    assert items(home, target, env=True)[checks.MCP_TOKEN].ok


def test_connected_is_what_relaybay_wrote(tmp_path, home) -> None:
    empty = tmp_path / "empty"
    assert not detect.connected(empty)
    assert detect.connected(home)
    only_mcp = tmp_path / "mcp"
    path = detect.settings_file(only_mcp)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"relaybay": {"httpUrl": "x"}}}))
    assert detect.connected(only_mcp)
    path.write_text('{"mcpServers": {"relaybay": ')  # broken, but it names relaybay
    assert detect.connected(only_mcp)
    [item] = checks.gemini_items(only_mcp, BASE, "/nope", env=False)
    assert (item.ok, item.name) == (False, checks.SETTINGS)
    assert item.fix.startswith(f"repair {path}, then relaybay setup --agent gemini --apply")


def test_detection_is_one_ok_line_when_not_connected(tmp_path, home) -> None:
    missing = detect.Gemini(None, None)
    item = checks.detected_item(tmp_path / "none", missing, connected=False)
    assert item.ok
    assert item.detail.startswith("not connected (to connect: relaybay setup --agent gemini")
    item = checks.detected_item(home, missing, connected=True)
    assert not item.ok
    assert item.fix.startswith("npm install -g @google/gemini-cli, or relaybay setup")


# --- folder trust -----------------------------------------------------------------------------


def test_the_trust_rules_are_read_as_gemini_reads_them(tmp_path) -> None:
    project = tmp_path / "work" / "shop"
    (project / "src").mkdir(parents=True)
    sibling = tmp_path / "work" / "blog"
    sibling.mkdir()
    rules = {str(project): "TRUST_FOLDER"}
    assert trust.trusted(str(project), rules)
    assert trust.trusted(str(project / "src"), rules)
    assert not trust.trusted(str(sibling), rules)
    assert trust.trusted(str(sibling), {str(project): "TRUST_PARENT"})  # the parent, /work
    rules = {str(tmp_path): "TRUST_FOLDER", str(project): "DO_NOT_TRUST"}
    assert trust.trusted(str(sibling), rules)
    assert not trust.trusted(str(project / "src"), rules)  # the longest rule decides
    assert not trust.trusted(str(project), {})


def test_the_captured_file_and_comments_are_read(tmp_path) -> None:
    rules, error = trust.read_rules(FIXTURES / "trustedFolders.json")
    assert (rules, error) == ({"/home/dev/acme-shop": "TRUST_FOLDER"}, None)
    path = tmp_path / "t.json"
    path.write_text('{\n  // mine\n  "/a//b": "TRUST_FOLDER" /* x */\n}\n')
    assert trust.read_rules(path) == ({"/a//b": "TRUST_FOLDER"}, None)
    path.write_text('{"/a": "TRUST_ME"}')
    rules, error = trust.read_rules(path)
    assert rules is None
    assert "trust level Gemini does not know" in error
    assert trust.read_rules(tmp_path / "none.json") == ({}, None)


def test_untrusted_folders_fail_with_how_to_trust_them_and_nothing_is_written(
    tmp_path, home, monkeypatch
) -> None:
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)
    shop, blog = tmp_path / "shop", tmp_path / "blog"
    shop.mkdir()
    blog.mkdir()
    trusted_file = detect.trusted_folders_file(home)
    before = sorted(home.rglob("*"))
    item = trust.trust_item(home, [str(shop), str(blog)], where=checks.KNOWN)
    assert not item.ok
    assert "Gemini CLI runs no hook" in item.detail
    assert item.detail.endswith(
        f"does not trust {shop}, {blog} (the project folders relaybay knows)"
    )
    assert f'"{shop}": "TRUST_FOLDER" to {trusted_file}' in item.fix
    assert "--skip-trust" in item.fix
    assert "GEMINI_CLI_TRUST_WORKSPACE=true" in item.fix
    assert sorted(home.rglob("*")) == before  # trustedFolders.json is never written
    trusted_file.write_text(json.dumps({str(tmp_path): "TRUST_FOLDER"}))
    item = trust.trust_item(home, [str(shop), str(blog)], where=checks.KNOWN)
    assert item.ok, item
    rewrite(home, {**settings(home), "security": {"folderTrust": {"enabled": False}}})
    trusted_file.write_text("{broken")
    assert trust.trust_item(home, [str(shop)], where=checks.KNOWN).ok


def test_a_broken_trust_file_fails_as_gemini_would_refuse_to_start(tmp_path, home) -> None:
    detect.trusted_folders_file(home).write_text("[1]")
    item = trust.trust_item(home, [str(tmp_path)], where=checks.CURRENT)
    assert not item.ok
    assert item.fix == f"repair {detect.trusted_folders_file(home)}"


@pytest.mark.django_db(transaction=True)
def test_the_known_folders_are_the_projects_and_the_sessions(tmp_path, home) -> None:
    from agents.gemini_cli import hooks as adapter
    from sessions.hooks.service import hook_event
    from tests.sessions.gemini_payloads import gemini_payload
    from tests.tasks.factories import make_project as project

    shop = tmp_path / "shop"
    shop.mkdir()
    project("shop", repo_path=str(shop))
    project("gone", repo_path=str(tmp_path / "gone"))  # not on this machine: not asked about
    assert checks.known_folders() == [str(shop)]
    trust_item, seen = checks.database_items(home, database_file=False)
    assert not trust_item.ok
    assert str(shop) in trust_item.detail
    assert (seen.ok, seen.fix) == (False, checks.RUN_GEMINI)

    hook_event(adapter.parse(gemini_payload("SessionStart.startup.p", cwd=str(tmp_path)), {}))
    assert checks.known_folders() == [str(shop), str(tmp_path)]
    _, seen = checks.database_items(home, database_file=False)
    assert seen.ok, seen
    assert seen.detail.startswith("last from session ")
