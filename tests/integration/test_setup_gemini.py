"""`relaybay setup --agent gemini` and `relaybay doctor` as a user runs them, with a temporary
Gemini home: the plan, apply with the shown hash, idempotent, remove back to the bytes it
started from, GEMINI_CLI_HOME, refusals, and --check against a real server — up to the hook
command setup wrote, run as Gemini runs it, reaching /hooks/gemini, which the check then sees,
and the folder trust of the folder that session worked in."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.support.server import RelaybayServer, run_cli

pytestmark = pytest.mark.integration

TESTS = Path(__file__).resolve().parents[1]
FIXTURES = TESTS / "fixtures" / "gemini-cli-0.61.0"
HAND_WRITTEN = TESTS / "setup" / "corpus" / "gemini_hand_written.json"
FAKE_GEMINI = '#!/bin/sh\n[ "$1" = --version ] && echo 0.61.0\n'


@pytest.fixture
def gemini_home(tmp_path: Path) -> Path:
    """A home whose .gemini/settings.json is the hand-written one."""
    folder = tmp_path / "gemini-home"
    (folder / ".gemini").mkdir(parents=True)
    shutil.copyfile(HAND_WRITTEN, folder / ".gemini" / "settings.json")
    return folder


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """A PATH without `gemini` (and without anything else)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


def setup(*args: str, home: Path, path: Path, port: int = 9123, **env: str):
    done = run_cli(
        "setup", "--agent", "gemini", "--port", str(port), *args,
        home=home, env={"PATH": str(path), **env},
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def plan_hash(out: str) -> str:
    return re.search(r"Plan hash: ([0-9a-f]{12})", out).group(1)


def settings_of(home: Path) -> Path:
    return home / ".gemini" / "settings.json"


def backups(home: Path) -> list[Path]:
    return sorted((home / ".gemini").glob("settings.json.relaybay-backup-*"))


def test_the_dry_run_shows_the_diff_the_hash_and_the_notes_and_writes_nothing(
    tmp_path, gemini_home, bin_dir
) -> None:
    path = settings_of(gemini_home)
    before = path.read_bytes()
    data = tmp_path / "data"
    code, out, err = setup("--gemini-home", str(gemini_home), home=data, path=bin_dir)
    assert code == 0, err
    assert "Gemini CLI: `gemini` not found on PATH" in out
    assert f"Settings file: {path}" in out
    assert '+        "BeforeAgent": [' in out
    assert "http://127.0.0.1:9123/hooks/gemini" in out
    assert '"httpUrl": "http://127.0.0.1:9123/mcp"' in out
    assert '"Authorization": "Bearer ${RELAYBAY_TOKEN}"' in out
    assert "Note: trust: true on mcpServers.relaybay" in out
    assert "Dry run: nothing written" in out
    assert f'export RELAYBAY_TOKEN="$(cat {data / "token"})"' in out
    assert "--session-id <id> and RELAYBAY_SESSION=<id>" in out  # the MCP server reads it
    assert path.read_bytes() == before
    assert list(path.parent.iterdir()) == [path]
    assert not (data / "token").exists()


def test_apply_with_the_shown_hash_then_again_then_remove(tmp_path, gemini_home, bin_dir) -> None:
    path = settings_of(gemini_home)
    before = path.read_bytes()
    data = tmp_path / "data"
    args = ("--gemini-home", str(gemini_home))
    _, out, _ = setup(*args, home=data, path=bin_dir)
    shown = plan_hash(out)

    code, out, err = setup(*args, "--apply", "--expect", "0" * 12, home=data, path=bin_dir)
    assert code == 2
    assert "changed since plan 000000000000 was shown" in err
    assert path.read_bytes() == before

    code, out, err = setup(*args, "--apply", "--expect", shown, home=data, path=bin_dir)
    assert code == 0, err
    [backup] = backups(gemini_home)
    assert f"Backup: {backup}" in out
    assert f"Wrote {path}. Restart Gemini CLI sessions to load it." in out
    assert backup.read_bytes() == before
    after = path.read_bytes()
    written = json.loads(after)
    assert written["mcpServers"]["relaybay"]["trust"] is True
    assert b"Bearer ${RELAYBAY_TOKEN}" in after
    assert b'"Bearer ' + b"${RELAYBAY_TOKEN}" in after  # the variable, never a token

    code, out, err = setup(*args, "--apply", home=data, path=bin_dir)
    assert code == 0, err
    assert "No change: settings.json already is as planned." in out
    assert "Nothing to write." in out
    assert path.read_bytes() == after
    assert len(backups(gemini_home)) == 1

    code, out, err = setup(*args, "--remove", home=data, path=bin_dir)
    assert code == 0, err
    assert f"Removed relaybay's entries from {path}." in out
    assert path.read_bytes() == before


@pytest.mark.parametrize("name", ["settings.json", "settings.edge-cases.json"])
def test_the_captured_settings_through_the_cli(tmp_path, bin_dir, name) -> None:
    """GEMINI_CLI_HOME picks the home; the capture's own hooks stay, relaybay's entry for its
    port is replaced, and remove leaves the rest as it was."""
    home = tmp_path / "moved"
    (home / ".gemini").mkdir(parents=True)
    shutil.copyfile(FIXTURES / "config" / name, settings_of(home))
    original = json.loads(settings_of(home).read_text())
    env = {"GEMINI_CLI_HOME": str(home)}
    code, out, err = setup("--apply", home=tmp_path / "data", path=bin_dir, **env)
    assert code == 0, err
    assert f"Settings file: {settings_of(home)}" in out
    applied = json.loads(settings_of(home).read_text())
    for event, groups in original["hooks"].items():
        assert applied["hooks"][event][: len(groups)] == groups
    code, _, err = setup("--remove", home=tmp_path / "data", path=bin_dir, **env)
    assert code == 0, err
    del original["mcpServers"]["relaybay"]
    if not original["mcpServers"]:
        del original["mcpServers"]
    assert json.loads(settings_of(home).read_text()) == original


def test_an_unparsable_settings_file_is_refused_and_nothing_is_written(tmp_path, bin_dir) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    path = settings_of(home)
    path.write_text('{"theme": "x",\n')
    code, _, err = setup("--gemini-home", str(home), "--apply", home=tmp_path / "d", path=bin_dir)
    assert code == 2
    assert err.startswith("relaybay setup: settings.json is not valid JSON (")
    assert path.read_text() == '{"theme": "x",\n'
    assert list(path.parent.iterdir()) == [path]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--wake",), "--agent gemini takes no --wake (they are Claude Code's)."),
        (("--codex-home", "/tmp"), "--agent gemini takes no --codex-home"),
    ],
)
def test_other_agents_options_are_refused_with_agent_gemini(tmp_path, bin_dir, args, message):
    code, _, err = setup(*args, home=tmp_path / "data", path=bin_dir, GEMINI_CLI_HOME=str(tmp_path))
    assert code == 2
    assert message in err


def test_gemini_home_without_agent_gemini_is_refused(tmp_path, bin_dir) -> None:
    done = run_cli(
        "setup", "--gemini-home", str(tmp_path), home=tmp_path / "data", env={"PATH": str(bin_dir)}
    )
    assert done.returncode == 2
    assert "--gemini-home goes with --agent gemini." in done.stderr


# --- --check and doctor against a running server ---------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    srv = RelaybayServer(home=tmp_path_factory.mktemp("gemini-check") / "data").start()
    yield srv
    srv.stop()


def check(server: RelaybayServer, home: Path, bin_dir: Path, **env: str):
    code, out, err = setup(
        "--check", "--json", "--gemini-home", str(home),
        home=server.home, path=bin_dir, port=server.port, **env,
    )  # fmt: skip
    assert out, err
    return code, {i["name"]: i for i in json.loads(out)}


def run_hook(command: str, body: dict, cwd: Path) -> str:
    """Run a hook command as Gemini does: bash -c in the project folder, the input on stdin."""
    done = subprocess.run(
        ["bash", "-c", command],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=30,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done
    return done.stdout


def test_check_proves_the_path_up_to_a_hook_event_seen(server, tmp_path, bin_dir) -> None:
    home = tmp_path / "gemini-home"
    project = tmp_path / "acme-shop"
    project.mkdir()
    code, _, err = setup(
        "--gemini-home", str(home), "--apply", home=server.home, path=bin_dir, port=server.port
    )
    assert code == 0, err
    env = {"RELAYBAY_TOKEN": server.token}

    code, items = check(server, home, bin_dir, **env)
    assert code == 1
    failed = {name for name, i in items.items() if not i["ok"]}
    assert failed == {"Gemini folder trust", "Gemini hook event seen"}
    assert items["Gemini hook endpoint"]["ok"], items["Gemini hook endpoint"]
    assert items["Gemini hooks in settings.json"]["ok"]
    assert items["Gemini MCP server"]["ok"]
    assert items["Gemini MCP token"]["ok"]
    assert items["Gemini approvals from the board"]["detail"].startswith(
        "BeforeTool waits up to 9 min for you"
    )
    assert "(the current folder)" in items["Gemini folder trust"]["detail"]

    # The exact command setup wrote, with a real Gemini SessionStart input from the project.
    doc = json.loads(settings_of(home).read_text())
    command = doc["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    body = json.loads((FIXTURES / "hooks" / "SessionStart.startup.p.json").read_text())
    run_hook(command, {**body, "session_id": str(uuid.uuid4()), "cwd": str(project)}, project)

    code, items = check(server, home, bin_dir, **env)
    assert code == 1
    assert [n for n, i in items.items() if not i["ok"]] == ["Gemini folder trust"]
    trust = items["Gemini folder trust"]
    assert f"does not trust {project} (the project folders relaybay knows)" in trust["detail"]
    assert f'"{project}": "TRUST_FOLDER" to {home}/.gemini/trustedFolders.json' in trust["fix"]
    assert not (home / ".gemini" / "trustedFolders.json").exists()  # never written by setup

    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(project): "TRUST_FOLDER"})
    )
    code, items = check(server, home, bin_dir, **env)
    assert code == 0, [i for i in items.values() if not i["ok"]]
    assert list(items) == [
        "relaybay server",
        "MCP with the token",
        "Gemini hook endpoint",
        "Gemini hooks in settings.json",
        "Gemini hook command runs",
        "Gemini approvals from the board",
        "Gemini MCP server",
        "Gemini MCP token",
        "Gemini folder trust",
        "Gemini hook event seen",
    ]
    assert "last from session " in items["Gemini hook event seen"]["detail"]

    code, items = check(server, home, bin_dir)  # without RELAYBAY_TOKEN in the environment
    assert code == 1
    assert items["Gemini MCP token"]["fix"] == (
        f'export RELAYBAY_TOKEN="$(cat {server.home / "token"})" '
        "(in the shell, or profile, Gemini starts from)"
    )


def test_doctor_shows_gemini_beside_the_others(server, tmp_path, bin_dir) -> None:
    home = tmp_path / "gemini-home"
    exe = bin_dir / "gemini"
    exe.write_text(FAKE_GEMINI)
    exe.chmod(0o755)
    code, _, err = setup(
        "--gemini-home", str(home), "--apply", home=server.home, path=bin_dir, port=server.port
    )
    assert code == 0, err
    done = run_cli(
        "doctor", "--port", str(server.port), "--claude-home", str(tmp_path / "profile"),
        "--codex-home", str(tmp_path / "codex"), "--gemini-home", str(home),
        home=server.home, env={"PATH": str(bin_dir), "RELAYBAY_TOKEN": server.token},
    )  # fmt: skip
    lines = done.stdout.splitlines()
    names = [line.split(":", 1)[0] for line in lines]
    assert f"[ok] Gemini CLI: {exe} version 0.61.0" in lines
    assert names.index("[ok] Gemini CLI") == names.index("[ok] Codex") + 1
    for name in ("Gemini hook endpoint", "Gemini hooks in settings.json", "Gemini MCP server"):
        assert f"[ok] {name}" in names, done.stdout
    for line in lines:
        if line.startswith("[FAIL]"):
            assert ". Fix: " in line, line
