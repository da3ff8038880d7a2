"""Held hooks in every agent's setup: the events its CLI waits on while the owner decides on
the board (its SPEC's capabilities, named by its kinds) get the long timeout and --hold,
every other event keeps its short one; the marker rules still find relaybay's entries with
--hold after --url; a hand-written file that an older setup wrote into is upgraded in place
and is back byte for byte after --remove."""

from __future__ import annotations

import json
import shlex
import shutil
import tomllib
from pathlib import Path

import pytest

from agents.claude_code.hooks import SPEC as CLAUDE
from agents.claude_code.setup import entries as claude
from agents.claude_code.setup.plan import make_plan as claude_plan
from agents.codex.hooks import SPEC as CODEX
from agents.codex.setup import config as codex
from agents.codex.setup.plan import make_codex_plan
from agents.gemini_cli.hooks import SPEC as GEMINI
from agents.gemini_cli.setup import entries as gemini
from agents.gemini_cli.setup.plan import make_plan as gemini_plan
from agents.setup import hold
from agents.setup.hook_line import command_args, command_url
from agents.setup.plan import write_plan
from agents.setup.target import Target
from relaybay import hook_client
from sessions.hooks import approvals

CORPUS = Path(__file__).parent / "corpus"
TARGET = Target(
    base_url="http://127.0.0.1:8765",
    token_file="/home/dev/.local/share/relaybay/token",
    python="/usr/bin/python3",
)
HOLD = ["--hold", "590"]


def test_the_held_events_are_each_specs_holds_in_its_own_names() -> None:
    assert hold.held_events(CLAUDE) == ("PreToolUse", "PermissionRequest")
    assert hold.held_events(CODEX) == ("PreToolUse", "PermissionRequest")
    assert hold.held_events(GEMINI) == ("BeforeTool",)
    assert set(claude.held_events()) <= set(claude.EVENTS)
    assert set(codex.held_events()) <= set(codex.EVENTS)
    assert set(gemini.held_events()) <= set(gemini.EVENTS)


def test_the_hold_fits_the_client_and_the_server() -> None:
    """The client takes the hold, the server answers MARGIN_SECONDS before it, and the
    agent's timeout is above the client's wait with its start-up."""
    assert hold.MARGIN_SECONDS == approvals.MARGIN_SECONDS
    assert 0 < hold.HOLD_SECONDS <= hook_client.HOLD_MAX
    assert hold.HOLD_TIMEOUT >= hold.HOLD_SECONDS + 5
    assert hook_client.parse_args(["--url", "u", "--token-file", "t", *HOLD])[3] == 590


# --- each agent's plan ----------------------------------------------------------------------


def _claude_hooks(mode: str, tmp_path: Path) -> dict[str, dict]:
    path = tmp_path / "settings.json"
    data = json.loads(claude_plan(path, TARGET, mode=mode).after)
    return {e: g[0]["hooks"][0] for e, g in data["hooks"].items()}


def test_claude_code_command_hooks_hold_on_pretooluse_and_permissionrequest(tmp_path) -> None:
    hooks = _claude_hooks("command", tmp_path)
    assert list(hooks) == list(claude.EVENTS)
    for event, hook in hooks.items():
        args = command_args(hook)
        held = event in ("PreToolUse", "PermissionRequest")
        assert (hook["timeout"], args[-2:] == HOLD) == ((600, True) if held else (3, False))
        assert command_url(args) == "http://127.0.0.1:8765/hooks/claude-code", event
        assert claude.is_relaybay_hook(hook, TARGET)
        assert not claude.is_wake_hook(hook)
        assert claude.hook_hold(hook) == hold.Held(590.0 if held else 0.0, hook["timeout"])


def test_claude_code_http_hooks_hold_through_the_header(tmp_path) -> None:
    hooks = _claude_hooks("http", tmp_path)
    assert hooks["SessionStart"]["type"] == "command"
    assert hooks["SessionStart"]["timeout"] == 3
    for event in ("PreToolUse", "PermissionRequest"):
        assert hooks[event]["type"] == "http"
        assert hooks[event]["headers"]["X-Relaybay-Hold"] == "590"
        assert hooks[event]["timeout"] == 600
        assert claude.hook_hold(hooks[event]) == hold.Held(590.0, 600.0)
    for event in ("UserPromptSubmit", "PostToolUse", "Notification", "Stop", "SessionEnd"):
        assert "X-Relaybay-Hold" not in hooks[event]["headers"]
        assert hooks[event]["timeout"] == 2


def test_claude_codes_wake_up_hook_stays_itself_beside_held_hooks(tmp_path) -> None:
    path = tmp_path / "settings.json"
    data = json.loads(claude_plan(path, TARGET, wake=True).after)
    [wake] = [h for g in data["hooks"]["Stop"] for h in g["hooks"] if claude.is_wake_hook(h)]
    assert "--hold" not in wake["command"]
    held = data["hooks"]["PreToolUse"][0]["hooks"][0]
    assert not claude.is_wake_hook(held)


def test_codex_holds_on_pretooluse_and_permissionrequest_with_their_trust(tmp_path) -> None:
    path = tmp_path / "config.toml"
    doc = tomllib.loads(make_codex_plan(path, TARGET).after.decode())
    found = {f.event: f for f in codex.relaybay_hooks(doc)}
    assert list(found) == list(codex.EVENTS)
    for event, hook in found.items():
        args = shlex.split(hook.command)
        held = event in ("PreToolUse", "PermissionRequest")
        short = 3 if event == "SessionEnd" else 5
        assert (hook.timeout, args[-2:] == HOLD) == ((600, True) if held else (short, False))
        assert hook.url == "http://127.0.0.1:8765/hooks/codex"
        trust = codex.trust_entry(doc, hook.key(path))
        expected = codex.trusted_hash(codex.event_label(event), hook.command, hook.timeout)
        assert trust == {"trusted_hash": expected}, event


def test_gemini_holds_on_beforetool_before_its_fail_open_tail(tmp_path) -> None:
    path = tmp_path / "settings.json"
    data = json.loads(gemini_plan(path, TARGET).after)
    hooks = {e: g[0]["hooks"][0] for e, g in data["hooks"].items()}
    for event, hook in hooks.items():
        held = event == "BeforeTool"
        assert hook["timeout"] == (600000 if held else 5000), event
        assert hook["command"].endswith(("--hold 590 " if held else "token ") + gemini.FAIL_OPEN)
        assert gemini.is_relaybay_hook(hook)
        assert gemini.fails_open(hook)
        assert gemini.hook_url(hook) == "http://127.0.0.1:8765/hooks/gemini"
        assert gemini.hook_hold(hook) == hold.Held(590.0 if held else 0.0, hook["timeout"] / 1000)


def test_each_plan_says_why_the_held_events_have_a_long_timeout(tmp_path) -> None:
    notes = {
        "claude": claude_plan(tmp_path / "c.json", TARGET).notes,
        "codex": make_codex_plan(tmp_path / "config.toml", TARGET).notes,
        "gemini": gemini_plan(tmp_path / "g.json", TARGET).notes,
    }
    assert notes["claude"][0].startswith("PreToolUse and PermissionRequest: timeout 600 s and")
    assert notes["codex"][0].startswith("PreToolUse and PermissionRequest: timeout 600 s and")
    assert any(
        n.startswith("BeforeTool: timeout 600000 ms and --hold 590") for n in notes["gemini"]
    )
    assert "the server answers within 580 s" in notes["claude"][0]


# --- an older setup's entries upgraded in place, then removed -------------------------------


@pytest.fixture
def older(monkeypatch):
    """Each plan as a setup before approvals made it: no held event (and for Claude Code no
    PermissionRequest hook); undone by `older.undo()`."""
    from agents.claude_code.setup import plan as claude_plan_module

    events = tuple(e for e in claude.EVENTS if e != "PermissionRequest")
    monkeypatch.setattr(claude_plan_module, "EVENTS", events)
    for module in (claude_plan_module, codex, gemini):
        monkeypatch.setattr(module, "held_events", tuple)
    return monkeypatch


@pytest.mark.parametrize(
    "name", ["hand_edited.json", "hand_edited_no_hooks.json", "four_spaces.json", "crlf.json"]
)
def test_claude_code_upgrades_an_older_setups_entries_and_removes_back_byte_for_byte(
    tmp_path, older, name
) -> None:
    path = tmp_path / "settings.json"
    shutil.copyfile(CORPUS / name, path)
    users = path.read_bytes()
    write_plan(claude_plan(path, TARGET))
    assert b"--hold" not in path.read_bytes()
    assert b"PermissionRequest" not in path.read_bytes()
    older.undo()
    upgrade = claude_plan(path, TARGET)
    assert upgrade.changed
    write_plan(upgrade)
    data = json.loads(path.read_bytes())
    assert data["hooks"]["PreToolUse"][-1]["hooks"][-1]["timeout"] == 600
    assert data["hooks"]["PermissionRequest"][-1]["hooks"][-1]["command"].endswith("--hold 590")
    assert not claude_plan(path, TARGET).changed
    write_plan(claude_plan(path, TARGET, action="remove"))
    assert path.read_bytes() == users


@pytest.mark.parametrize(
    ("corpus", "written", "timeout"),
    [
        ("codex_hand_written.toml", "config.toml", b"timeout = 600"),
        ("gemini_hand_written.json", "settings.json", b'"timeout": 600000'),
    ],
    ids=["codex", "gemini"],
)
def test_codex_and_gemini_upgrade_older_hooks_and_remove_back_byte_for_byte(
    tmp_path, older, corpus, written, timeout
) -> None:
    plan = make_codex_plan if written == "config.toml" else gemini_plan
    path = tmp_path / written
    shutil.copyfile(CORPUS / corpus, path)
    users = path.read_bytes()
    write_plan(plan(path, TARGET))
    assert b"--hold" not in path.read_bytes()
    older.undo()
    upgrade = plan(path, TARGET)
    assert upgrade.changed
    write_plan(upgrade)
    if written == "config.toml":  # Codex's block is replaced where it stands
        assert path.read_bytes().startswith(users)
    assert timeout in path.read_bytes()
    assert not plan(path, TARGET).changed
    write_plan(plan(path, TARGET, action="remove"))
    assert path.read_bytes() == users


# --- the check line -------------------------------------------------------------------------

EVENTS = ("PreToolUse", "PermissionRequest")
READY = {e: [hold.Held(590.0, 600.0)] for e in EVENTS}


def test_the_approvals_line_says_how_long_the_board_can_answer() -> None:
    item = hold.approvals_item(EVENTS, READY, fix="f", wait=540)
    assert (item.ok, item.name) == (True, "approvals from the board")
    assert item.detail == "PreToolUse and PermissionRequest wait up to 9 min for you"
    one = hold.approvals_item(("BeforeTool",), {"BeforeTool": [hold.Held(590.0, 600.0)]},
                              fix="f", wait=90, note="n")  # fmt: skip
    assert one.detail == "BeforeTool waits up to 90 s for you; n"


def test_a_wait_above_the_hold_is_capped_as_the_server_caps_it() -> None:
    item = hold.approvals_item(EVENTS, READY, fix="f", wait=900)
    assert item.ok
    assert item.detail.startswith("PreToolUse and PermissionRequest wait up to 580 s for you")
    assert "approval_wait_seconds 900 is more than the hooks' --hold 590 allows" in item.detail


def test_holding_off_is_said_and_is_no_failure() -> None:
    item = hold.approvals_item(EVENTS, {}, fix="f", wait=0)
    assert item.ok
    assert item.detail.startswith("holding is off (approval_wait_seconds is 0)")


@pytest.mark.parametrize(
    ("found", "problem"),
    [
        ({"PreToolUse": [hold.Held(590.0, 600.0)]}, "PermissionRequest has no relaybay hook"),
        ({**READY, "PreToolUse": [hold.Held(0.0, 3.0)]}, "PreToolUse has no --hold (timeout 3 s)"),
        ({**READY, "PreToolUse": [hold.Held(5.0, 600.0)]}, "PreToolUse has no --hold"),
        (
            {**READY, "PermissionRequest": [hold.Held(590.0, 60.0)]},
            "PermissionRequest's timeout 60 s is not above its hold 590 s",
        ),
    ],
    ids=["missing", "older setup", "hold within the margin", "timeout under the hold"],
)
def test_hooks_that_cannot_wait_fail_with_the_fix(found, problem) -> None:
    item = hold.approvals_item(EVENTS, found, fix="relaybay setup --apply", wait=540)
    assert not item.ok
    assert problem in item.detail
    assert item.fix == "relaybay setup --apply"


def test_the_hold_of_a_command_line() -> None:
    assert hold.command_hold(["x", "--hold", "590"]) == 590.0
    assert hold.command_hold(["x", "--hold=12"]) == 12.0
    assert hold.command_hold(["x", "--hold", "soon"]) == 0.0
    assert hold.command_hold(["x", "--hold", "-3"]) == 0.0
    assert hold.command_hold(["x"]) == 0.0
