"""`relaybay doctor [--json]`: reads, never writes, works with the server down (§5)."""

from __future__ import annotations

import json
import os
import sqlite3
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
    "relaybay server",
    "MCP with the token",
    "hook endpoint",
    "rules hash",
    "hooks in user settings",
    "command hook runs",
    "MCP registered",
]


def doctor(home: Path, port: int, claude_home: Path, path: Path | str, *extra: str):
    """The doctor's items; Codex's folder is one without config.toml unless --codex-home."""
    env = {"PATH": f"{path}{os.pathsep}{os.environ['PATH']}"}
    env["CODEX_HOME"] = str(claude_home / ".codex")
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
    claude_home = tmp_path / "profile"
    write_profile(claude_home, server.base_url)
    (claude_home / ".config" / "Claude").mkdir(parents=True)
    bin_dir = fake_claude("2.1.332 (Claude Code)")
    apply_hooks(server, claude_home, bin_dir)
    settings_before = (claude_home / ".claude" / "settings.json").read_bytes()
    code, items = doctor(server.home, server.port, claude_home, bin_dir)
    assert [i["name"] for i in items] == ORDER
    assert code == 0, items
    by_name = {i["name"]: i for i in items}
    assert "version 2.1.332" in by_name["Claude Code"]["detail"]
    assert by_name["Codex"]["ok"]  # no codex, no config.toml: one line, nothing to fail
    assert "nothing to check" in by_name["Codex"]["detail"]
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
    write_profile(claude_home)
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


# --- every [FAIL] ends with the command that fixes it (issue 13 §5) ------------------------


def test_a_failed_check_cannot_be_made_without_its_fix() -> None:
    from relaybay_site.setup.checks import Item

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
        "relaybay_site/setup/checks.py",
        "relaybay_site/setup/codex_checks.py",
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
