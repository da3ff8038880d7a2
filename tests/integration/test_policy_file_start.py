"""policy.json and `relaybay serve` (§7, §10): a broken file stops the start like a broken
config.toml — exit 2, one line per error naming the file, nothing started — a valid one
starts, and one that breaks while the server runs keeps its last valid version in effect."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from tests.integration.mcp_agent import Agent, run
from tests.support.server import RelaybayServer, free_port, run_cli

pytestmark = pytest.mark.integration

REFUSED_START_TIMEOUT = 20  # a refused start never gets near the server: it must end at once
LOUD = "guard.mode: 'loud' is not one of ['off', 'log', 'warn', 'block']"


def port_is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


BROKEN = [
    pytest.param("policy.json", '{"guard": {"mode": "loud"}}', (), LOUD, id="bad-value"),
    pytest.param(
        "policy.json",
        '{"guard": {"mode": ',
        (),
        "not valid JSON: line 1 column 20: Expecting value",
        id="malformed-json",
    ),
    pytest.param(
        "policy.json", "[]", (), "the policy must be a JSON object ({…})", id="not-an-object"
    ),
    pytest.param(
        "policy.json",
        '{"guard": {"patterns": [{"id": "git-push", "change": "x"}]}}',
        (),
        "guard.patterns[0].id: 'git-push' is a built-in rule id; choose another id",
        id="built-in-pattern-id",
    ),
    pytest.param(
        "team-policy.json",
        '{"levels": {"staging": {}}}',
        ("--policy-file", "team-policy.json"),
        "levels: unknown key; the keys here are local, test, live",
        id="policy-file-setting",
    ),
]


@pytest.mark.parametrize(("name", "text", "args", "problem"), BROKEN)
def test_a_broken_policy_file_stops_serve_with_exit_2_and_one_line(
    tmp_path: Path, name: str, text: str, args: tuple[str, ...], problem: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / name).write_text(text)
    port = free_port()
    started = time.monotonic()
    result = run_cli("serve", "--port", str(port), *args, home=home, timeout=REFUSED_START_TIMEOUT)
    assert time.monotonic() - started < REFUSED_START_TIMEOUT
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.splitlines() == [
        f"relaybay: invalid policy file: {home / name}: {problem}"
    ]
    assert result.stdout == ""
    # Nothing started: no lock, no database, no token, and the port is still free.
    assert sorted(p.name for p in home.iterdir()) == [name]
    assert port_is_free(port)


def test_every_error_of_a_broken_file_is_a_line_of_its_own_naming_the_file(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    broken = {"guard": {"mode": "loud", "disable": ["nope"]}, "levels": {"x": {}}}
    (home / "policy.json").write_text(json.dumps(broken))
    result = run_cli("serve", "--port", str(free_port()), home=home, timeout=REFUSED_START_TIMEOUT)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 3, result.stderr
    assert all(
        line.startswith(f"relaybay: invalid policy file: {home / 'policy.json'}: ")
        for line in lines
    )
    assert any(LOUD in line for line in lines)
    assert "Traceback" not in result.stderr


def test_a_valid_policy_file_starts_and_one_that_breaks_later_keeps_the_last_valid_version(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    policy = home / "policy.json"
    policy.write_text(json.dumps({"guard": {"mode": "block"}}))
    server = RelaybayServer(home=home).start()
    try:
        assert server.healthz()["status"] == "ok"

        async def valid(agent: Agent) -> None:
            text = await agent.ok("policy_get")
            assert "Layers, a later one winning: preset:default → global" in text
            assert '- guard.mode = "block" (global)' in text
            assert "broken" not in text

        run(server, valid)

        policy.write_text(json.dumps({"guard": {"mode": "loud"}, "description": "oops"}))

        async def broken(agent: Agent) -> None:
            for _ in range(2):  # read twice: logged once
                text = await agent.ok("policy_get")
                assert '- guard.mode = "block" (global)' in text
                assert (
                    f"policy.json is broken; its last valid version is in effect: {policy}: {LOUD}"
                ) in text

        run(server, broken)
        assert server.log().count("policy file is broken") == 1, server.log()

        policy.write_text(json.dumps({"guard": {"mode": "log"}}))

        async def fixed(agent: Agent) -> None:
            text = await agent.ok("policy_get")
            assert '- guard.mode = "log" (global)' in text
            assert "broken" not in text

        run(server, fixed)
    finally:
        server.stop()
