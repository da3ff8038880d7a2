"""POST /hooks/codex against a real `relaybay serve` with the real Codex 0.169.0 hook inputs
(issue 30): statuses, linking (also through an MCP call's _meta.sessionId), owner comments
across a `codex exec` process ending and `codex exec resume`, and the guard on the demo's
live stand — never an "allow" or an "ask" answer to Codex."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sessions.fields import stored_agent_id
from tests.integration.mcp_agent import Agent
from tests.sessions.codex_payloads import CWD, NAMES, codex_payload, sequence
from tests.support import tokens
from tests.support.guarded_demo import guard_mode, journal
from tests.support.mcp_client import mcp_client, text_of
from tests.support.server import RelaybayServer, read_only_db, run_cli, run_django

pytestmark = pytest.mark.integration

HOOK = "/hooks/codex"


def post(server: RelaybayServer, body: dict[str, Any]) -> tuple[int, Any]:
    return server.post_hook(HOOK, body)


def send(server: RelaybayServer, name: str, session_id: str, **changes: Any) -> Any:
    status, answer = post(server, codex_payload(name, session_id=session_id, **changes))
    assert status in (200, 204), answer
    assert (status == 204) == (answer is None)
    return answer


def context(answer: Any) -> str:
    return (answer or {}).get("hookSpecificOutput", {}).get("additionalContext", "")


def row(home: Path, session_id: str) -> dict[str, Any]:
    with read_only_db(home) as db:
        db.row_factory = __import__("sqlite3").Row
        found = db.execute(
            "SELECT * FROM agent_sessions_session WHERE agent_session_id = ?", (session_id,)
        ).fetchone()
    assert found is not None, session_id
    return dict(found)


def new_thread() -> str:
    return str(uuid.uuid4())


# --- every captured input -----------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_captured_input_is_answered_and_never_with_allow_or_ask(
    server: RelaybayServer, name: str
) -> None:
    body = codex_payload(name, session_id=new_thread())
    status, answer = post(server, body)
    assert status in (200, 204)
    output = (answer or {}).get("hookSpecificOutput", {})
    assert output.get("permissionDecision") in (None, "deny")
    if answer is not None:
        assert "decision" not in output  # a PermissionRequest is the owner's to answer


def test_a_codex_run_reports_status_agent_and_transcript_and_its_end_leaves_it_idle(
    server: RelaybayServer,
) -> None:
    thread = new_thread()
    statuses = []
    for body in sequence("exec-two-turns"):
        status, answer = post(server, {**body, "session_id": thread})
        assert status in (200, 204)
        statuses.append((body["hook_event_name"], row(server.home, thread)["hook_status"]))
        if body["hook_event_name"] == "SessionStart":
            assert f"Your relaybay hook session: {thread}." in context(answer)
            assert "link this session by themselves" in context(answer)
    assert statuses[0] == ("SessionStart", "working")
    assert ("Stop", "idle") in statuses
    assert statuses[7] == ("SessionEnd", "idle")  # the process ended, not the session
    assert statuses[8] == ("SessionStart", "working")  # codex exec resume: the same thread
    session = row(server.home, thread)
    assert (session["agent"], session["hook_status"]) == ("codex", "idle")
    assert session["transcript_path"].endswith("-01a24837-a070-71b3-94a8-3c4850047b3a.jsonl")
    assert session["activity"] == "process ended (other)"


# --- linking and owner comments --------------------------------------------------------------


async def call(agent: Agent, tool: str, meta: dict[str, Any] | None, **args: Any) -> Any:
    return await agent.client.call_tool(tool, args, meta=meta)


def run(server: RelaybayServer, scenario: Any) -> Any:
    async def main() -> Any:
        async with mcp_client(server.base_url, server.token) as client:
            return await scenario(Agent(client))

    return asyncio.run(main())


def owner_comment(home: Path, key: str, body: str) -> None:
    run_django(
        home,
        f"""
        from tasks import services
        services.owner_comment_add(key={key!r}, body={body!r})
        """,
    )


def test_an_mcp_call_carrying_the_thread_links_it_exactly_and_a_refused_one_links_nothing(
    fresh_server: RelaybayServer,
) -> None:
    thread = new_thread()
    meta = {"sessionId": thread, "threadId": thread}

    async def scenario(agent: Agent) -> str:
        await agent.ok("project_upsert", slug="acme-shop", repo_path=CWD)
        created = await agent.ok("task_create", project="acme-shop", title="Fix the cart")
        key = re.match(r"Created (\S+) ", created).group(1)
        send(fresh_server, "SessionStart.startup.exec", thread)
        refused = await call(
            agent, "task_update", meta, task=key, session="codex-one", expected_version=99
        )
        assert refused.is_error
        assert row(fresh_server.home, thread)["agent_exact"] == 0  # a refused write links nothing
        done = await call(agent, "task_update", meta, task=key, session="codex-one", progress="a")
        assert not done.is_error, text_of(done)
        await agent.ok("task_bind_session", task=key, session="codex-one")
        return key

    key = run(fresh_server, scenario)
    linked = row(fresh_server.home, thread)
    assert (linked["name"], linked["agent_exact"], linked["agent"]) == ("codex-one", 1, "codex")

    # The owner writes; the next tool call of the linked Codex session carries it.
    owner_comment(fresh_server.home, key, "Use the staging database.")
    answer = send(fresh_server, "PreToolUse.Bash", thread)
    assert re.search(
        rf"Owner comment on {key} \(#\d+\): Use the staging database\.", context(answer)
    )

    # `codex exec` ends with SessionEnd "other": the work goes on, the binding stays …
    send(fresh_server, "SessionEnd.exec", thread)
    with read_only_db(fresh_server.home) as db:
        bound = db.execute(
            "SELECT COUNT(*) FROM agent_sessions_taskbinding WHERE unbound_at IS NULL"
        ).fetchone()[0]
    assert bound == 1
    assert row(fresh_server.home, thread)["hook_status"] == "idle"
    # … and a comment written in between reaches `codex exec resume` of the same thread.
    owner_comment(fresh_server.home, key, "Then run the migration.")
    start = send(fresh_server, "SessionStart.resume.exec", thread)
    assert "You have 2 unread owner comment(s)" in context(start)  # delivered ≠ read
    prompt = send(fresh_server, "UserPromptSubmit.exec", thread)
    assert "Then run the migration." in context(prompt)


# --- the guard on the demo's live stand -----------------------------------------------------


def test_a_thread_id_shaped_like_a_token_still_links_through_its_stand_in(
    fresh_server: RelaybayServer,
) -> None:
    """Issue 38: an agent's session id is an observation. One shaped like a token (it fits
    Codex's id alphabet) is kept as a stable masked-<digest> stand-in by the hooks and by
    the MCP call that carries it, so the call links the session instead of being refused."""
    thread = tokens.aws_key_id("ASIA", seed="codex-thread")
    meta = {"sessionId": thread, "threadId": thread}

    async def scenario(agent: Agent) -> None:
        await agent.ok("project_upsert", slug="acme-shop", repo_path=CWD)
        created = await agent.ok("task_create", project="acme-shop", title="Fix the cart")
        key = re.match(r"Created (\S+) ", created).group(1)
        start = send(fresh_server, "SessionStart.startup.exec", thread)
        assert f"Your relaybay hook session: {stored_agent_id(thread)}." in context(start)
        done = await call(agent, "task_update", meta, task=key, session="codex-two", progress="a")
        assert not done.is_error, text_of(done)

    run(fresh_server, scenario)
    linked = row(fresh_server.home, stored_agent_id(thread))
    assert (linked["name"], linked["agent_exact"]) == ("codex-two", 1)
    assert thread.encode() not in (fresh_server.home / "relaybay.sqlite").read_bytes()
    assert "Refused" not in fresh_server.log()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    home = tmp_path_factory.mktemp("codex-demo")
    assert run_cli("demo", "--home", str(home)).returncode == 0
    server = RelaybayServer(home=home).start()
    yield server
    server.stop()


def shell(server: RelaybayServer, command: str) -> Any:
    return send(server, "PreToolUse.Bash", new_thread(), tool_input={"command": command})


def test_the_guard_stands_in_front_of_codex(demo: RelaybayServer) -> None:
    guard_mode(demo.home, "block")
    denied = shell(demo, "ssh prod-alias sudo systemctl restart app")["hookSpecificOutput"]
    assert (denied["hookEventName"], denied["permissionDecision"]) == ("PreToolUse", "deny")
    assert denied["permissionDecisionReason"].startswith(
        "relaybay guard: acme-shop live (live) is read-only for agents; this looks like a "
        "remote change over ssh (matched 'prod-alias')."
    )
    entry = journal(demo.home)
    assert (entry["agent"], entry["decision"], entry["sent"]) == ("codex", "deny", "deny")

    guard_mode(demo.home, "block", live_level="ask")
    asked = shell(demo, "ssh prod-alias sudo systemctl restart app")["hookSpecificOutput"]
    assert asked["permissionDecision"] == "deny"
    assert "ask the owner in the chat" in asked["permissionDecisionReason"]
    entry = journal(demo.home)
    assert (entry["agent"], entry["decision"], entry["sent"]) == ("codex", "ask", "deny")

    guard_mode(demo.home, "warn")
    warned = shell(demo, "ssh prod-alias sudo systemctl restart app")["hookSpecificOutput"]
    assert "permissionDecision" not in warned
    assert "(warn mode: not blocked)" in warned["additionalContext"]

    assert shell(demo, "ssh prod-alias uptime") is None  # a read passes silently
    assert (journal(demo.home)["decision"], journal(demo.home)["agent"]) == ("allow", "codex")
