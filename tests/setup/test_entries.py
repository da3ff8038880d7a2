"""The marker rules (§5): what setup treats as relaybay's entries, and nothing else."""

from __future__ import annotations

import pytest

from agents.claude_code.setup.detect import (
    ClaudeCode,
    detect_claude,
    mcp_registration,
    parse_version,
)
from agents.claude_code.setup.entries import hook_command, is_relaybay_hook, is_wake_hook
from agents.setup.hook_line import quote
from agents.setup.target import Target

TARGET = Target(base_url="http://127.0.0.1:8765", token_file="/t/token", python="/usr/bin/python3")


def command(text: str) -> dict:
    return {"type": "command", "command": text}


@pytest.mark.parametrize(
    "hook",
    [
        command(
            "/usr/bin/python3 -I -m relaybay.hook_client "
            "--url http://127.0.0.1:8765/hooks/claude-code --token-file /t/token"
        ),
        command(
            "'/opt/py 3/bin/python' -I -m relaybay.hook_client --url=http://localhost:9000/hooks/claude-code"
        ),
        command("relaybay hook --url http://127.0.0.1:8765/hooks/claude-code"),
        command(
            "/home/dev/.local/bin/relaybay hook "
            "--url https://[::1]:8765/hooks/claude-code --home /x"
        ),
        {"type": "http", "url": "http://127.0.0.1:8765/hooks/claude-code"},
        {"type": "http", "url": "http://localhost:1234/hooks/claude-code", "timeout": 9},
        {"type": "http", "url": "http://[::1]:8765/hooks/claude-code"},
    ],
)
def test_relaybays_entries_are_recognised(hook) -> None:
    assert is_relaybay_hook(hook, TARGET)
    assert not is_wake_hook(hook)


@pytest.mark.parametrize(
    "hook",
    [
        command("python3 -m relaybay.hook_client --url http://127.0.0.1:8765/hooks/other"),
        command("python3 -m relaybay.hook_client --url http://127.0.0.1/hooks/claude-code"),
        command("python3 -m relaybay.hook_client --token-file /t/token"),
        command("python3 my_relaybay_hook_client.py --url http://127.0.0.1:8765/hooks/claude-code"),
        command("echo relaybay hook --url http://127.0.0.1:8765/hooks/claude-code/x"),
        command("python3 -m relaybay.hook_client --url 'http://127.0.0.1:8765/hooks/claude-code"),
        {"type": "http", "url": "http://127.0.0.1:8765/hooks/claude-code/extra"},
        {"type": "http", "url": "https://hooks.example.com:8765/hooks/claude-code"},
        {"type": "http", "url": "http://10.0.0.5:8765/hooks/claude-code"},
        {"type": "prompt", "prompt": "relaybay.hook_client /hooks/claude-code"},
        {"type": "command"},
    ],
)
def test_similar_user_hooks_are_not_relaybays(hook) -> None:
    assert not is_relaybay_hook(hook, TARGET)
    assert not is_wake_hook(hook)


def test_the_configured_host_counts_for_http_hooks() -> None:
    lan = Target(base_url="http://10.0.0.5:8765", token_file="/t", python="/p", host="10.0.0.5")
    assert is_relaybay_hook({"type": "http", "url": "http://10.0.0.5:8765/hooks/claude-code"}, lan)


def test_the_wake_up_hook_is_the_wait_url_followed_by_exactly_wait() -> None:
    built = command(hook_command(TARGET, wait=True))
    assert is_wake_hook(built)
    assert not is_relaybay_hook(built, TARGET)
    wait = "python3 -m relaybay.hook_client --url http://127.0.0.1:8765/hooks/claude-code/wait"
    assert is_wake_hook(command(wait + " --wait"))
    assert not is_wake_hook(command(wait))
    assert not is_wake_hook(command(wait + " --wait --verbose"))
    assert not is_wake_hook(command(wait + " --wait --wait"))
    url = "python3 -m relaybay.hook_client --url http://127.0.0.1:8765/hooks/claude-code"
    assert not is_wake_hook(command(url + " --wait"))


def test_paths_with_spaces_dollars_or_backticks_are_single_quoted() -> None:
    target = Target(
        base_url="http://127.0.0.1:8765", token_file="/a/$HOME/`x`/token", python="/my py/python"
    )
    assert hook_command(target) == (
        "'/my py/python' -I -m relaybay.hook_client --url http://127.0.0.1:8765/hooks/claude-code"
        " --token-file '/a/$HOME/`x`/token'"
    )
    assert is_relaybay_hook(command(hook_command(target)), target)


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("2.1.332 (Claude Code)\n", (2, 1, 332)),
        ("2.0.5", (2, 0, 5)),
        ("claude 10.20.30-beta", (10, 20, 30)),
        ("Claude Code", None),
        ("", None),
    ],
)
def test_versions_are_parsed(text, version) -> None:
    assert parse_version(text) == version


def test_http_hooks_and_async_rewake_need_their_minimum_versions() -> None:
    assert ClaudeCode("/c", (2, 1, 63)).http_hooks
    assert not ClaudeCode("/c", (2, 1, 62)).http_hooks
    assert ClaudeCode("/c", (2, 1, 309)).async_rewake
    assert not ClaudeCode("/c", (2, 1, 308)).async_rewake
    assert not ClaudeCode("/c", None).async_rewake
    assert not ClaudeCode(None, None).http_hooks


def test_a_fake_claude_on_path_is_detected(fake_claude) -> None:
    folder = fake_claude("2.1.332 (Claude Code)")
    found = detect_claude(str(folder))
    assert found.path == str(folder / "claude")
    assert found.version == (2, 1, 332)
    assert detect_claude(str(folder.parent / "nowhere")) == ClaudeCode(None, None)


def test_the_mcp_registration_is_read_from_claude_json(tmp_path) -> None:
    path = tmp_path / ".claude.json"
    assert mcp_registration(path) is None
    path.write_text('{"mcpServers": {"other": {"type": "http", "url": "http://x/mcp"}}}')
    assert mcp_registration(path) is None
    path.write_text(
        '{"projects": {}, "mcpServers": {"relaybay": {"type": "http", '
        '"url": "http://127.0.0.1:8765/mcp", "headers": {"Authorization": "Bearer x"}}}}'
    )
    assert mcp_registration(path) == "http://127.0.0.1:8765/mcp"
    path.write_text("not json")
    assert mcp_registration(path) is None


def test_windows_paths_with_spaces_are_double_quoted() -> None:
    assert quote("C:\\Program Files\\Python312\\python.exe", windows=True) == (
        '"C:\\Program Files\\Python312\\python.exe"'
    )
    assert quote("C:\\py\\python.exe", windows=True) == "C:\\py\\python.exe"
