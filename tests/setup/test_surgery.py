"""Settings-file surgery on a corpus of real-shaped files (§5 #spec-setup)."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from agents.claude_code.setup.entries import EVENTS, is_relaybay_hook, is_wake_hook
from agents.claude_code.setup.plan import make_plan
from agents.setup.document import SettingsError
from agents.setup.plan import PlanChanged, backup_path, write_plan
from agents.setup.target import Target

CORPUS = Path(__file__).parent / "corpus"
TARGET = Target(
    base_url="http://127.0.0.1:8765",
    token_file="/home/dev/.local/share/relaybay/token",
    python="/usr/bin/python3",
)
CANONICAL = ("empty_object.json", "no_hooks.json", "user_hooks.json", "crlf.json")
CANONICAL += ("four_spaces.json", "tabs.json")
HAND_EDITED = ("hand_edited.json", "hand_edited_no_hooks.json", "hand_edited_mixed.json")
ALL_VALID = (*CANONICAL, *HAND_EDITED, "empty.json")


@pytest.fixture
def settings_file(tmp_path: Path):
    def copy(name: str) -> Path:
        path = tmp_path / ".claude" / "settings.json"
        path.parent.mkdir(exist_ok=True)
        shutil.copyfile(CORPUS / name, path)
        return path

    return copy


def apply(path: Path, target: Target = TARGET, **kwargs) -> bytes:
    write_plan(make_plan(path, target, **kwargs))
    return path.read_bytes()


def ours(data: dict, event: str, target: Target = TARGET) -> list[dict]:
    groups = data.get("hooks", {}).get(event, [])
    return [h for g in groups for h in g["hooks"] if is_relaybay_hook(h, target)]


def without_ours(data: dict, target: Target = TARGET) -> dict:
    """The user's part of a settings document: relaybay's groups taken out."""
    data = json.loads(json.dumps(data))
    for event, groups in list(data.get("hooks", {}).items()):
        for g in groups:
            g["hooks"] = [
                h for h in g["hooks"] if not (is_relaybay_hook(h, target) or is_wake_hook(h))
            ]
        data["hooks"][event] = [g for g in groups if g["hooks"]]
        if not data["hooks"][event]:
            del data["hooks"][event]
    return data


@pytest.mark.parametrize("name", ALL_VALID)
def test_apply_adds_one_entry_per_event_after_the_users_hooks(settings_file, name) -> None:
    path = settings_file(name)
    old = json.loads(path.read_bytes() or b"{}")
    new = json.loads(apply(path))
    for event in EVENTS:
        assert len(ours(new, event)) == 1, event
        last = new["hooks"][event][-1]
        assert last["hooks"][-1:] == ours(new, event)
        tool_event = event in ("PreToolUse", "PermissionRequest", "PostToolUse")
        assert ("matcher" in last) == tool_event
        assert last.get("matcher", "*") == "*"
    users, kept = without_ours(old), without_ours(new)
    assert {**users, "hooks": users.get("hooks", {})} == kept
    for event, groups in old.get("hooks", {}).items():
        assert new["hooks"][event][: len(groups) - 1] == groups[:-1]


@pytest.mark.parametrize("name", ALL_VALID)
def test_apply_twice_changes_nothing(settings_file, name) -> None:
    path = settings_file(name)
    first = apply(path)
    plan = make_plan(path, TARGET)
    assert not plan.changed
    assert plan.diff == ""
    assert write_plan(plan) is None
    assert path.read_bytes() == first


@pytest.mark.parametrize("name", [*CANONICAL, "hand_edited.json", "hand_edited_no_hooks.json"])
def test_remove_after_apply_gives_the_users_file_back_byte_for_byte(settings_file, name) -> None:
    path = settings_file(name)
    before = path.read_bytes()
    apply(path)
    assert apply(path, action="remove") == before


def test_remove_takes_out_only_relaybays_entries_in_every_file(settings_file) -> None:
    for name in ALL_VALID:
        path = settings_file(name)
        before = json.loads(path.read_bytes() or b"{}")
        apply(path, wake=True)
        after = json.loads(apply(path, action="remove") or b"{}")
        assert after == without_ours(before), name


@pytest.mark.parametrize(
    ("name", "newline", "indent"),
    [("crlf.json", "\r\n", "  "), ("four_spaces.json", "\n", "    "), ("tabs.json", "\n", "\t")],
)
def test_indentation_and_line_endings_are_kept(settings_file, name, newline, indent) -> None:
    path = settings_file(name)
    final_newline = path.read_bytes().endswith(b"\n")
    text = apply(path).decode()
    assert text.endswith(newline) == final_newline
    if newline == "\r\n":
        assert "\n" not in text.replace("\r\n", "")
    else:
        assert "\r" not in text
    assert f'{newline}{indent}"hooks": {{{newline}{indent}{indent}"' in text


def test_a_hand_edited_file_keeps_every_byte_outside_the_hooks_value(settings_file) -> None:
    path = settings_file("hand_edited.json")
    before = path.read_text()
    after = apply(path).decode()
    head = before[: before.index('"hooks": ') + 9]
    tail = before[before.index('\n  },\n  "includeCoAuthoredBy"') + 4 :]
    assert after.startswith(head)
    assert after.endswith(tail)
    assert json.loads(after)["hooks"]["Stop"][0] == {
        "hooks": [{"type": "command", "command": "say done"}]
    }


def test_a_hooks_member_is_added_after_the_last_member_of_a_hand_edited_file(
    settings_file,
) -> None:
    path = settings_file("hand_edited_no_hooks.json")
    before = path.read_text()
    after = apply(path).decode()
    assert after.startswith(before[:-1] + ', "hooks": {\n  "SessionStart": [')
    assert after.endswith("}")
    assert apply(path, action="remove").decode() == before


def test_similar_user_hooks_are_never_claimed(settings_file) -> None:
    path = settings_file("user_hooks.json")
    user = json.loads(path.read_bytes())
    for event, groups in user["hooks"].items():
        for group in groups:
            for hook in group["hooks"]:
                assert not is_relaybay_hook(hook, TARGET), (event, hook)
                assert not is_wake_hook(hook), (event, hook)
    assert json.loads(apply(path, action="remove")) == user


def test_a_new_port_or_data_folder_updates_only_relaybays_entries(settings_file) -> None:
    path = settings_file("user_hooks.json")
    apply(path, wake=True)
    first = json.loads(path.read_bytes())
    moved = Target(base_url="http://127.0.0.1:9911", token_file="/srv/rb/token", python="/p")
    second = json.loads(apply(path, moved))
    assert without_ours(second, moved) == without_ours(first)
    for event in EVENTS:
        assert ours(second, event, moved) == ours(second, event)  # same count, new values
        [hook] = ours(second, event, moved)
        assert "http://127.0.0.1:9911/hooks/claude-code " in hook["command"]
        assert "/srv/rb/token" in hook["command"]
        # updated where it stood: same position as after the first apply
        assert second["hooks"][event].index(
            next(g for g in second["hooks"][event] if hook in g["hooks"])
        ) == len(second["hooks"][event]) - (2 if event == "Stop" else 1)
    wakes = [h for g in second["hooks"]["Stop"] for h in g["hooks"] if is_wake_hook(h)]
    assert len(wakes) == 1
    assert "http://127.0.0.1:9911/hooks/claude-code/wait" in wakes[0]["command"]


def test_the_token_is_never_written(settings_file, tmp_path) -> None:
    path = settings_file("no_hooks.json")
    text = apply(path, wake=True).decode() + apply(path, mode="http").decode()
    assert "Bearer ${RELAYBAY_TOKEN}" in text
    assert "secret-token-value" not in text


def test_command_mode_writes_the_documented_command_hook(settings_file) -> None:
    path = settings_file("empty.json")
    spaced = Target(
        base_url="http://127.0.0.1:8765",
        token_file="/home/dev/My Data/$relay`bay/token",
        python="/opt/py 3.12/bin/python",
    )
    data = json.loads(apply(path, spaced))
    hook = data["hooks"]["SessionStart"][0]["hooks"][0]
    assert hook == {
        "type": "command",
        "command": "'/opt/py 3.12/bin/python' -I -m relaybay.hook_client --url "
        "http://127.0.0.1:8765/hooks/claude-code --token-file "
        "'/home/dev/My Data/$relay`bay/token'",
        "timeout": 3,
    }
    # the events Claude Code waits on for the owner's answer: --hold under a long timeout
    held = {"type": "command", "command": hook["command"] + " --hold 590", "timeout": 600}
    assert data["hooks"]["PreToolUse"][0] == {"matcher": "*", "hooks": [held]}
    assert data["hooks"]["PermissionRequest"][0] == {"matcher": "*", "hooks": [held]}
    assert data["hooks"]["PostToolUse"][0] == {"matcher": "*", "hooks": [hook]}
    assert is_relaybay_hook(hook, spaced)
    assert is_relaybay_hook(held, spaced)


def test_http_mode_writes_http_hooks_but_sessionstart_as_the_command_hook(settings_file) -> None:
    path = settings_file("no_hooks.json")
    plan = make_plan(path, TARGET, mode="http")
    assert any("SessionStart" in note for note in plan.notes)
    write_plan(plan)
    data = json.loads(path.read_bytes())
    [start] = ours(data, "SessionStart")
    assert start["type"] == "command"
    for event in EVENTS[1:]:
        held = event in ("PreToolUse", "PermissionRequest")
        assert ours(data, event) == [
            {
                "type": "http",
                "url": "http://127.0.0.1:8765/hooks/claude-code",
                # §4 linking rule 1: the desktop app's session travels as headers, filled
                # in by Claude Code from the variables allowedEnvVars lists; a held event's
                # hook says how long Claude Code waits for it (the owner's Approve or Deny)
                "headers": {
                    "Authorization": "Bearer ${RELAYBAY_TOKEN}",
                    "X-Relaybay-Host-Session": "${CLAUDE_CODE_HOST_SESSION_ID}",
                    "X-Relaybay-Host-Attended": "${CLAUDE_CODE_SESSION_ATTENDED}",
                    **({"X-Relaybay-Hold": "590"} if held else {}),
                },
                "allowedEnvVars": [
                    "RELAYBAY_TOKEN",
                    "CLAUDE_CODE_HOST_SESSION_ID",
                    "CLAUDE_CODE_SESSION_ATTENDED",
                ],
                "timeout": 600 if held else 2,
            }
        ]
    # switching back to command mode replaces them in place; nothing is duplicated
    data = json.loads(apply(path))
    assert all(ours(data, e)[0]["type"] == "command" for e in EVENTS)
    assert all(len(data["hooks"][e]) == 1 for e in EVENTS)


def test_wake_adds_the_wake_up_group_to_stop_and_no_wake_removes_it(settings_file) -> None:
    path = settings_file("user_hooks.json")
    data = json.loads(apply(path, wake=True))
    wake = data["hooks"]["Stop"][-1]
    assert wake == {
        "hooks": [
            {
                "type": "command",
                "command": "/usr/bin/python3 -I -m relaybay.hook_client --url "
                "http://127.0.0.1:8765/hooks/claude-code/wait --token-file "
                "/home/dev/.local/share/relaybay/token --wait",
                "timeout": 1800,
                "asyncRewake": True,
            }
        ]
    }
    assert is_wake_hook(wake["hooks"][0])
    assert json.loads(apply(path)) == data  # neither flag keeps it
    after = json.loads(apply(path, wake=False))
    assert not any(is_wake_hook(h) for g in after["hooks"]["Stop"] for h in g["hooks"])
    assert len(ours(after, "Stop")) == 1


def test_a_symlinked_file_is_written_through_to_its_target(tmp_path) -> None:
    real = tmp_path / "dotfiles" / "claude-settings.json"
    real.parent.mkdir()
    shutil.copyfile(CORPUS / "user_hooks.json", real)
    link = tmp_path / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    backup = write_plan(make_plan(link, TARGET))
    assert link.is_symlink()
    assert ours(json.loads(real.read_bytes()), "Stop")
    assert backup is not None
    assert backup.parent == link.parent
    assert backup.read_bytes() == (CORPUS / "user_hooks.json").read_bytes()


def test_a_missing_file_is_created_without_a_backup(tmp_path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    assert write_plan(make_plan(path, TARGET)) is None
    assert ours(json.loads(path.read_bytes()), "SessionEnd")
    assert list(path.parent.iterdir()) == [path]


def test_the_backup_holds_the_old_bytes_and_gets_a_number_when_taken(settings_file) -> None:
    path = settings_file("user_hooks.json")
    before = path.read_bytes()
    now = datetime(2026, 12, 2, 14, 5, 9).astimezone()
    taken = path.with_name("settings.json.relaybay-backup-20261202-140509")
    taken.write_text("older backup")
    path.with_name(taken.name + "-1").write_text("older backup too")
    assert backup_path(path, now).name == "settings.json.relaybay-backup-20261202-140509-2"
    backup = write_plan(make_plan(path, TARGET), now)
    assert backup is not None
    assert backup.name == "settings.json.relaybay-backup-20261202-140509-2"
    assert backup.read_bytes() == before
    assert taken.read_text() == "older backup"


def test_a_file_changed_after_the_plan_is_not_written(settings_file) -> None:
    path = settings_file("user_hooks.json")
    plan = make_plan(path, TARGET)
    path.write_text(path.read_text().replace('"opus"', '"sonnet"'))
    with pytest.raises(PlanChanged):
        write_plan(plan)
    assert '"sonnet"' in path.read_text()
    assert not list(path.parent.glob("*relaybay-backup*"))
    assert make_plan(path, TARGET).hash != plan.hash


def test_the_plan_hash_covers_the_file_and_the_plan(settings_file) -> None:
    path = settings_file("no_hooks.json")
    plan = make_plan(path, TARGET)
    assert len(plan.hash) == 12
    assert make_plan(path, TARGET).hash == plan.hash
    assert make_plan(path, TARGET, mode="http").hash != plan.hash
    assert plan.diff.count("\n+") > 7
    assert all(not line.startswith("-") for line in plan.diff.splitlines()[2:])


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("not_utf8.json", "not UTF-8"),
        ("invalid.json", "not valid JSON (line 3"),
        ("not_an_object.json", "JSON object"),
        ("wrong_shape_hooks_list.json", '"hooks" is not an object'),
        ("wrong_shape_event_object.json", '"hooks"."Stop" is not a list'),
        ("wrong_shape_flat_hook.json", "documented hooks shape"),
    ],
)
def test_files_setup_must_not_touch_are_refused(settings_file, name, words) -> None:
    path = settings_file(name)
    with pytest.raises(SettingsError) as refused:
        make_plan(path, TARGET)
    assert words in str(refused.value)
    with pytest.raises(SettingsError):
        make_plan(path, TARGET, action="remove")
