"""`relaybay setup` end to end, as a user runs it (§5 #spec-setup)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.support.server import run_cli

CORPUS = Path(__file__).parent / "corpus"


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    folder = tmp_path / "profile"
    (folder / ".claude").mkdir(parents=True)
    shutil.copyfile(CORPUS / "user_hooks.json", folder / ".claude" / "settings.json")
    return folder


def setup(*args: str, home: Path, path: Path | str) -> tuple[int, str, str]:
    done = run_cli("setup", "--port", "9123", *args, home=home, env={"PATH": str(path)})
    return done.returncode, done.stdout, done.stderr


def plan_hash(out: str) -> str:
    return re.search(r"Plan hash: ([0-9a-f]{12})", out).group(1)


def test_setup_reports_the_desktop_app_folder_like_the_integrations_page(
    tmp_path, claude_home, fake_claude
) -> None:
    args = ("--claude-home", str(claude_home))
    code, out, err = setup(*args, home=tmp_path / "data", path=fake_claude("2.1.332"))
    assert code == 0, err
    assert "Claude desktop app: no Claude desktop app folder found" in out
    (claude_home / ".config" / "Claude").mkdir(parents=True)
    code, out, err = setup(*args, home=tmp_path / "data", path=fake_claude("2.1.332"))
    assert code == 0, err
    folder = claude_home / ".config" / "Claude"
    assert f"Claude desktop app: found: {folder} (its local sessions read" in out


def test_setup_is_a_dry_run_that_shows_the_diff_and_the_mcp_line(
    tmp_path, claude_home, fake_claude
) -> None:
    settings_file = claude_home / ".claude" / "settings.json"
    before = settings_file.read_bytes()
    code, out, err = setup(
        "--claude-home", str(claude_home), home=tmp_path / "data", path=fake_claude("2.1.332")
    )
    assert code == 0, err
    assert "version 2.1.332; http hooks supported" in out
    assert '+            "command": ' in out
    assert "http://127.0.0.1:9123/hooks/claude-code" in out
    assert "Dry run: nothing written" in out
    assert settings_file.read_bytes() == before
    assert list(settings_file.parent.iterdir()) == [settings_file]
    assert (
        "claude mcp add --transport http --scope user relaybay http://127.0.0.1:9123/mcp "
        '--header "Authorization: Bearer <token>"'
    ) in out
    assert "run relaybay token to print it with your token" in out
    assert not (tmp_path / "data" / "token").exists()


def test_apply_with_the_shown_hash_writes_and_backs_up_then_remove_restores(
    tmp_path, claude_home, fake_claude
) -> None:
    settings_file = claude_home / ".claude" / "settings.json"
    before = settings_file.read_bytes()
    bin_dir = fake_claude("2.1.332 (Claude Code)")
    home = tmp_path / "data"
    _, out, _ = setup("--claude-home", str(claude_home), home=home, path=bin_dir)
    code, out, err = setup(
        "--apply",
        "--expect",
        plan_hash(out),
        "--claude-home",
        str(claude_home),
        home=home,
        path=bin_dir,
    )
    assert code == 0, err
    assert "Backup: " in out
    [backup] = settings_file.parent.glob("settings.json.relaybay-backup-*")
    assert re.fullmatch(r"settings\.json\.relaybay-backup-\d{8}-\d{6}", backup.name)
    assert backup.read_bytes() == before
    data = json.loads(settings_file.read_bytes())
    assert f"--token-file {home}/token" in data["hooks"]["SessionEnd"][-1]["hooks"][0]["command"]
    assert not (home / "token").exists()

    code, out, err = setup("--apply", "--claude-home", str(claude_home), home=home, path=bin_dir)
    assert code == 0, err
    assert "No change" in out

    code, out, err = setup(
        "--remove", "--dry-run", "--claude-home", str(claude_home), home=home, path=bin_dir
    )
    assert code == 0, err
    assert "Dry run" in out
    code, out, err = setup("--remove", "--claude-home", str(claude_home), home=home, path=bin_dir)
    assert code == 0, err
    assert settings_file.read_bytes() == before
    assert len(list(settings_file.parent.glob("settings.json.relaybay-backup-*"))) == 2


def test_apply_refuses_a_plan_that_changed_and_shows_the_new_one(
    tmp_path, claude_home, fake_claude
) -> None:
    settings_file = claude_home / ".claude" / "settings.json"
    bin_dir = fake_claude("2.1.332 (Claude Code)")
    _, out, _ = setup("--claude-home", str(claude_home), home=tmp_path, path=bin_dir)
    shown = plan_hash(out)
    settings_file.write_text(settings_file.read_text().replace('"opus"', '"sonnet"'))
    changed = settings_file.read_bytes()
    code, out, err = setup(
        "--apply", "--expect", shown, "--claude-home", str(claude_home), home=tmp_path, path=bin_dir
    )
    assert code == 2
    assert f"since plan {shown} was shown" in err
    assert plan_hash(out) != shown
    assert '+            "command": ' in out
    assert settings_file.read_bytes() == changed
    assert not list(settings_file.parent.glob("*relaybay-backup*"))


@pytest.mark.parametrize(
    ("version", "flags", "code"),
    [
        ("2.0.5", ("--wake",), 2),
        (None, ("--wake",), 2),
        ("2.0.5", ("--wake", "--force-wake"), 0),
        (None, ("--wake", "--force-wake"), 0),
        ("2.1.332 (Claude Code)", ("--wake",), 0),
        ("2.1.332 (Claude Code)", ("--wake", "--mode", "http"), 2),
        ("2.1.332 (Claude Code)", ("--force-wake",), 2),
    ],
)
def test_wake_is_refused_on_an_old_or_unknown_claude_code_unless_forced(
    tmp_path, claude_home, fake_claude, version, flags, code
) -> None:
    settings_file = claude_home / ".claude" / "settings.json"
    before = settings_file.read_bytes()
    bin_dir = fake_claude(version) if version else tmp_path / "empty-bin"
    got, out, err = setup(
        "--apply", *flags, "--claude-home", str(claude_home), home=tmp_path, path=bin_dir
    )
    assert got == code, out + err
    if code:
        assert settings_file.read_bytes() == before
        assert "relaybay setup: " in err
    else:
        stop = json.loads(settings_file.read_bytes())["hooks"]["Stop"][-1]["hooks"][0]
        assert stop["asyncRewake"] is True
        assert stop["command"].endswith(
            f"/hooks/claude-code/wait --token-file {tmp_path}/token --wait"
        )
    if version is None and not code:
        assert "`claude` not found on PATH" in out


def test_http_mode_notes_that_sessionstart_stays_a_command_hook(
    tmp_path, claude_home, fake_claude
) -> None:
    code, out, err = setup(
        "--apply",
        "--mode",
        "http",
        "--claude-home",
        str(claude_home),
        home=tmp_path,
        path=fake_claude("2.1.332 (Claude Code)"),
    )
    assert code == 0, err
    assert "Note: SessionStart is written as the command hook" in out
    hooks = json.loads((claude_home / ".claude" / "settings.json").read_bytes())["hooks"]
    assert hooks["SessionStart"][-1]["hooks"][0]["type"] == "command"
    assert hooks["Stop"][-1]["hooks"][0]["type"] == "http"


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("invalid.json", "not valid JSON"),
        ("not_utf8.json", "not UTF-8"),
        ("wrong_shape_flat_hook.json", "documented hooks shape"),
    ],
)
def test_a_file_setup_must_not_touch_is_refused_with_exit_2(
    tmp_path, claude_home, fake_claude, name, words
) -> None:
    settings_file = claude_home / ".claude" / "settings.json"
    shutil.copyfile(CORPUS / name, settings_file)
    code, _, err = setup(
        "--apply", "--claude-home", str(claude_home), home=tmp_path, path=fake_claude("2.1.332")
    )
    assert code == 2
    assert words in err
    assert settings_file.read_bytes() == (CORPUS / name).read_bytes()


def test_a_registered_mcp_server_is_reported_and_claude_json_left_alone(
    tmp_path, claude_home, fake_claude
) -> None:
    claude_json = claude_home / ".claude.json"
    claude_json.write_text(
        json.dumps(
            {"mcpServers": {"relaybay": {"type": "http", "url": "http://127.0.0.1:9123/mcp"}}}
        )
    )
    before = claude_json.read_bytes()
    code, out, err = setup(
        "--apply", "--claude-home", str(claude_home), home=tmp_path, path=fake_claude("2.1.332")
    )
    assert code == 0, err
    assert "MCP: relaybay is registered for Claude Code (http://127.0.0.1:9123/mcp)" in out
    assert "claude mcp add" not in out
    assert claude_json.read_bytes() == before


def test_http_mode_on_an_old_claude_code_says_http_hooks_may_not_run(
    tmp_path, claude_home, fake_claude
) -> None:
    code, out, err = setup(
        "--mode", "http", "--claude-home", str(claude_home), home=tmp_path,
        path=fake_claude("2.0.5"),
    )  # fmt: skip
    assert code == 0, err
    assert "http hooks not supported (needs 2.1.63)" in out
    assert "Note: Claude Code 2.0.5 may not run http hooks" in out


def test_remove_takes_no_hook_options(tmp_path, claude_home, fake_claude) -> None:
    code, _, err = setup(
        "--remove", "--wake", "--claude-home", str(claude_home), home=tmp_path,
        path=fake_claude("2.1.332"),
    )  # fmt: skip
    assert code == 2
    assert "--remove takes no --mode, --wake or --no-wake." in err
