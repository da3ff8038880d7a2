"""The guard's "done means" on the demo (§7, issue 16): a real `relaybay serve` on a data
folder seeded by `relaybay demo` (acme-shop's live stand at level read, its project layer in
guard mode block, ssh alias prod-alias) answering the real Claude Code PreToolUse payload."""

from __future__ import annotations

import http.client
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.sessions.hook_payloads import payload
from tests.support.server import RelaybayServer, read_only_db, run_cli, run_django

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    home = tmp_path_factory.mktemp("guard-demo")
    run_cli("demo", "--home", str(home))
    server = RelaybayServer(home=home).start()
    yield server
    server.stop()


def pre_tool_use(server: RelaybayServer, command: str) -> tuple[int, Any]:
    body = payload(
        "PreToolUse.Bash",
        session_id=str(uuid.uuid4()),
        tool_input={"command": command, "description": "x"},
    )
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(
            "POST",
            "/hooks/claude-code",
            body=json.dumps(body),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {server.token}"},
        )
        reply = conn.getresponse()
        raw = reply.read()
    finally:
        conn.close()
    return reply.status, json.loads(raw) if raw else None


def journal(home: Path) -> list[dict[str, Any]]:
    with read_only_db(home) as db:
        rows = db.execute("SELECT payload FROM tasks_event WHERE kind = 'live.action' ORDER BY id")
        return [json.loads(row[0]) for row in rows]


def test_a_restart_over_ssh_is_denied_and_a_read_passes_silently(demo: RelaybayServer) -> None:
    status, answer = pre_tool_use(demo, "ssh prod-alias sudo systemctl restart app")
    assert status == 200
    output = answer["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] == "deny"
    assert output["permissionDecisionReason"].startswith(
        "relaybay guard: acme-shop live (live) is read-only for agents; this looks like a "
        "remote change over ssh (matched 'prod-alias')."
    )
    assert pre_tool_use(demo, "ssh prod-alias uptime") == (204, None)
    seen = [(j["decision"], j["command"]) for j in journal(demo.home)[-2:]]
    assert seen == [
        ("deny", "ssh prod-alias sudo systemctl restart app"),
        ("allow", "ssh prod-alias uptime"),
    ]


def test_the_journal_never_holds_the_secret(demo: RelaybayServer) -> None:
    pre_tool_use(demo, "ssh prod-alias 'sshpass -p Hunter2secret scp x y'")
    assert "Hunter2secret" not in json.dumps(journal(demo.home))
    assert "Hunter2secret" not in demo.log()


def test_in_warn_mode_the_call_goes_on_with_the_reason(demo: RelaybayServer) -> None:
    run_django(
        demo.home,
        """
        import json
        from policy import services
        layer = json.dumps({"guard": {"mode": "warn"}})
        services.policy_layer_save(scope="acme-shop", text=layer, actor="owner", confirmed=True)
        """,
    )
    status, answer = pre_tool_use(demo, "ssh prod-alias sudo systemctl restart app")
    assert status == 200
    output = answer["hookSpecificOutput"]
    assert "permissionDecision" not in output
    assert "remote change over ssh" in output["additionalContext"]
    assert output["additionalContext"].endswith("(warn mode: not blocked)")
    assert journal(demo.home)[-1]["decision"] == "warn"
