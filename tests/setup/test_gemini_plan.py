"""`relaybay setup --agent gemini`'s plan of Gemini CLI's settings.json: relaybay's hooks for
the seven events it handles (timeout in ms, never --wait, never PreCompress or the model
events) and its MCP entry (httpUrl, the token as ${RELAYBAY_TOKEN}, trust: true), written on
an empty home, the captured settings.json and a hand-written one, then removed again with
every byte that is not relaybay's as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agents.gemini_cli.setup import detect, entries
from agents.gemini_cli.setup.plan import make_plan
from agents.setup.document import SettingsError
from agents.setup.hook_line import command_args, command_url
from agents.setup.plan import write_plan
from agents.setup.target import Target

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gemini-cli-0.61.0"
CAPTURED = FIXTURES / "config" / "settings.json"
HAND_WRITTEN = Path(__file__).parent / "corpus" / "gemini_hand_written.json"
TARGET = Target(
    base_url="http://127.0.0.1:8765",
    token_file="/home/dev/.local/share/relaybay/token",
    python="/usr/bin/python3",
)
MCP = {
    "httpUrl": "http://127.0.0.1:8765/mcp",
    "headers": {"Authorization": "Bearer ${RELAYBAY_TOKEN}"},
    "trust": True,
}


@pytest.fixture
def settings(tmp_path: Path):
    def copy(source: Path | None) -> Path:
        path = detect.settings_file(tmp_path)
        path.parent.mkdir(exist_ok=True)
        if source is not None:
            shutil.copyfile(source, path)
        return path

    return copy


def apply(path: Path, target: Target = TARGET) -> bytes:
    write_plan(make_plan(path, target))
    return path.read_bytes()


def remove(path: Path) -> bytes:
    write_plan(make_plan(path, TARGET, action="remove"))
    return path.read_bytes()


def ours(data: dict) -> dict[str, list[dict]]:
    return entries.relaybay_hooks(data)


def test_an_empty_home_gets_the_seven_hooks_and_the_mcp_entry(settings) -> None:
    path = settings(None)
    data = json.loads(apply(path))
    assert list(data) == ["hooks", "mcpServers"]
    assert list(data["hooks"]) == list(entries.EVENTS)
    for event in entries.EVENTS:
        hook = entries.command_hook(TARGET, held=event == "BeforeTool")
        assert data["hooks"][event] == [{"hooks": [hook]}]
    hook = data["hooks"]["AfterTool"][0]["hooks"][0]
    assert hook["timeout"] == 5000  # milliseconds
    assert hook["command"] == (
        "/usr/bin/python3 -I -m relaybay.hook_client --url http://127.0.0.1:8765/hooks/gemini "
        "--token-file /home/dev/.local/share/relaybay/token 2>/dev/null || echo {}"
    )
    # BeforeTool waits for the owner's answer to the guard's ask: --hold before the
    # fail-open tail, under a 10-minute timeout
    hook = data["hooks"]["BeforeTool"][0]["hooks"][0]
    assert hook["timeout"] == 600000
    assert hook["command"] == (
        "/usr/bin/python3 -I -m relaybay.hook_client --url http://127.0.0.1:8765/hooks/gemini "
        "--token-file /home/dev/.local/share/relaybay/token --hold 590 2>/dev/null || echo {}"
    )
    assert data["mcpServers"] == {"relaybay": MCP}
    assert remove(path) == b"{}\n"


def test_the_events_are_relaybays_seven_and_no_hook_waits() -> None:
    assert entries.EVENTS == (
        "SessionStart",
        "BeforeAgent",
        "BeforeTool",
        "AfterTool",
        "AfterAgent",
        "Notification",
        "SessionEnd",
    )
    assert "--wait" not in entries.hook_command(TARGET)


def test_the_kits_marker_reader_recognises_the_fail_open_command() -> None:
    hook = entries.command_hook(TARGET)
    assert command_url(command_args(hook)) == "http://127.0.0.1:8765/hooks/gemini"
    assert entries.is_relaybay_hook(hook)
    assert entries.fails_open(hook)
    claude = {"type": "command", "command": hook["command"].replace("gemini", "claude-code")}
    assert not entries.is_relaybay_hook(claude)


def test_the_captured_settings_keep_everything_but_relaybays_part(settings) -> None:
    path = settings(CAPTURED)
    before = json.loads(CAPTURED.read_bytes())
    after = json.loads(apply(path))
    for event, groups in before["hooks"].items():
        # the recorder's hooks stay first and as they were; relaybay's come after them
        assert after["hooks"][event][: len(groups)] == groups
        if event in entries.EVENTS:
            hook = entries.command_hook(TARGET, held=event == "BeforeTool")
            assert after["hooks"][event][len(groups) :] == [{"hooks": [hook]}]
        else:
            assert after["hooks"][event] == groups
    # the capture registered relaybay on its own port: replaced by this server's entry
    assert after["mcpServers"] == {"relaybay": MCP}
    assert {k: v for k, v in after.items() if k not in ("hooks", "mcpServers")} == {
        k: v for k, v in before.items() if k not in ("hooks", "mcpServers")
    }
    # removed: the file as captured, but for relaybay's own MCP entry
    del before["mcpServers"]
    final = "\n" if CAPTURED.read_bytes().endswith(b"\n") else ""  # the capture has none
    assert remove(path) == (json.dumps(before, indent=2) + final).encode()


def test_a_hand_written_file_is_back_byte_for_byte_after_apply_and_remove(settings) -> None:
    path = settings(HAND_WRITTEN)
    before = path.read_bytes()
    after = apply(path)
    text = after.decode()
    # untouched members keep their bytes, the owner's servers and hooks included
    for piece in (
        '"theme": "GitHub",   "general": { "vimMode": true, "preferredEditor": "nvim" },',
        '"docs":   { "httpUrl": "https://docs.example.test/mcp", "timeout": 30000 }',
        '"hooksConfig": { "notifications": true },',
        '"PreCompress": [ { "hooks": [ { "type": "command", "command": "~/bin/snapshot.sh" } ] } ]',
    ):
        assert piece in text
    data = json.loads(after)
    assert data["mcpServers"]["relaybay"] == MCP
    assert list(data["mcpServers"]) == ["github", "docs", "relaybay"]
    assert data["hooks"]["BeforeTool"][0]["matcher"] == "run_shell_command"
    assert set(ours(data)) == set(entries.EVENTS)
    assert apply(path) == after  # applying again changes nothing
    assert remove(path) == before


def test_the_owners_session_header_is_kept_as_captured(settings) -> None:
    """The `--session-id` way: the header the capture used stays when setup writes again."""
    path = settings(FIXTURES / "config" / "settings.session-id-header.json")
    captured = json.loads((FIXTURES / "mcp" / "session-id-via-header-expansion.json").read_text())
    data = json.loads(apply(path))
    assert data["mcpServers"]["relaybay"]["headers"] == captured["settings_headers"]
    assert captured["settings_headers"][entries.SESSION_HEADER] == "${RELAYBAY_SESSION}"
    assert data["mcpServers"]["relaybay"]["trust"] is True


def test_a_literal_token_is_replaced_by_the_variable_and_the_plan_says_so(settings) -> None:
    path = settings(None)
    path.write_text(
        json.dumps({"mcpServers": {"relaybay": {"url": "http://127.0.0.1:1/sse", "headers": {
            "Authorization": "Bearer s3cret"}, "timeout": 9000}}}, indent=2) + "\n"
    )  # fmt: skip
    plan = make_plan(path, TARGET)
    assert any("replaced by Bearer ${RELAYBAY_TOKEN}" in n for n in plan.notes)
    entry = json.loads(plan.after)["mcpServers"]["relaybay"]
    assert entry == {**MCP, "timeout": 9000}  # another transport's url dropped
    assert b"s3cret" not in plan.after


def test_the_plan_notes_say_plainly_what_the_mcp_entry_does(settings) -> None:
    notes = " ".join(make_plan(settings(None), TARGET).notes)
    assert "Bearer ${RELAYBAY_TOKEN}" in notes
    assert "the token itself is never written into settings.json" in notes
    assert "trust: true" in notes
    assert "prints {} and exits 0" in notes
    assert "never writes trustedFolders.json" in notes
    assert make_plan(settings(None), TARGET, action="remove").notes == ()


def test_relaybay_hooks_on_other_events_go_and_switches_are_noted(settings) -> None:
    path = settings(None)
    stray = entries.command_hook(TARGET)
    path.write_text(
        json.dumps({"hooksConfig": {"enabled": False, "disabled": ["relaybay"]},
                    "hooks": {"PreCompress": [{"hooks": [stray]}]}}) + "\n"
    )  # fmt: skip
    plan = make_plan(path, TARGET)
    data = json.loads(plan.after)
    assert "PreCompress" not in data["hooks"]
    assert data["hooksConfig"] == {"enabled": False, "disabled": ["relaybay"]}
    assert any("hooksConfig.enabled is false" in n for n in plan.notes)
    assert any('hooksConfig.disabled names "relaybay"' in n for n in plan.notes)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"mcpServers": []}\n', '"mcpServers" is not an object'),
        ('{"hooks": {"BeforeTool": {}}}\n', '"hooks"."BeforeTool" is not a list'),
        ('{"theme": "x",}\n', "is not valid JSON"),
    ],
)
def test_a_file_setup_cannot_read_as_gemini_does_is_refused(settings, text, message) -> None:
    path = settings(None)
    path.write_text(text)
    with pytest.raises(SettingsError, match=message):
        make_plan(path, TARGET)
    assert path.read_text() == text


def test_windows_is_refused_rather_than_writing_a_hook_that_could_deny(settings) -> None:
    windows = Target(
        "http://127.0.0.1:8765", "C:\\relaybay\\token", "C:\\py\\python.exe", windows=True
    )
    with pytest.raises(SettingsError, match="PowerShell"):
        make_plan(settings(None), windows)


def test_gemini_cli_home_moves_the_settings_and_the_option_wins(tmp_path) -> None:
    env = {"GEMINI_CLI_HOME": str(tmp_path / "g")}
    assert detect.gemini_home(None, env) == tmp_path / "g"
    assert detect.settings_file(detect.gemini_home(None, env)) == (
        tmp_path / "g" / ".gemini" / "settings.json"
    )
    assert detect.gemini_home(str(tmp_path / "o"), env) == tmp_path / "o"
    assert detect.gemini_home(None, {}) == Path.home()
    moved = {"GEMINI_CLI_TRUSTED_FOLDERS_PATH": str(tmp_path / "t.json")}
    assert detect.trusted_folders_file(tmp_path, moved) == tmp_path / "t.json"
    assert detect.trusted_folders_file(tmp_path, {}) == tmp_path / ".gemini" / "trustedFolders.json"
