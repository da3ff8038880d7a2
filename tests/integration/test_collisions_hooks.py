"""Collision warnings and the resume brief end to end (issue 32): a real `relaybay serve`,
two agents bound through the real MCP client, their PreToolUse events through the real hook
endpoints of both CLIs — the second hears at once, the first on its next answer, the Inbox
lists them; then the first resumes and its brief names the file its task touched. Neither
the server's log nor any file of the data folder holds the file's contents."""

from __future__ import annotations

import http.client
import uuid
from typing import Any

import pytest

from tests.sessions.codex_payloads import codex_payload
from tests.sessions.hook_payloads import CWD, payload
from tests.support.mcp_client import call_tools
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

CONTENT = "A-LINE-OF-CODE-NEVER-KEPT"


def post(server: RelaybayServer, path: str, body: dict[str, Any]) -> str:
    """The additionalContext of the hook's answer ("" for none)."""
    status, answer = server.post_hook(path, body)
    assert status in (200, 204), answer
    return (answer or {}).get("hookSpecificOutput", {}).get("additionalContext", "")


def call(server: RelaybayServer, *calls: tuple[str, dict[str, Any]]) -> list[str]:
    return call_tools(server.base_url, server.token, *calls)


def test_two_agents_changing_one_file_hear_of_each_other(fresh_server: RelaybayServer) -> None:
    server = fresh_server
    claude_id, codex_id = str(uuid.uuid4()), str(uuid.uuid4())
    call(server, ("project_upsert", {"slug": "acme-shop", "name": "Shop", "repo_path": CWD}))
    for name, title, agent_id in (("alice", "Cart", claude_id), ("bob", "Search", codex_id)):
        [created] = call(server, ("task_create", {"project": "acme-shop", "title": title}))
        key = created.split()[1]
        call(
            server,
            ("task_bind_session", {"task": key, "session": name}),
            ("project_upsert", {"slug": "acme-shop", "session": name, "hook_session": agent_id}),
        )
    edit = {"file_path": f"{CWD}/src/cart.py", "old_string": "a", "new_string": CONTENT}
    claude_edit = payload(
        "PreToolUse.Bash", session_id=claude_id, tool_name="Edit", tool_input=edit
    )
    assert post(server, "/hooks/claude-code", claude_edit) == ""

    patch = f"*** Begin Patch\n*** Update File: src/cart.py\n@@\n+{CONTENT}\n*** End Patch\n"
    codex_patch = codex_payload(
        "PreToolUse.Bash",
        session_id=codex_id,
        tool_name="apply_patch",
        tool_input={"command": patch},
    )
    told = post(server, "/hooks/codex", codex_patch)
    mirror = post(server, "/hooks/claude-code", payload("PostToolUse.Bash", session_id=claude_id))

    assert (
        told == "acme-shop-1 (alice) edited src/cart.py just now — coordinate before changing it."
    )
    assert mirror.startswith("acme-shop-2 (bob) is changing src/cart.py too")
    page = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    page.request("GET", "/inbox", headers={"Authorization": f"Bearer {server.token}"})
    html = page.getresponse().read().decode()
    assert "Sessions colliding" in html
    assert "with acme-shop-1 (alice): src/cart.py" in html
    assert CONTENT not in server.log()

    # Alice's agent resumes (Claude Code's SessionStart "resume"): the brief of her task,
    # with the path its session touched, and the same bytes a new binding would answer.
    resume = payload("SessionStart.resume.print", session_id=claude_id)
    resumed = post(server, "/hooks/claude-code", resume)
    brief = resumed[resumed.index("relaybay resume brief: ") :]
    assert "\n## acme-shop-1 Cart\n- Stage: plan" in brief
    assert brief.endswith("\n- Files its sessions touched lately: src/cart.py")
    [_, bound] = call(
        server,
        ("task_unbind_session", {"task": "acme-shop-1", "session": "alice"}),
        ("task_bind_session", {"task": "acme-shop-1", "session": "alice"}),
    )
    assert bound == f"Bound acme-shop-1 to session alice.\n\n{brief}"
    stored = [p for p in server.home.rglob("*") if p.is_file()]
    assert stored
    assert not [p.name for p in stored if CONTENT.encode() in p.read_bytes()]
