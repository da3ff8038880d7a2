"""`relaybay setup --agent codex`: relaybay's block in Codex's config.toml (issue 30 item 4).

On copies of the real fixture config.toml and of a hand-written one (comments, other MCP
servers, foreign hooks before relaybay's, foreign trust entries): every byte outside the
block is kept, the trust hashes are the reference implementation's (copied below from the
fixture, so product and reference stay independent), the group indices count the foreign
groups, applying twice changes nothing, a new command gets new hashes, and --remove gives
the original bytes back.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tomllib
from pathlib import Path

import pytest

from agents.codex.setup import config as codex
from agents.codex.setup.plan import END, START, make_codex_plan
from agents.setup.document import SettingsError
from agents.setup.plan import write_plan
from agents.setup.target import Target

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "codex-0.169.0" / "config"
HAND_WRITTEN = Path(__file__).parent / "corpus" / "codex_hand_written.toml"
TARGET = Target(
    base_url="http://127.0.0.1:8765",
    token_file="/home/dev/.local/share/relaybay/token",
    python="/usr/bin/python3",
)
HELD = ("PreToolUse", "PermissionRequest")  # Codex waits on them for the owner's answer
LABELS = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "Stop": "stop",
    "SessionEnd": "session_end",
}


def reference_trusted_hash(event_label, command, timeout=600, matcher=None, is_async=False):
    """tests/fixtures/codex-0.169.0/config/trusted_hash.py, verified against the real CLI."""
    ident = {
        "event_name": event_label,
        "hooks": [{"type": "command", "command": command, "timeout": timeout, "async": is_async}],
    }
    if matcher is not None:
        ident["matcher"] = matcher
    data = json.dumps(ident, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()


@pytest.fixture
def config(tmp_path: Path):
    """A copy of `source` as <tmp>/codex/config.toml (writable, as a user's file is)."""

    def copy(source: Path) -> Path:
        path = tmp_path / "codex" / "config.toml"
        path.parent.mkdir(exist_ok=True)
        shutil.copyfile(source, path)
        path.chmod(0o644)
        return path

    return copy


def apply(path: Path, target: Target = TARGET) -> bytes:
    write_plan(make_codex_plan(path, target))
    return path.read_bytes()


def without_block(data: bytes) -> bytes:
    """The file minus relaybay's block and the one line break before it, found by its
    marker lines alone (not by the product's own splitter)."""
    start = data.index(START.encode())
    end = data.index(END.encode(), start) + len(END)
    end += 2 if data[end : end + 2] == b"\r\n" else 1
    assert start == 0 or data[start - 1 : start] == b"\n", "the block starts a line"
    cut = start - (2 if data[:start].endswith(b"\r\n") else 1) if start else 0
    return data[:cut] + data[end:]


def relaybay_groups(doc: dict, path: Path, target: Target = TARGET) -> dict[str, int]:
    """event → the index of relaybay's group, checked to be trusted by the reference hash
    (of the command with --hold on the events Codex waits on for the owner)."""
    placed = {}
    for event, label in LABELS.items():
        command = codex.hook_command(target, held=event in HELD)
        groups = doc["hooks"][event]
        [index] = [
            i for i, g in enumerate(groups) if any(h.get("command") == command for h in g["hooks"])
        ]
        handler = groups[index]["hooks"][0]
        assert groups[index] == {"hooks": [handler]}  # one handler, no matcher
        assert handler["type"] == "command"
        key = f"{path}:{label}:{index}:0"
        expected = reference_trusted_hash(label, command, handler["timeout"])
        assert doc["hooks"]["state"][key] == {"trusted_hash": expected}, event
        placed[event] = index
    return placed


# --- the reference itself -------------------------------------------------------------------


def test_the_copied_reference_gives_the_hashes_codex_accepted() -> None:
    """The fixture's config.trusted-state.toml ran with these hashes and no bypass flag."""
    doc = tomllib.loads((FIXTURE / "config.trusted-state.toml").read_text())
    state = doc["hooks"]["state"]
    for event, label in (("SessionStart", "session_start"), ("PreToolUse", "pre_tool_use")):
        for i, group in enumerate(doc["hooks"][event]):
            hook = group["hooks"][0]
            key = f"/home/dev/.codex/config.toml:{label}:{i}:0"
            got = reference_trusted_hash(
                label, hook["command"], hook["timeout"], group.get("matcher")
            )
            assert state[key]["trusted_hash"] == got


def test_the_product_hash_is_the_reference_hash() -> None:
    command = codex.hook_command(TARGET)
    for label in LABELS.values():
        for timeout, matcher in ((5, None), (3, None), (600, "^Bash$")):
            assert codex.trusted_hash(label, command, timeout, matcher) == reference_trusted_hash(
                label, command, timeout, matcher
            )


# --- apply on the fixture and on a hand-written file ----------------------------------------


def test_apply_on_the_fixture_keeps_every_byte_and_trusts_each_hook(config) -> None:
    path = config(FIXTURE / "config.toml")
    before = path.read_bytes()
    plan = make_codex_plan(path, TARGET)
    assert plan.changed
    assert path.read_bytes() == before  # a plan writes nothing
    after = apply(path)
    assert after == plan.after
    assert without_block(after) == before
    doc = tomllib.loads(after.decode())
    command = codex.hook_command(TARGET)
    assert command == (
        "/usr/bin/python3 -I -m relaybay.hook_client --url http://127.0.0.1:8765/hooks/codex "
        "--token-file /home/dev/.local/share/relaybay/token"
    )
    # the fixture has one group of each event already: relaybay's is the second
    assert relaybay_groups(doc, path) == dict.fromkeys(LABELS, 1)
    timeouts = {e: doc["hooks"][e][1]["hooks"][0]["timeout"] for e in LABELS}
    # the events Codex waits on for the owner's Approve or Deny: a long timeout, --hold 590
    assert timeouts == {**dict.fromkeys(LABELS, 5), "SessionEnd": 3, **dict.fromkeys(HELD, 600)}
    commands = {e: doc["hooks"][e][1]["hooks"][0]["command"] for e in LABELS}
    assert commands == {
        **dict.fromkeys(LABELS, command),
        **dict.fromkeys(HELD, command + " --hold 590"),
    }
    assert doc["mcp_servers"]["relaybay"]["url"] == "http://127.0.0.1:18851/mcp"  # untouched
    [backup] = path.parent.glob("config.toml.relaybay-backup-*")
    assert backup.read_bytes() == before


def test_apply_on_a_hand_written_file_counts_the_foreign_groups_before_relaybays(config) -> None:
    path = config(HAND_WRITTEN)
    before = path.read_bytes()
    after = apply(path)
    assert without_block(after) == before
    assert after.startswith(before)  # appended: nothing before it moved
    doc = tomllib.loads(after.decode())
    placed = relaybay_groups(doc, path)
    # two PreToolUse groups of the user's (one near the top, one further down), one Stop
    assert placed == {**dict.fromkeys(LABELS, 0), "PreToolUse": 2, "Stop": 1}
    assert f'[hooks.state."{path}:pre_tool_use:2:0"]' in after.decode()
    # the foreign hooks, servers and trust entries are all still there, as they were
    user = tomllib.loads(before.decode())
    assert doc["hooks"]["PreToolUse"][:2] == user["hooks"]["PreToolUse"]
    assert doc["hooks"]["Stop"][:1] == user["hooks"]["Stop"]
    assert doc["mcp_servers"] == user["mcp_servers"]
    for key, entry in user["hooks"]["state"].items():
        assert doc["hooks"]["state"][key] == entry
    assert str(TARGET.token_file) in after.decode()


def test_applying_twice_changes_nothing_the_second_time(config) -> None:
    for source in (FIXTURE / "config.toml", HAND_WRITTEN):
        path = config(source)
        first = apply(path)
        again = make_codex_plan(path, TARGET)
        assert not again.changed
        assert write_plan(again) is None
        assert path.read_bytes() == first
        assert len(list(path.parent.glob("config.toml.relaybay-backup-*"))) == 1
        for backup in path.parent.glob("config.toml.relaybay-backup-*"):
            backup.unlink()


@pytest.mark.parametrize(
    "changed",
    [
        {"python": "/opt/python 3.12/bin/python3"},  # a path that needs quoting
        {"base_url": "http://127.0.0.1:9999"},
        {"token_file": "/srv/relaybay/token"},
    ],
    ids=["python", "port", "token file"],
)
def test_a_new_command_replaces_the_block_in_place_with_new_hashes(config, changed) -> None:
    path = config(HAND_WRITTEN)
    before = path.read_bytes()
    first = apply(path)
    target = Target(**{**TARGET.__dict__, **changed})
    plan = make_codex_plan(path, target)
    assert plan.changed
    after = apply(path, target)
    assert without_block(after) == before
    doc = tomllib.loads(after.decode())
    old, new = codex.hook_command(TARGET), codex.hook_command(target)
    assert old != new
    assert relaybay_groups(doc, path, target) == {
        **dict.fromkeys(LABELS, 0),
        "PreToolUse": 2,
        "Stop": 1,
    }
    assert old not in after.decode()
    assert tomllib.loads(first.decode())["hooks"]["state"] != doc["hooks"]["state"]


def test_remove_gives_the_original_bytes_back(config) -> None:
    for source in (FIXTURE / "config.toml", FIXTURE / "config.trusted-state.toml", HAND_WRITTEN):
        path = config(source)
        before = path.read_bytes()
        apply(path)
        plan = make_codex_plan(path, TARGET, action="remove")
        assert plan.changed
        write_plan(plan)
        assert path.read_bytes() == before, source.name
        assert not make_codex_plan(path, TARGET, action="remove").changed


@pytest.mark.parametrize(
    "text",
    [
        "",
        'model = "gpt-5.5"',  # no final line break
        'model = "gpt-5.5"\n\n\n',
        'model = "gpt-5.5"\r\n[mcp_servers.docs]\r\ncommand = "npx"\r\n',
    ],
    ids=["empty", "no final newline", "blank lines", "crlf"],
)
def test_apply_then_remove_keeps_line_ends_exactly(tmp_path, text) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(text.encode())
    after = apply(path)
    assert without_block(after) == text.encode()
    tomllib.loads(after.decode())
    if "\r\n" in text:
        assert b"\n" not in after.replace(b"\r\n", b"")  # the block uses the file's CRLF
    write_plan(make_codex_plan(path, TARGET, action="remove"))
    assert path.read_bytes() == text.encode()


def test_a_missing_file_gets_only_the_block_and_its_folder(tmp_path) -> None:
    path = tmp_path / "new-codex-home" / "config.toml"
    plan = make_codex_plan(path, TARGET)
    assert plan.before == b""
    assert write_plan(plan) is None  # nothing to back up
    text = path.read_text()
    assert text.startswith(START)
    assert text.rstrip().endswith(END)
    assert relaybay_groups(tomllib.loads(text), path)


def test_a_block_with_the_users_hooks_after_it_stays_in_place(config) -> None:
    """A group the user adds after the block keeps its place (and its trust) on the next
    apply; removing the block moves it up one place, which the plan says."""
    path = config(HAND_WRITTEN)
    apply(path)
    extra = (
        '\n[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\ntype = "command"\n'
        'command = "/home/dev/bin/hello.sh"\n'
    )
    with path.open("a") as fh:
        fh.write(extra)
    edited = path.read_bytes()
    assert not make_codex_plan(path, TARGET).changed
    moved = apply(path, Target(**{**TARGET.__dict__, "base_url": "http://127.0.0.1:9000"}))
    assert moved.endswith(extra.encode())
    doc = tomllib.loads(moved.decode())
    assert doc["hooks"]["SessionStart"][1]["hooks"][0]["command"] == "/home/dev/bin/hello.sh"
    plan = make_codex_plan(path, TARGET, action="remove")
    assert any("SessionStart" in n and "Codex asks to trust it again" in n for n in plan.notes)
    write_plan(plan)
    assert path.read_bytes() == without_block(edited)


def test_a_trust_entry_outside_the_block_for_relaybays_place(config, tmp_path) -> None:
    """Already trusted with relaybay's own hash (the TUI wrote it): kept, not written twice.
    Trusting something else at that place: refused, naming the table to delete."""
    path = config(FIXTURE / "config.toml")
    command = codex.hook_command(TARGET)
    key = f"{path}:user_prompt_submit:1:0"
    same = reference_trusted_hash("user_prompt_submit", command, 5)
    with path.open("a") as fh:
        fh.write(f'\n[hooks.state."{key}"]\ntrusted_hash = "{same}"\n')
    before = path.read_bytes()
    plan = make_codex_plan(path, TARGET)
    assert any("UserPromptSubmit: already trusted" in n for n in plan.notes)
    after = apply(path)
    assert after.count(key.encode()) == 1
    assert without_block(after) == before
    relaybay_groups(tomllib.loads(after.decode()), path)

    path.write_bytes(before.replace(same.encode(), b"sha256:" + b"0" * 64))
    with pytest.raises(SettingsError, match=r"Delete that table, then run setup again"):
        make_codex_plan(path, TARGET)


# --- refusals: nothing is written -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('model = "gpt-5.5\n', "is not valid TOML"),
        ("hooks = { }\n", "cannot take relaybay's hooks"),
        ('[hooks]\nstate = { "x:y:0:0" = { trusted_hash = "sha256:0" } }\n', "cannot take"),
        ('[hooks]\nStop = [ { hooks = [] } ]\n', "cannot take"),
        ("hooks = 3\n", "`hooks` is not a table"),
        (f"{START}\n[[hooks.Stop]]\n", "1 start and 0 end lines"),
        (b"model = '\xff'\n", "is not UTF-8"),
    ],
    ids=["unparsable", "inline hooks", "inline state", "inline event", "hooks not a table",
         "damaged block", "not utf-8"],
)  # fmt: skip
def test_a_file_that_cannot_hold_the_block_is_refused(tmp_path, text, message) -> None:
    path = tmp_path / "config.toml"
    raw = text if isinstance(text, bytes) else text.encode()
    path.write_bytes(raw)
    with pytest.raises(SettingsError, match=message):
        make_codex_plan(path, TARGET)
    assert path.read_bytes() == raw
    assert os.listdir(tmp_path) == ["config.toml"]


def test_quotes_and_backslashes_in_paths_survive_the_toml(tmp_path) -> None:
    folder = tmp_path / 'a "quoted" \\ folder'
    path = folder / "config.toml"
    target = Target(**{**TARGET.__dict__, "token_file": str(folder / "to'ken")})
    write_plan(make_codex_plan(path, target))
    doc = tomllib.loads(path.read_text())
    relaybay_groups(doc, path, target)
    assert "'" in codex.hook_command(target)  # shell-quoted, then TOML-escaped


def test_codex_home_is_the_option_then_codex_home_then_dot_codex(tmp_path, monkeypatch) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    assert codex.codex_home() == tmp_path / "home" / ".codex"
    monkeypatch.setenv("CODEX_HOME", str(link))
    assert codex.codex_home() == real  # Codex canonicalises CODEX_HOME: the keys name `real`
    assert codex.codex_home(str(tmp_path / "other")) == tmp_path / "other"


def test_the_route_and_agent_are_the_codex_adapters() -> None:
    """One source: setup writes the path the adapter serves and looks for its sessions."""
    from agents.codex import hooks as adapter

    assert codex.CODEX_HOOK_PATH == adapter.PATH
    assert codex.CODEX_AGENT == adapter.AGENT


def test_toml_strings_escape_what_toml_forbids_raw() -> None:
    value = 'a "b" \\ c\nd\te\x7f\x01\r\x0c\x08 é'
    text = codex.toml_string(value)
    assert tomllib.loads(f"x = {text}")["x"] == value
    assert "\x7f" not in text
    assert "\n" not in text
