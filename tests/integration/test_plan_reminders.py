"""Plan reminders in the hook answers against a real `relaybay serve` (§4 "Plan reminders").

The agent's writes go through the real MCP client (plan_set with hook_session makes the exact
link, §4 step 2); the hook events are the real Claude Code 2.1.332 payloads POSTed to
/hooks/claude-code with the Bearer token. The server runs with plan_reminder_every = 3.
"""

from __future__ import annotations

import http.client
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.sessions.hook_payloads import payload
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

EVERY = 3
UPDATE = (
    'Mark steps with plan_step_update as you go; done needs "as planned" or "deviation: <why>".'
)


@pytest.fixture(scope="module")
def reminder_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    home: Path = tmp_path_factory.mktemp("home")
    srv = RelaybayServer(home=home, env={"RELAYBAY_PLAN_REMINDER_EVERY": str(EVERY)}).start()
    yield srv
    srv.stop()


def hook(server: RelaybayServer, name: str, agent_id: str, cwd: str, **changes: Any) -> str:
    """POST one hook event; the additionalContext of a 200, "" for a 204."""
    body = json.dumps(payload(name, session_id=agent_id, cwd=cwd, **changes)).encode()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(
            "POST",
            "/hooks/claude-code",
            body=body,
            headers={
                "Authorization": f"Bearer {server.token}",
                "Content-Type": "application/json",
            },
        )
        response = conn.getresponse()
        raw = response.read()
    finally:
        conn.close()
    assert response.status in (200, 204), (response.status, raw[:300])
    if response.status == 204:
        return ""
    return json.loads(raw)["hookSpecificOutput"].get("additionalContext", "")


def test_an_exactly_linked_session_gets_its_plan_on_start_on_todo_changes_and_every_n_events(
    reminder_server: RelaybayServer,
):
    server = reminder_server
    slug, cwd, name, agent_id = "shop", "/home/dev/shop", "agent-1", str(uuid.uuid4())
    key = f"{slug}-1"

    def tool(tool_name: str, **args: Any) -> str:
        return call_tool(server.base_url, server.token, tool_name, args)

    def event(fixture: str, **changes: Any) -> str:
        return hook(server, fixture, agent_id, cwd, **changes)

    tool("project_upsert", slug=slug, repo_path=cwd)
    tool("task_create", project=slug, title="Address book")
    tool("task_bind_session", task=key, session=name)
    start = event("SessionStart.startup.interactive")
    assert start.startswith(f"Your relaybay hook session: {agent_id}.")
    assert "Plan of" not in start  # not linked exactly yet: no reminder

    steps = [
        {"title": "Address model", "details": "Fields and migration."},
        {"title": "Address book page", "details": "Add, edit and remove addresses."},
    ]
    tool("plan_set", task=key, steps=steps, session=name, hook_session=agent_id)
    tool("plan_accept", task=key, session="coordinator")
    tool("plan_step_update", task=key, step=1, status="done", conformance="as planned")
    tool("plan_step_update", task=key, step=2, status="in_progress", session=name)

    step_line = (
        f"Plan of {key} (accepted): step 2/2 'Address book page' — Add, edit and remove addresses."
    )
    start = event("SessionStart.startup.interactive")
    assert start.split("\n") == [
        f"Your relaybay hook session: {agent_id}. Pass it as hook_session in relaybay writes.",
        step_line,
        UPDATE,
    ]

    # PostToolUse 1: a todo change whose text SessionStart just sent: not twice in a row.
    assert event("PostToolUse.TaskCreate") == ""
    # 2: the item in progress changes the text: sent.
    doing = f"{step_line} Now doing: Writing the address book page.\n{UPDATE}"
    assert event("PostToolUse.TaskUpdate") == doing
    # 3: every third PostToolUse repeats the current text, even unchanged.
    assert event("PostToolUse.Bash") == doing
    # 4: the same todo change again: the same text, not sent; 5: nothing; 6: periodic.
    assert event("PostToolUse.TaskUpdate") == ""
    assert [event("PostToolUse.Bash") for _ in range(2)] == ["", doing]

    # SessionStart is a new context: the reminder again, and the periodic count restarts.
    again = event("SessionStart.resume.print")
    assert again.split("\n")[1:3] == doing.split("\n")
    assert again.split("\n")[3].startswith("relaybay resume brief: ")  # then the brief (issue 32)
    assert [event("PostToolUse.Bash") for _ in range(3)] == ["", "", doing]
