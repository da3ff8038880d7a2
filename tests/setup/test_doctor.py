"""`relaybay doctor [--json]`: reads, never writes, works with the server down (§5)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tomllib
import uuid
from pathlib import Path

import pytest

from tests.setup.test_check import apply_hooks, write_profile
from tests.support.server import RelaybayServer, run_cli

ORDER = [
    "relaybay",
    "Python",
    "OS",
    "data folder",
    "token file",
    "Claude Code",
    "desktop app",
    "Codex",
    "Gemini CLI",
    "relaybay server",
    "MCP with the token",
    "hook endpoint",
    "rules hash",
    "hooks in user settings",
    "command hook runs",
    "approvals from the board",
    "MCP registered",
]


def doctor(home: Path, port: int, claude_home: Path, path: Path | str, *extra: str):
    """The doctor's items; Codex's folder is one without config.toml unless --codex-home."""
    env = {"PATH": f"{path}{os.pathsep}{os.environ['PATH']}"}
    env["CODEX_HOME"] = str(claude_home / ".codex")
    env["GEMINI_CLI_HOME"] = str(claude_home)  # no .gemini there: Gemini is not connected
    done = run_cli(
        "doctor", "--json", "--port", str(port), "--claude-home", str(claude_home), *extra,
        home=home, env=env,
    )  # fmt: skip
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.fixture
def server(tmp_path: Path):
    srv = RelaybayServer(home=tmp_path / "data").start()
    yield srv
    srv.stop()


def test_doctor_all_ok_against_a_running_server(tmp_path, server, fake_claude) -> None:
    """A Claude-Code-only home: a `codex` on PATH that was never connected is one ok line."""
    claude_home = tmp_path / "profile"
    write_profile(claude_home, server.base_url)
    (claude_home / ".config" / "Claude").mkdir(parents=True)
    bin_dir = fake_claude("2.1.332 (Claude Code)")
    codex_exe = write_fake_codex(bin_dir)
    apply_hooks(server, claude_home, bin_dir)
    settings_before = (claude_home / ".claude" / "settings.json").read_bytes()
    code, items = doctor(server.home, server.port, claude_home, bin_dir)
    assert [i["name"] for i in items] == ORDER
    assert code == 0, items
    by_name = {i["name"]: i for i in items}
    assert "version 2.1.332" in by_name["Claude Code"]["detail"]
    assert by_name["Codex"]["ok"]  # codex on PATH, no config.toml: one line, nothing to fail
    assert by_name["Codex"]["detail"] == (
        "not connected (to connect: relaybay setup --agent codex --apply --home "
        f"{server.home} --port {server.port}); {codex_exe} version 0.169.0"
    )
    assert "found" in by_name["desktop app"]["detail"]
    assert "no config.toml" in by_name["data folder"]["detail"]
    assert server.healthz()["rules_hash"] in by_name["rules hash"]["detail"]
    assert (claude_home / ".claude" / "settings.json").read_bytes() == settings_before
    # the synthetic hook event is ignored: no session row
    with sqlite3.connect(server.home / "relaybay.sqlite") as db:
        assert db.execute("select count(*) from agent_sessions_session").fetchone()[0] == 0


def test_doctor_plain_lines_and_rules_hash_mismatch(tmp_path, server, fake_claude) -> None:
    claude_home = tmp_path / "profile"
    write_profile(claude_home, server.base_url)
    (server.home / "config.toml").write_text('rules_mode = "strict"\n')
    done = run_cli(
        "doctor", "--port", str(server.port), "--claude-home", str(claude_home),
        home=server.home, env={"PATH": str(fake_claude("2.1.332"))},
    )  # fmt: skip
    assert done.returncode == 1
    assert "[ok] relaybay server:" in done.stdout
    assert "[FAIL] rules hash:" in done.stdout
    assert "restart the server" in done.stdout
    assert "config.toml is there" in done.stdout


def test_doctor_with_the_server_down_never_creates_the_token(tmp_path, fake_claude) -> None:
    home = tmp_path / "data"
    claude_home = tmp_path / "profile"
    write_profile(claude_home, "http://127.0.0.1:9")  # connected: its MCP registration
    code, items = doctor(home, 9, claude_home, fake_claude("1.9.9"))
    assert code == 1
    by_name = {i["name"]: i for i in items}
    assert not by_name["Claude Code"]["ok"]
    assert "needs 2.0.0" in by_name["Claude Code"]["detail"]
    assert not by_name["token file"]["ok"]
    assert not by_name["relaybay server"]["ok"]
    assert "MCP with the token" not in by_name
    assert "hook endpoint" not in by_name
    assert by_name["rules hash"]["ok"]
    assert by_name["desktop app"]["ok"]
    assert not (home / "token").exists()
    assert not home.exists()


def test_doctor_with_a_token_and_nothing_listening(tmp_path, fake_claude) -> None:
    home = tmp_path / "data"
    home.mkdir()
    (home / "token").write_text("a-token\n")
    (home / "token").chmod(0o644)
    code, items = doctor(home, 9, tmp_path / "profile", fake_claude("2.0.0"))
    by_name = {i["name"]: i for i in items}
    assert code == 1
    assert "readable by other users" in by_name["token file"]["detail"]
    assert by_name["Claude Code"]["ok"]
    assert "nothing listens" in by_name["relaybay server"]["detail"]
    assert "MCP with the token" not in by_name


def test_doctor_reports_invalid_settings_as_one_failed_item(tmp_path, fake_claude) -> None:
    home = tmp_path / "data"
    home.mkdir()
    (home / "config.toml").write_text("no_such_key = 1\n")
    code, items = doctor(home, 9, tmp_path / "profile", fake_claude("2.1.332"))
    assert code == 1
    [settings_item] = [i for i in items if i["name"] == "settings"]
    assert not settings_item["ok"]
    assert "no_such_key" in settings_item["detail"]
    assert not (home / "token").exists()
    claude = {i["name"]: i for i in items}["Claude Code"]  # no profile: not connected
    assert claude["ok"]
    assert claude["detail"].startswith("not connected (to connect: relaybay setup --apply); ")


# --- every [FAIL] ends with the command that fixes it (issue 13 §5) ------------------------


def test_a_failed_check_cannot_be_made_without_its_fix() -> None:
    from agents.setup.items import Item

    with pytest.raises(ValueError, match="must name the command that fixes it"):
        Item(False, "hooks in user settings", "settings.json does not exist")
    assert Item(False, "x", "broken", "relaybay setup --apply").line() == (
        "[FAIL] x: broken. Fix: relaybay setup --apply"
    )


def test_every_failure_path_in_the_checks_passes_a_fix() -> None:
    """The dataclass refuses a failed item without a fix at run time; this finds the paths
    no test runs: every Item(...) whose ok is not the literal True carries a fix."""
    import ast

    root = Path(__file__).resolve().parents[2]
    offenders = []
    for rel in (
        "agents/claude_code/setup/checks.py",
        "agents/codex/setup/checks.py",
        "relaybay_site/management/commands/doctor.py",
    ):
        tree = ast.parse((root / rel).read_text())
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Item"):
                continue
            if node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value is True:
                continue
            if len(node.args) < 4 and not any(k.arg == "fix" for k in node.keywords):
                offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []


def test_doctor_names_the_fix_for_a_missing_settings_file_and_a_wrong_mcp_address(
    tmp_path, server, fake_claude
) -> None:
    claude_home = tmp_path / "profile"
    write_profile(claude_home, "http://127.0.0.1:8765")  # registered for another port
    done = run_cli(
        "doctor", "--port", str(server.port), "--claude-home", str(claude_home),
        home=server.home, env={"PATH": str(fake_claude("2.1.332"))},
    )  # fmt: skip
    lines = done.stdout.splitlines()
    [hooks] = [line for line in lines if line.startswith("[FAIL] hooks in user settings:")]
    assert hooks.endswith(
        f"does not exist. Fix: relaybay setup --apply --home {server.home} --port {server.port}"
    )
    [mcp] = [line for line in lines if line.startswith("[FAIL] MCP registered:")]
    assert "registered with http://127.0.0.1:8765/mcp, not " in mcp
    assert "Fix: claude mcp remove --scope user relaybay, then claude mcp add " in mcp
    assert f"{server.base_url}/mcp" in mcp.split("Fix:")[1]
    for line in lines:
        if line.startswith("[FAIL]"):
            assert ". Fix: " in line, line


def test_doctor_compares_the_rules_with_a_server_that_answers_even_without_a_token_file(
    tmp_path, server, fake_claude
) -> None:
    """It said "no running server to compare with" while a server answered on the port."""
    elsewhere = tmp_path / "other-data"  # no token file here
    _, items = doctor(elsewhere, server.port, tmp_path / "profile", fake_claude("2.1.332"))
    rules = {i["name"]: i for i in items}["rules hash"]
    assert "no running server" not in rules["detail"]
    assert "the same as the running server's" in rules["detail"]


# --- every agent alike: checked once connected, else one "not connected" line -------------

CODEX_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "codex-0.169.0"
HAND_WRITTEN = Path(__file__).parent / "corpus" / "codex_hand_written.toml"
FAKE_CODEX = """#!/bin/sh
case "$*" in
  --version) echo "codex-cli 0.169.0";;
  "mcp add --help") echo "  --bearer-token-env-var <ENV_VAR>";;
esac
"""
CLAUDE_ITEMS = [
    "hooks in user settings",
    "command hook runs",
    "approvals from the board",
    "MCP registered",
]
CODEX_ITEMS = [
    "Codex hook endpoint",
    "Codex hooks in config.toml",
    "Codex hooks trusted",
    "Codex hook command runs",
    "Codex approvals from the board",
    "Codex MCP registered",
    "Codex MCP token",
    "Codex hook event seen",
]


def write_fake_codex(bin_dir: Path) -> Path:
    bin_dir.mkdir(parents=True, exist_ok=True)
    exe = bin_dir / "codex"
    exe.write_text(FAKE_CODEX)
    exe.chmod(0o755)
    return exe


def connect_codex(server: RelaybayServer, codex_home: Path, bin_dir: Path) -> None:
    """What the owner does: setup --apply, the MCP table `codex mcp add` writes, and one
    real Codex SessionStart through the hook command setup wrote (a hook event seen)."""
    codex_home.mkdir()
    shutil.copyfile(HAND_WRITTEN, codex_home / "config.toml")
    done = run_cli(
        "setup", "--agent", "codex", "--apply", "--port", str(server.port),
        "--codex-home", str(codex_home), home=server.home, env={"PATH": str(bin_dir)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with (codex_home / "config.toml").open("a") as fh:
        fh.write(
            f'\n[mcp_servers.relaybay]\nurl = "{server.base_url}/mcp"\n'
            'bearer_token_env_var = "RELAYBAY_TOKEN"\n'
        )
    doc = tomllib.loads((codex_home / "config.toml").read_text())
    command = doc["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    body = json.loads((CODEX_FIXTURES / "hooks" / "SessionStart.startup.exec.json").read_text())
    body["session_id"] = str(uuid.uuid4())
    ran = subprocess.run(  # the hook command as Codex runs it: through the shell
        command, shell=True, input=json.dumps(body), capture_output=True, text=True, timeout=30
    )
    assert ran.returncode == 0, ran.stderr


def plain_doctor(server: RelaybayServer, claude_home: Path, codex_home: Path, bin_dir: Path):
    """`relaybay doctor` with exactly `bin_dir` as PATH (no `claude` unless it is there) and
    RELAYBAY_TOKEN set where Codex would start: its exit code and its lines."""
    done = run_cli(
        "doctor", "--port", str(server.port), "--claude-home", str(claude_home),
        "--codex-home", str(codex_home), "--gemini-home", str(claude_home), home=server.home,
        env={"PATH": str(bin_dir), "RELAYBAY_TOKEN": server.token},
    )  # fmt: skip
    return done.returncode, done.stdout.splitlines()


def names(lines: list[str]) -> list[str]:
    return [line.split("] ", 1)[1].split(":", 1)[0] for line in lines]


def test_a_codex_only_home_has_no_claude_code_failure_and_exits_0(tmp_path, server) -> None:
    """No Claude settings, no ~/.claude.json, no `claude` on PATH: Claude Code is one ok line
    naming the command that connects it, and nothing else about it is checked."""
    bin_dir = tmp_path / "bin"
    write_fake_codex(bin_dir)
    codex_home = tmp_path / "codex-home"
    connect_codex(server, codex_home, bin_dir)
    claude_home = tmp_path / "profile"
    claude_home.mkdir()

    code, lines = plain_doctor(server, claude_home, codex_home, bin_dir)
    assert [line for line in lines if line.startswith("[FAIL]")] == []
    assert code == 0, lines
    [claude] = [line for line in lines if line.startswith("[ok] Claude Code:")]
    assert claude == (
        "[ok] Claude Code: not connected (to connect: relaybay setup --apply --home "
        f"{server.home} --port {server.port}); `claude` not found on PATH"
    )
    assert not set(CLAUDE_ITEMS) & set(names(lines))
    assert [n for n in names(lines) if n.startswith("Codex ")] == CODEX_ITEMS
    assert not (claude_home / ".claude").exists()  # read, never written


def test_each_connected_agent_is_checked_and_a_broken_piece_still_fails(
    tmp_path, server, fake_claude
) -> None:
    bin_dir = fake_claude("2.1.332 (Claude Code)")
    write_fake_codex(bin_dir)
    codex_home = tmp_path / "codex-home"
    connect_codex(server, codex_home, bin_dir)
    claude_home = tmp_path / "profile"
    write_profile(claude_home, server.base_url)
    apply_hooks(server, claude_home, bin_dir)

    code, lines = plain_doctor(server, claude_home, codex_home, bin_dir)
    assert code == 0, lines
    assert [n for n in names(lines) if n in CLAUDE_ITEMS] == CLAUDE_ITEMS
    assert [n for n in names(lines) if n.startswith("Codex ")] == CODEX_ITEMS
    # the two connected agents are checked; only Gemini CLI, never connected here, is not
    assert names([line for line in lines if "not connected" in line]) == ["Gemini CLI"]

    # Connected and broken: Claude Code's settings gone (its MCP registration stays), and
    # `codex` gone from PATH while config.toml names relaybay. Each FAILs with its fix.
    (claude_home / ".claude" / "settings.json").unlink()
    (bin_dir / "codex").unlink()
    code, lines = plain_doctor(server, claude_home, codex_home, bin_dir)
    assert code == 1
    failed = [line for line in lines if line.startswith("[FAIL]")]
    assert names(failed) == ["Codex", "hooks in user settings"]
    assert failed[0].endswith(
        "Fix: npm install -g @openai/codex, or relaybay setup --agent codex --remove "
        f"--home {server.home} --port {server.port} --codex-home {codex_home}"
    )
    assert failed[1].endswith(
        f"does not exist. Fix: relaybay setup --apply --home {server.home} --port {server.port}"
    )


def test_connected_is_what_relaybay_wrote_in_claude_codes_files(tmp_path) -> None:
    """relaybay's hooks at any address (or only the wake-up hook) or its MCP server connect
    Claude Code; a user's own hooks do not. A settings file that cannot be parsed counts
    only when it names relaybay, so its failure (with the repair) is shown, not hidden."""
    from agents.claude_code.setup.detect import claude_connected
    from agents.claude_code.setup.entries import command_hook, http_hook, wake_hook
    from agents.setup.target import Target

    home = tmp_path / "profile"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    assert not claude_connected(home)
    other = Target("http://127.0.0.1:9999", "/data/token", sys.executable)

    def with_hook(event: str, hook: dict) -> None:
        settings.write_text(json.dumps({"hooks": {event: [{"hooks": [hook]}]}}))

    with_hook("Stop", {"type": "command", "command": "notify-send done"})
    assert not claude_connected(home)
    with_hook("PreToolUse", {"type": "http", "url": "http://127.0.0.1:9000/hooks/mine"})
    assert not claude_connected(home)
    for hook in (command_hook(other), http_hook(other), wake_hook(other)):
        with_hook("Stop", hook)
        assert claude_connected(home), hook
    settings.write_text('{"hooks": {"Stop": [')
    assert not claude_connected(home)
    settings.write_text('{"hooks": {"Stop": [{"command": "python -m relaybay.hook_client"')
    assert claude_connected(home)
    settings.unlink()
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"relaybay": {}}}))
    assert claude_connected(home)
