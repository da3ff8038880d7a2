"""The Codex check items (issue 30 item 4): present, trusted, the command runs, MCP registered,
the token in the environment and a hook event seen — every failure with its fix."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from agents.codex.setup import checks as codex_checks
from agents.codex.setup import config as codex
from agents.codex.setup.plan import make_codex_plan
from agents.setup.plan import write_plan
from agents.setup.target import Target

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "codex-0.169.0" / "config"
HAND_WRITTEN = Path(__file__).parent / "corpus" / "codex_hand_written.toml"
BASE = "http://127.0.0.1:8765"
NO_CODEX = codex.Codex(None, None)
FAKE_CODEX = """#!/bin/sh
case "$*" in
  --version) echo "codex-cli 0.169.0";;
  "mcp add --help") echo "Usage: codex mcp add [OPTIONS] <NAME>"
                    echo "  --bearer-token-env-var <ENV_VAR>";;
esac
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A Codex folder with the hand-written config.toml and relaybay's block applied."""
    folder = tmp_path / "codex"
    folder.mkdir()
    shutil.copyfile(HAND_WRITTEN, folder / "config.toml")
    return folder


@pytest.fixture
def target(tmp_path: Path) -> Target:
    token = tmp_path / "token"
    token.write_text("the-token\n")
    return Target(base_url=BASE, token_file=str(token), python=sys.executable)


@pytest.fixture
def fake_codex(tmp_path: Path) -> codex.Codex:
    exe = tmp_path / "bin" / "codex"
    exe.parent.mkdir()
    exe.write_text(FAKE_CODEX)
    exe.chmod(0o755)
    found = codex.detect_codex(str(exe.parent))
    assert found == codex.Codex(str(exe), (0, 169, 0))
    return found


def applied(home: Path, target: Target) -> dict:
    write_plan(make_codex_plan(codex.config_file(home), target))
    doc, error = codex.read_config(codex.config_file(home))
    assert error is None
    return doc


def by_name(items: list) -> dict:
    return {i.name: i for i in items}


def test_after_apply_the_hooks_are_present_trusted_and_run(home, target) -> None:
    items = by_name(codex_checks.hook_items(home, BASE, applied(home, target)))
    assert list(items) == [
        codex_checks.HOOKS,
        codex_checks.TRUSTED,
        codex_checks.RUNS,
        codex_checks.APPROVALS,
    ]
    assert all(i.ok for i in items.values()), items
    assert items[codex_checks.APPROVALS].detail == (
        "PreToolUse and PermissionRequest wait up to 9 min for you; `codex exec` asks a "
        "PermissionRequest only with on-request approvals (--approve-for-me); the guard's ask "
        "waits in every mode"
    )
    assert f"all 7 events point at {BASE}/hooks/codex in {home}/config.toml" in (
        items[codex_checks.HOOKS].detail
    )
    assert "without --dangerously-bypass-hook-trust" in items[codex_checks.TRUSTED].detail
    assert "imports relaybay.hook_client" in items[codex_checks.RUNS].detail


def test_hooks_an_older_setup_wrote_cannot_wait_for_the_board(home, target) -> None:
    """relaybay's block as a setup before approvals wrote it: every event 5 s, no --hold."""
    doc = applied(home, target)
    for event in ("PreToolUse", "PermissionRequest"):
        for group in doc["hooks"][event]:
            for handler in group["hooks"]:
                handler["command"] = handler["command"].removesuffix(" --hold 590")
                handler["timeout"] = 5
    item = by_name(codex_checks.hook_items(home, BASE, doc))[codex_checks.APPROVALS]
    assert not item.ok
    assert item.detail.startswith(
        "PreToolUse and PermissionRequest cannot wait for your Approve or Deny: PreToolUse "
        "has no --hold (timeout 5 s); PermissionRequest has no --hold (timeout 5 s)"
    )
    assert item.fix.startswith("relaybay setup --agent codex --apply")
    assert item.fix.endswith(f"--codex-home {home}")


def test_a_foreign_group_added_before_relaybays_later_makes_it_untrusted(home, target) -> None:
    """Trust keys name the place: a group the user puts above relaybay's moves it down."""
    applied(home, target)
    path = codex.config_file(home)
    path.write_text(
        '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "date"\n\n'
        + path.read_text()
    )
    doc, _ = codex.read_config(path)
    trusted = by_name(codex_checks.hook_items(home, BASE, doc))[codex_checks.TRUSTED]
    assert not trusted.ok
    assert trusted.detail == "Codex skips these hooks silently: stop (2:0) has no trust entry"
    assert trusted.fix.startswith("relaybay setup --agent codex --apply")
    assert trusted.fix.endswith(f"--codex-home {home}")
    write_plan(make_codex_plan(path, target))  # the fix
    doc, _ = codex.read_config(path)
    assert by_name(codex_checks.hook_items(home, BASE, doc))[codex_checks.TRUSTED].ok


def test_a_hash_for_another_command_or_a_disabled_hook_is_not_trusted(home, target) -> None:
    doc = applied(home, target)
    key = f"{codex.config_file(home)}:session_end:0:0"
    doc["hooks"]["state"][key]["trusted_hash"] = "sha256:" + "1" * 64
    stop = f"{codex.config_file(home)}:stop:1:0"
    doc["hooks"]["state"][stop]["enabled"] = False
    trusted = by_name(codex_checks.hook_items(home, BASE, doc))[codex_checks.TRUSTED]
    assert not trusted.ok
    assert "session_end (0:0) is trusted for another command or place" in trusted.detail
    assert "stop (1:0) is disabled (enabled = false)" in trusted.detail


def test_hooks_for_another_server_or_missing_events_fail_with_apply(home, target) -> None:
    other = Target(**{**target.__dict__, "base_url": "http://127.0.0.1:9999"})
    doc = applied(home, other)
    [item] = codex_checks.hook_items(home, BASE, doc)
    assert not item.ok
    assert item.detail.endswith("(they point at http://127.0.0.1:9999/hooks/codex)")
    assert "setup --agent codex --apply" in item.fix

    doc = applied(home, target)
    del doc["hooks"]["PermissionRequest"]
    items = by_name(codex_checks.hook_items(home, BASE, doc))
    assert items[codex_checks.HOOKS].detail == "some events are missing: PermissionRequest"


def test_mcp_registration_items_and_their_fixes(home, target, fake_codex) -> None:
    token_file = target.token_file
    doc = applied(home, target)  # the hand-written file has no [mcp_servers.relaybay]
    [item] = codex_checks.mcp_items(home, BASE, doc, NO_CODEX, token_file, env=False)
    assert not item.ok
    assert item.fix == (
        f"add a table [mcp_servers.relaybay] to {home}/config.toml with "
        f'url = "{BASE}/mcp" and bearer_token_env_var = "RELAYBAY_TOKEN"'
    )
    [item] = codex_checks.mcp_items(home, BASE, doc, fake_codex, token_file, env=False)
    assert item.fix == (
        f"codex mcp add relaybay --url {BASE}/mcp --bearer-token-env-var RELAYBAY_TOKEN"
    )

    fixture, _ = codex.read_config(FIXTURE / "config.toml")  # registered on another port
    [item] = codex_checks.mcp_items(home, BASE, fixture, fake_codex, token_file, env=False)
    assert item.detail == f"relaybay is registered with http://127.0.0.1:18851/mcp, not {BASE}/mcp"
    assert item.fix.startswith("codex mcp remove relaybay, then codex mcp add relaybay ")

    inline = {"mcp_servers": {"relaybay": {"url": f"{BASE}/mcp", "bearer_token": "x"}}}
    [item] = codex_checks.mcp_items(home, BASE, inline, NO_CODEX, token_file, env=False)
    assert "fatal config error" in item.detail
    assert 'bearer_token_env_var = "RELAYBAY_TOKEN"' in item.fix

    headers, _ = codex.read_config(FIXTURE / "config.http_headers.toml")
    headers["mcp_servers"]["relaybay"]["url"] = f"{BASE}/mcp"
    [item] = codex_checks.mcp_items(home, BASE, headers, NO_CODEX, token_file, env=True)
    assert item.ok
    assert item.detail.endswith("(token in http_headers)")


def test_the_token_variable_must_hold_the_token_where_codex_starts(
    home, target, monkeypatch
) -> None:
    doc = {
        "mcp_servers": {
            "relaybay": {"url": f"{BASE}/mcp", "bearer_token_env_var": "RELAYBAY_TOKEN"}
        }
    }
    monkeypatch.delenv("RELAYBAY_TOKEN", raising=False)
    registered, token = codex_checks.mcp_items(
        home, BASE, doc, NO_CODEX, target.token_file, env=True
    )
    assert registered.ok
    assert registered.detail.endswith("(token from $RELAYBAY_TOKEN)")
    assert not token.ok
    assert token.fix.startswith(f'export RELAYBAY_TOKEN="$(cat {target.token_file})"')
    monkeypatch.setenv("RELAYBAY_TOKEN", "the-token")
    _, token = codex_checks.mcp_items(home, BASE, doc, NO_CODEX, target.token_file, env=True)
    assert token.ok
    # the page (env=False) does not ask: the server's environment is not Codex's
    assert len(codex_checks.mcp_items(home, BASE, doc, NO_CODEX, target.token_file, env=False)) == 1


def test_detection_is_one_ok_line_when_codex_is_not_connected(tmp_path, home, target, fake_codex):
    empty = tmp_path / "nothing"
    assert not codex_checks.connected(empty)
    item = codex_checks.detected_item(empty, NO_CODEX, connected=False)
    assert item.ok
    command = codex_checks.setup_fix(empty, "--apply")  # this server's flags, if any
    assert command.startswith("relaybay setup --agent codex --apply")
    assert command.endswith(f"--codex-home {empty}")
    assert item.detail == f"not connected (to connect: {command}); `codex` not found on PATH"
    # `codex` on PATH alone is not connected: where it is, and the command, in one ok line
    item = codex_checks.detected_item(empty, fake_codex, connected=False)
    assert item.ok
    assert item.detail.startswith("not connected (to connect: relaybay setup --agent codex")
    assert item.detail.endswith(f"; {fake_codex.path} version 0.169.0")

    assert not codex_checks.connected(home)  # a hand-written config.toml without relaybay
    applied(home, target)
    assert codex_checks.connected(home)
    item = codex_checks.detected_item(home, NO_CODEX, connected=True)
    assert not item.ok
    assert item.fix.startswith(
        "npm install -g @openai/codex, or relaybay setup --agent codex --remove"
    )
    item = codex_checks.detected_item(home, fake_codex, connected=True)
    assert item.ok
    assert item.detail == f"{fake_codex.path} version 0.169.0"


def test_connected_is_what_relaybay_wrote_in_config_toml(tmp_path) -> None:
    """The MCP table alone connects; a config.toml that cannot be parsed counts only when
    it names relaybay, so its failure with the repair is shown rather than hidden."""
    home = tmp_path / "codex"
    home.mkdir()
    config = codex.config_file(home)
    config.write_text('[mcp_servers.relaybay]\nurl = "http://127.0.0.1:8765/mcp"\n')
    assert codex_checks.connected(home)
    config.write_text('model = "o4"\n[mcp_servers.docs]\ncommand = "npx"\n')
    assert not codex_checks.connected(home)
    config.write_text("model = \n")
    assert not codex_checks.connected(home)
    config.write_text("model = \n# relaybay-hook went here\n")
    assert codex_checks.connected(home)


def test_an_unreadable_config_is_one_failed_item_with_its_fix(home, target) -> None:
    codex.config_file(home).write_text("model = \n")
    [item] = codex_checks.codex_items(home, BASE, target.token_file, NO_CODEX, seen=False)
    assert not item.ok
    assert "is not valid TOML" in item.detail
    assert item.fix.startswith(f"repair {home}/config.toml, then relaybay setup --agent codex")


@pytest.mark.django_db(transaction=True)
def test_a_hook_event_is_seen_once_codex_reported_a_session() -> None:
    from agents.codex import hooks as adapter
    from sessions.hooks.service import hook_event
    from tests.sessions.codex_payloads import codex_payload

    item = codex_checks.seen_item(database_file=False)
    assert not item.ok
    assert item.detail == "no session reported by Codex's hooks yet"
    assert item.fix == codex_checks.RUN_CODEX

    hook_event(adapter.parse(codex_payload("SessionStart.startup.exec"), {}))
    item = codex_checks.seen_item(database_file=False)
    assert item.ok, item
    assert item.detail.startswith("last from session ")
    assert item.detail.endswith(", just now")
