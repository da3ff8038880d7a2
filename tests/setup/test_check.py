"""`relaybay setup --check [--json]` against a running server and with it down (§5)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.server import RelaybayServer, run_cli


def write_profile(claude_home: Path, base_url: str | None = None) -> None:
    (claude_home / ".claude").mkdir(parents=True, exist_ok=True)
    if base_url is not None:
        servers = {"relaybay": {"type": "http", "url": base_url + "/mcp"}}
        (claude_home / ".claude.json").write_text(json.dumps({"mcpServers": servers}))


def apply_hooks(server: RelaybayServer, claude_home: Path, path: Path, *extra: str) -> None:
    done = run_cli(
        "setup", "--apply", "--port", str(server.port), "--claude-home", str(claude_home),
        *extra, home=server.home, env={"PATH": f"{path}{os.pathsep}{os.environ['PATH']}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def applied(
    tmp_path: Path, server: RelaybayServer, bin_dir: Path, *extra: str
) -> tuple[Path, Path]:
    """A Claude Code profile pointed at `server`, set up by `relaybay setup --apply`."""
    claude_home = tmp_path / "profile"
    write_profile(claude_home, server.base_url)
    apply_hooks(server, claude_home, bin_dir, *extra)
    return claude_home, bin_dir


def check(server_home: Path, port: int, claude_home: Path, path: Path, *extra: str):
    done = run_cli(
        "setup", "--check", "--json", "--port", str(port), "--claude-home", str(claude_home),
        *extra, home=server_home, env={"PATH": f"{path}{os.pathsep}{os.environ['PATH']}"},
    )  # fmt: skip
    return done.returncode, {i["name"]: i for i in json.loads(done.stdout)}, done


@pytest.fixture
def server(tmp_path: Path):
    srv = RelaybayServer(home=tmp_path / "data").start()
    yield srv
    srv.stop()


def test_check_passes_with_server_hooks_and_mcp(tmp_path, server, fake_claude) -> None:
    claude_home, bin_dir = applied(tmp_path, server, fake_claude("2.1.332 (Claude Code)"), "--wake")
    code, items, done = check(server.home, server.port, claude_home, bin_dir)
    assert code == 0, done.stdout
    assert all(i["ok"] for i in items.values()), items
    assert "same token" in items["relaybay server"]["detail"]
    assert items["MCP with the token"]["ok"]
    assert items["hook endpoint"]["ok"]
    assert "all 8 events" in items["hooks in user settings"]["detail"]
    assert "imports relaybay.hook_client" in items["command hook runs"]["detail"]
    approvals = items["approvals from the board"]["detail"]
    assert approvals == "PreToolUse and PermissionRequest wait up to 9 min for you"
    assert "2.1.309" in items["wake-up hook"]["detail"]
    assert "asyncRewake" in items["wake-up hook"]["detail"]
    assert items["MCP registered"]["ok"]


def test_check_plain_lines_name_a_missing_event_and_no_wake_line(
    tmp_path, server, fake_claude
) -> None:
    claude_home, bin_dir = applied(tmp_path, server, fake_claude("2.1.332"))
    settings_file = claude_home / ".claude" / "settings.json"
    data = json.loads(settings_file.read_text())
    del data["hooks"]["PostToolUse"]
    settings_file.write_text(json.dumps(data))
    done = run_cli(
        "setup", "--check", "--port", str(server.port), "--claude-home", str(claude_home),
        home=server.home, env={"PATH": str(bin_dir)},
    )  # fmt: skip
    assert done.returncode == 1
    assert "[FAIL] hooks in user settings: some events are missing: PostToolUse" in done.stdout
    assert "[ok] relaybay server:" in done.stdout
    assert "wake-up hook" not in done.stdout


def test_check_http_mode_needs_relaybay_token(tmp_path, server, fake_claude) -> None:
    claude_home, bin_dir = applied(tmp_path, server, fake_claude("2.1.332"), "--mode", "http")
    code, items, _ = check(server.home, server.port, claude_home, bin_dir)
    assert code == 1
    assert not items["http hooks token"]["ok"]
    assert "2.1.332" in items["SessionStart hook"]["detail"]
    assert items["command hook runs"]["ok"]  # SessionStart stays the command hook
    # http hooks hold through their X-Relaybay-Hold header
    assert items["approvals from the board"]["ok"], items["approvals from the board"]
    done = run_cli(
        "setup", "--check", "--json", "--port", str(server.port), "--claude-home",
        str(claude_home), home=server.home,
        env={"PATH": str(bin_dir), "RELAYBAY_TOKEN": server.token},
    )  # fmt: skip
    items = {i["name"]: i for i in json.loads(done.stdout)}
    assert items["http hooks token"]["ok"], items
    assert done.returncode == 0, done.stdout


def test_check_with_the_server_down_creates_the_token_and_fails(tmp_path, fake_claude) -> None:
    claude_home = tmp_path / "profile"
    write_profile(claude_home)
    home = tmp_path / "data"
    code, items, _ = check(home, 9, claude_home, fake_claude("2.1.332"))
    assert code == 1
    assert "nothing listens" in items["relaybay server"]["detail"]
    assert "MCP with the token" not in items
    assert not items["MCP registered"]["ok"]
    assert (home / "token").exists()


def test_check_reports_another_token(tmp_path, server, fake_claude) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "token").write_text("not-the-servers-token\n")
    other.joinpath("token").chmod(0o600)
    code, items, _ = check(other, server.port, tmp_path / "profile", fake_claude("2.1.332"))
    assert code == 1
    assert "another token" in items["relaybay server"]["detail"]
    assert not items["MCP with the token"]["ok"]


def test_check_fails_approvals_for_hooks_an_older_setup_wrote_until_setup_runs_again(
    tmp_path, server, fake_claude
) -> None:
    """An older setup wrote PreToolUse with a 3 s timeout and no --hold, and no
    PermissionRequest: nothing can wait for the board; setup --apply puts it right."""
    claude_home, bin_dir = applied(tmp_path, server, fake_claude("2.1.332"))
    settings_file = claude_home / ".claude" / "settings.json"
    data = json.loads(settings_file.read_text())
    del data["hooks"]["PermissionRequest"]
    [pre] = data["hooks"]["PreToolUse"][0]["hooks"]
    pre["command"] = pre["command"].removesuffix(" --hold 590")
    pre["timeout"] = 3
    settings_file.write_text(json.dumps(data))
    code, items, done = check(server.home, server.port, claude_home, bin_dir)
    assert code == 1
    item = items["approvals from the board"]
    assert not item["ok"]
    assert item["detail"].startswith(
        "PreToolUse and PermissionRequest cannot wait for your Approve or Deny: "
        "PreToolUse has no --hold (timeout 3 s); PermissionRequest has no relaybay hook"
    )
    assert item["fix"] == f"relaybay setup --apply --home {server.home} --port {server.port}"
    done = run_cli(
        "setup", "--check", "--port", str(server.port), "--claude-home", str(claude_home),
        home=server.home, env={"PATH": str(bin_dir)},
    )  # fmt: skip
    assert "[FAIL] approvals from the board: PreToolUse and PermissionRequest" in done.stdout
    assert f"Fix: relaybay setup --apply --home {server.home}" in done.stdout

    apply_hooks(server, claude_home, bin_dir)
    _, items, _ = check(server.home, server.port, claude_home, bin_dir)
    assert items["approvals from the board"]["ok"]


def test_check_says_holding_is_off_when_approval_wait_seconds_is_0(
    tmp_path, server, fake_claude
) -> None:
    claude_home, bin_dir = applied(tmp_path, server, fake_claude("2.1.332"))
    done = run_cli(
        "setup", "--check", "--json", "--port", str(server.port), "--claude-home",
        str(claude_home), home=server.home,
        env={"PATH": str(bin_dir), "RELAYBAY_APPROVAL_WAIT_SECONDS": "0"},
    )  # fmt: skip
    item = {i["name"]: i for i in json.loads(done.stdout)}["approvals from the board"]
    assert item["ok"]
    assert item["detail"].startswith("holding is off (approval_wait_seconds is 0)")
