"""POST /hooks/claude-code against a real `relaybay serve` with the real Claude Code 2.1.332
payloads (§4, §9): the body rules, statuses, coalescing, linking, SessionEnd and the todo.

Projects, tasks and bindings are made through the real MCP client; the server's database
is read directly (read-only) to see what the hooks stored. The module's server is shared,
so every test uses Claude Code ids and folders of its own.
"""

from __future__ import annotations

import http.client
import json
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.sessions.hook_payloads import http_stop_request, payload
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

HOOK = "/hooks/claude-code"
LIMIT = 256 * 1024


@dataclass
class Reply:
    status: int
    body: bytes
    content_type: str

    @property
    def json(self) -> Any:
        return json.loads(self.body)


def post(
    server: RelaybayServer,
    body: dict[str, Any] | bytes,
    *,
    headers: dict[str, str] | None = None,
    token: str | None = "default",
    chunked: bool = False,
) -> Reply:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {"Content-Type": "application/json"}
    if token is not None:
        sent["Authorization"] = f"Bearer {server.token if token == 'default' else token}"
    sent.update(headers or {})
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        if chunked:
            chunks = (raw[i : i + 65536] for i in range(0, len(raw), 65536))
            conn.request("POST", HOOK, body=chunks, headers=sent, encode_chunked=True)
        else:
            conn.request("POST", HOOK, body=raw, headers=sent)
        response = conn.getresponse()
        return Reply(response.status, response.read(), response.getheader("Content-Type") or "")
    finally:
        conn.close()


def new_id() -> str:
    return str(uuid.uuid4())


def new_desktop() -> str:
    return f"local_{uuid.uuid4()}"


def event(name: str, agent_id: str, **changes: Any) -> dict[str, Any]:
    return payload(name, session_id=agent_id, **changes)


def send(server: RelaybayServer, name: str, agent_id: str, **changes: Any) -> Reply:
    reply = post(server, event(name, agent_id, **changes))
    assert reply.status in (200, 204), reply.body
    return reply


def query(server: RelaybayServer, sql: str, *args: Any) -> list[dict[str, Any]]:
    uri = f"file:{server.home / 'relaybay.sqlite'}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True, timeout=5)) as db:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute(sql, args)]


def session_of(server: RelaybayServer, agent_id: str) -> dict[str, Any] | None:
    rows = query(
        server, "SELECT * FROM agent_sessions_session WHERE agent_session_id = ?", agent_id
    )
    return rows[0] if rows else None


def desktop_row(server: RelaybayServer, desktop: str) -> dict[str, Any]:
    [row] = query(server, "SELECT * FROM agent_sessions_session WHERE desktop_id = ?", desktop)
    return row


def current_bindings(server: RelaybayServer, key: str) -> list[dict[str, Any]]:
    return query(
        server,
        "SELECT b.*, s.name AS session_name FROM agent_sessions_taskbinding b "
        "JOIN tasks_task t ON t.id = b.task_id JOIN agent_sessions_session s "
        "ON s.id = b.session_id WHERE t.key = ? ORDER BY b.id",
        key,
    )


def todo(server: RelaybayServer, agent_id: str) -> list[tuple[str, str, str, str]]:
    rows = query(
        server,
        "SELECT t.item_id, t.subject, t.status, t.active_form FROM agent_sessions_sessiontodo t "
        "JOIN agent_sessions_session s ON s.id = t.session_id "
        "WHERE s.agent_session_id = ? AND t.agent_session_id = ? ORDER BY t.position",
        agent_id,
        agent_id,
    )
    return [(r["item_id"], r["subject"], r["status"], r["active_form"]) for r in rows]


def mcp(server: RelaybayServer, tool: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, tool, args)


def project_with_task(server: RelaybayServer, folder: str, title: str = "A task") -> str:
    """A project whose repo_path is `folder` with one task; the task's key."""
    slug = "p-" + uuid.uuid4().hex[:10]
    mcp(server, "project_upsert", slug=slug, repo_path=folder, session="tester")
    text = mcp(server, "task_create", project=slug, title=title, session="tester")
    return text.split()[1]


def bind(server: RelaybayServer, key: str, session: str) -> None:
    mcp(server, "task_bind_session", task=key, session=session)


def folder() -> str:
    return f"/home/dev/shop-{uuid.uuid4().hex[:8]}"


def events_of(server: RelaybayServer, kind: str, key: str) -> list[dict[str, Any]]:
    rows = query(
        server,
        "SELECT e.payload FROM tasks_event e JOIN tasks_task t ON t.id = e.task_id "
        "WHERE e.kind = ? AND t.key = ? ORDER BY e.id",
        kind,
        key,
    )
    return [json.loads(r["payload"]) for r in rows]


def padded(body: dict[str, Any], size: int) -> bytes:
    """The JSON body with a filler field, exactly `size` bytes long (still valid JSON)."""
    raw = json.dumps(body).encode()
    head = raw[:-1] + b', "pad": "'
    data = head + b"x" * (size - len(head) - 2) + b'"}'
    assert len(data) == size
    json.loads(data)
    return data


# --- the body and the security rules ------------------------------------------------------


def test_a_body_over_256_kb_is_dropped_with_204(server: RelaybayServer):
    agent_id = new_id()
    reply = post(server, padded(event("SessionStart.startup.print", agent_id), LIMIT + 1))
    assert (reply.status, reply.body) == (204, b"")
    assert session_of(server, agent_id) is None


def test_a_body_of_exactly_256_kb_is_handled(server: RelaybayServer):
    agent_id = new_id()
    assert post(server, padded(event("SessionStart.startup.print", agent_id), LIMIT)).status == 200
    assert session_of(server, agent_id) is not None


def test_a_chunked_body_over_the_limit_is_dropped_whatever_the_headers_say(server):
    agent_id = new_id()
    raw = json.dumps(event("SessionStart.startup.print", agent_id, pad="y" * LIMIT)).encode()
    reply = post(server, raw, chunked=True)
    assert reply.status == 204
    assert session_of(server, agent_id) is None


def test_a_chunked_body_within_the_limit_is_read_whole(server: RelaybayServer):
    agent_id = new_id()
    raw = padded(event("SessionStart.startup.print", agent_id), 200_000)
    assert post(server, raw, chunked=True).status == 200
    assert session_of(server, agent_id)["hook_status"] == "working"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"not json at all", "not JSON"),
        (b"\xff\xfe{}", "not JSON"),
        (b"", "not JSON"),
        (b'["SessionStart"]', "JSON object"),
        (b'"text"', "JSON object"),
        (b"[" * 100_000 + b"]" * 100_000, "not JSON"),  # nested too deep to parse
    ],
)
def test_a_body_that_is_not_a_json_object_gets_400_with_the_reason(server, body, reason):
    reply = post(server, body)
    assert reply.status == 400
    assert reason in reply.body.decode()


def test_a_missing_or_wrong_token_gets_401(server: RelaybayServer):
    body = event("SessionStart.startup.print", new_id())
    assert post(server, body, token=None).status == 401
    assert post(server, body, token="wrong-token").status == 401
    assert session_of(server, body["session_id"]) is None


def test_a_foreign_origin_gets_403(server: RelaybayServer):
    body = event("SessionStart.startup.print", new_id())
    reply = post(server, body, headers={"Origin": "http://evil.example"})
    assert reply.status == 403
    assert session_of(server, body["session_id"]) is None


def test_get_is_not_allowed(server: RelaybayServer):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", HOOK, headers={"Authorization": f"Bearer {server.token}"})
        assert conn.getresponse().status == 405
    finally:
        conn.close()


def test_other_events_are_ignored_with_204(server: RelaybayServer):
    agent_id = new_id()
    reply = post(server, event("Stop.first", agent_id, hook_event_name="SubagentStop"))
    assert reply.status == 204
    assert session_of(server, agent_id) is None


def test_the_hook_client_reads_no_json_when_the_server_answers_204(
    server: RelaybayServer, tmp_path: Path
) -> None:
    """Most events are answered 204: then the client imports nothing to read an answer with
    (json brings re and enum, ~8 ms of every event's start-up; issue 18)."""
    agent_id = new_id()
    (tmp_path / "token").write_text(server.token)
    proc = subprocess.run(
        [
            *(sys.executable, "-I", "-X", "importtime", "-m", "relaybay.hook_client"),
            *("--url", server.base_url + HOOK, "--token-file", str(tmp_path / "token")),
        ],
        input=json.dumps(event("PostToolUse.Bash", agent_id)).encode(),
        capture_output=True,
        timeout=30,
        check=False,
    )
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.decode().splitlines()
        if line.startswith("import time:")
    }
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert session_of(server, agent_id) is not None, "the event never reached the server"
    assert post(server, event("PostToolUse.Bash", agent_id)).status == 204
    assert {"relaybay", "_socket"} <= modules
    heavy = {"json", "re", "socket", "typing", "urllib.request", "http.client", "ssl", "email"}
    assert modules & heavy == set()


# --- statuses and the answer --------------------------------------------------------------


def test_session_start_answers_the_hook_session_line(server: RelaybayServer):
    agent_id = new_id()
    reply = post(server, event("SessionStart.startup.interactive", agent_id))
    assert reply.status == 200
    assert reply.content_type.startswith("application/json")
    assert reply.json == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": f"Your relaybay hook session: {agent_id}. "
            "Pass it as hook_session in relaybay writes.",
        }
    }


def test_each_event_sets_the_hook_status(server: RelaybayServer):
    agent_id = new_id()
    # Every step changes the status, so every activity is written at once (no coalescing).
    # A permission prompt waits on the pending call (issue 19: what the session waits on).
    permission = "Notification.permission_prompt.interactive"
    steps = [
        ("SessionStart.startup.print", "working", "started (startup)", 200),
        (permission, "waiting", "permission for a tool", 204),
        ("UserPromptSubmit.print", "working", "prompt", 204),
        ("Stop.first", "idle", "turn finished", 204),
        ("PreToolUse.Bash", "working", "Bash", 204),
        (permission, "waiting", "Bash echo hello-from-bash", 204),
        ("PostToolUse.mcp.structured", "working", "mcp__demo__echo", 204),
        ("SessionEnd.prompt_input_exit.interactive", "ended", "ended (prompt_input_exit)", 204),
    ]
    for name, status, activity, code in steps:
        reply = post(server, event(name, agent_id))
        assert reply.status == code, name
        row = session_of(server, agent_id)
        assert (row["hook_status"], row["activity"]) == (status, activity), name
    assert row["name"] == "acme-shop"
    assert row["kind"] == "hook"


def test_activity_is_coalesced_but_a_status_change_is_written_at_once(server: RelaybayServer):
    agent_id = new_id()
    send(server, "SessionStart.startup.print", agent_id)
    time.sleep(0.01)
    send(server, "PostToolUse.Bash", agent_id)  # within 5 s of the start, same status
    first = session_of(server, agent_id)
    assert first["activity"] == "started (startup)"
    send(server, "PostToolUse.mcp.unstructured", agent_id)
    second = session_of(server, agent_id)
    assert (second["activity"], second["activity_at"]) == (first["activity"], first["activity_at"])

    send(server, "Stop.first", agent_id)  # a status change: at once
    assert session_of(server, agent_id)["hook_status"] == "idle"
    send(server, "PreToolUse.mcp", agent_id)
    row = session_of(server, agent_id)
    assert (row["hook_status"], row["activity"]) == ("working", "mcp__demo__echo")


def test_status_changes_reach_every_bound_task_as_events(server: RelaybayServer):
    key = project_with_task(server, folder())
    agent_id = new_id()
    bind(server, key, "status-agent")
    mcp(server, "task_update", task=key, branch="b1", session="status-agent", hook_session=agent_id)
    send(server, "UserPromptSubmit.print", agent_id)
    send(server, "Stop.first", agent_id)
    changes = events_of(server, "session.status_changed", key)
    assert changes == [
        {"session": "status-agent", "from": "", "to": "working"},
        {"session": "status-agent", "from": "working", "to": "idle"},
    ]


def test_prompt_text_and_tool_input_are_never_stored(server: RelaybayServer):
    agent_id = new_id()
    secret = "SECRET-" + uuid.uuid4().hex
    send(server, "UserPromptSubmit.print", agent_id, prompt=f"please {secret}")
    send(server, "PreToolUse.Bash", agent_id, tool_input={"command": f"echo {secret}"})
    send(server, "PostToolUse.Bash", agent_id, tool_input={"command": f"echo {secret}"})
    # The call ran: a later prompt is not about it, so nothing of it is kept.
    send(server, "Notification.permission_prompt.interactive", agent_id)
    assert session_of(server, agent_id)["hook_status"] == "waiting"
    assert_nowhere(server, secret)


def test_a_pending_calls_summary_is_stored_masked(server: RelaybayServer):
    """The one exception (issue 19): what a session waits on, with secrets masked."""
    agent_id = new_id()
    token = "ghp_" + uuid.uuid4().hex[:36]
    command = f"curl -H 'Authorization: token {token}' https://api.github.com/user"
    send(server, "PreToolUse.Bash", agent_id, tool_input={"command": command})
    send(server, "Notification.permission_prompt.interactive", agent_id)
    row = session_of(server, agent_id)
    assert row["hook_status"] == "waiting"
    assert row["activity"].startswith("Bash curl -H 'Authorization: token ")
    assert_nowhere(server, token)


def assert_nowhere(server: RelaybayServer, secret: str) -> None:
    for path in server.home.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path.name


# --- SessionEnd ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "unbound"),
    [
        ("SessionEnd.other.print", True),
        ("SessionEnd.prompt_input_exit.interactive", True),
        ("SessionEnd.clear.interactive", False),
    ],
)
def test_session_end_unbinds_except_after_clear(server, fixture, unbound):
    key = project_with_task(server, folder())
    name = "end-" + uuid.uuid4().hex[:6]
    agent_id = new_id()
    bind(server, key, name)
    mcp(server, "task_update", task=key, branch="b", session=name, hook_session=agent_id)
    send(server, "SessionStart.startup.print", agent_id)

    assert send(server, fixture, agent_id).status == 204

    [binding] = current_bindings(server, key)
    assert session_of(server, agent_id)["hook_status"] == "ended"
    if unbound:
        assert binding["unbound_at"] is not None
        assert (binding["unbind_reason"], binding["unbound_by"]) == ("session_end", "hook")
        assert events_of(server, "task.session_unbound", key) == [
            {"session": name, "reason": "session_end"}
        ]
    else:
        assert binding["unbound_at"] is None
        assert events_of(server, "task.session_unbound", key) == []


def test_session_end_keeps_a_desktop_sessions_tasks(server: RelaybayServer):
    key = project_with_task(server, folder())
    desktop, agent_id = new_desktop(), new_id()
    bind(server, key, desktop)
    send(server, "SessionStart.startup.print", agent_id, relaybay_host_session=desktop)
    send(server, "SessionEnd.other.print", agent_id)
    [binding] = current_bindings(server, key)
    assert binding["unbound_at"] is None
    assert desktop_row(server, desktop)["hook_status"] == "ended"


def test_a_session_end_for_an_unknown_id_is_dropped(server: RelaybayServer):
    agent_id = new_id()
    assert send(server, "SessionEnd.other.print", agent_id).status == 204
    assert session_of(server, agent_id) is None


# --- linking ------------------------------------------------------------------------------


def test_the_desktop_session_of_the_environment_is_linked_exactly(server: RelaybayServer):
    key = project_with_task(server, folder())
    desktop, agent_id = new_desktop(), new_id()
    bind(server, key, desktop)
    reply = post(
        server,
        event(
            "SessionStart.startup.interactive",
            agent_id,
            relaybay_host_session=desktop,
            relaybay_host_attended="1",
        ),
    )
    assert reply.json["hookSpecificOutput"]["additionalContext"].startswith(
        f"Your relaybay hook session: {agent_id}."
    )
    row = desktop_row(server, desktop)
    assert (row["agent_session_id"], row["agent_exact"], row["hook_status"]) == (
        agent_id,
        1,
        "working",
    )


def test_the_http_hook_headers_link_the_desktop_session(server: RelaybayServer):
    desktop, agent_id = new_desktop(), new_id()
    bind(server, project_with_task(server, folder()), desktop)
    captured = http_stop_request()
    assert captured["headers"]["X-Relaybay-Host-Session"] == "local_desktop_abc"
    body = {**captured["body"], "session_id": agent_id}
    reply = post(server, body, headers={"X-Relaybay-Host-Session": desktop})
    assert reply.status == 204
    row = desktop_row(server, desktop)
    assert (row["agent_session_id"], row["agent_exact"], row["hook_status"]) == (
        agent_id,
        1,
        "idle",
    )


def test_the_captured_malformed_desktop_id_is_ignored(server: RelaybayServer):
    captured = http_stop_request()
    agent_id = new_id()
    body = {**captured["body"], "session_id": agent_id}
    reply = post(server, body, headers={"X-Relaybay-Host-Session": "local_desktop_abc"})
    assert reply.status == 204
    assert session_of(server, agent_id)["kind"] == "hook"


def test_the_live_link_move_rules(server: RelaybayServer):
    desktop = new_desktop()
    bind(server, project_with_task(server, folder()), desktop)
    live = new_id()

    def start(fixture: str, agent_id: str, attended: str, **changes: Any) -> None:
        send(
            server,
            fixture,
            agent_id,
            relaybay_host_session=desktop,
            relaybay_host_attended=attended,
            **changes,
        )

    start("SessionStart.startup.interactive", live, "1")
    assert desktop_row(server, desktop)["agent_session_id"] == live

    start("SessionStart.startup.interactive", new_id(), "1")  # a plain startup
    assert desktop_row(server, desktop)["agent_session_id"] == live
    start("SessionStart.resume.print", new_id(), "0")  # claude -p from one of its tools
    assert desktop_row(server, desktop)["agent_session_id"] == live

    resumed = new_id()
    start("SessionStart.resume.print", resumed, "1")  # the window itself
    row = desktop_row(server, desktop)
    assert (row["agent_session_id"], row["agent_exact"], row["activity"]) == (
        resumed,
        1,
        "started (resume)",
    )
    assert session_of(server, live) is None

    send(server, "SessionEnd.clear.interactive", resumed)
    cleared = new_id()
    start("SessionStart.clear.interactive", cleared, "1")
    assert desktop_row(server, desktop)["agent_session_id"] == cleared


def test_an_id_the_agent_linked_itself_is_never_taken_by_the_environment(server):
    key = project_with_task(server, folder())
    desktop, agent_id, name = new_desktop(), new_id(), "self-" + uuid.uuid4().hex[:6]
    bind(server, key, desktop)
    mcp(server, "task_update", task=key, branch="x", session=name, hook_session=agent_id)
    window = {"relaybay_host_session": desktop, "relaybay_host_attended": "1"}
    send(server, "SessionStart.resume.print", agent_id, **window)
    assert session_of(server, agent_id)["name"] == name
    assert desktop_row(server, desktop)["agent_session_id"] is None


def test_the_folders_one_desktop_session_is_linked_by_guess(server: RelaybayServer):
    where = folder()
    desktop, agent_id = new_desktop(), new_id()
    bind(server, project_with_task(server, where), desktop)
    send(server, "SessionStart.startup.print", agent_id, cwd=f"{where}/src")
    row = desktop_row(server, desktop)
    assert (row["agent_session_id"], row["agent_exact"], row["hook_status"]) == (
        agent_id,
        0,
        "working",
    )


def test_several_candidates_leave_the_hook_session_unlinked_with_a_reason(server):
    where = folder()
    key = project_with_task(server, where)
    slug = key.rsplit("-", 1)[0]
    bind(server, key, new_desktop())
    other = mcp(server, "task_create", project=slug, title="Other", session="tester").split()[1]
    bind(server, other, new_desktop())
    agent_id = new_id()
    send(server, "SessionStart.startup.print", agent_id, cwd=where)
    row = session_of(server, agent_id)
    assert row["kind"] == "hook"
    assert row["unlinked_reason"].startswith(f"2 desktop sessions are bound to tasks of {slug}")


def test_a_folder_in_no_project_gets_a_plain_session_named_after_it(server):
    agent_id = new_id()
    send(server, "SessionStart.startup.print", agent_id, cwd="/srv/elsewhere/invoice-tool")
    row = session_of(server, agent_id)
    assert (row["name"], row["kind"], row["agent_exact"], row["unlinked_reason"]) == (
        "invoice-tool",
        "hook",
        0,
        "",
    )
    assert row["project_id"] is None


# --- the todo -----------------------------------------------------------------------------


def test_todo_shapes_over_http(server: RelaybayServer):
    agent_id = new_id()
    send(server, "PostToolUse.TaskCreate", agent_id)
    assert todo(server, agent_id) == [
        ("1", "Write the address book page", "pending", "Writing the address book page")
    ]
    send(server, "PostToolUse.TaskUpdate", agent_id)
    assert todo(server, agent_id)[0][2] == "in_progress"
    send(
        server,
        "PostToolUse.TaskUpdate",
        agent_id,
        tool_input={"taskId": "1"},
        tool_response={"success": True, "taskId": "1", "statusChange": {"to": "completed"}},
    )
    assert todo(server, agent_id)[0][2] == "completed"
    send(
        server, "PostToolUse.TaskUpdate", agent_id, tool_input={"taskId": "9", "status": "deleted"}
    )
    send(server, "PostToolUse.Bash", agent_id, tool_name="TaskCreate", tool_response="odd shape")
    assert len(todo(server, agent_id)) == 1

    todos = [{"content": f"step {n} " + "z" * 250, "status": "pending"} for n in range(55)]
    send(server, "PostToolUse.Bash", agent_id, tool_name="TodoWrite", tool_input={"todos": todos})
    stored = todo(server, agent_id)
    assert len(stored) == 50
    assert {len(subject) for _, subject, _, _ in stored} == {200}


def test_a_todo_change_emits_session_todo_updated_for_the_bound_task(server):
    key = project_with_task(server, folder())
    agent_id, name = new_id(), "todo-" + uuid.uuid4().hex[:6]
    bind(server, key, name)
    mcp(server, "task_update", task=key, branch="t", session=name, hook_session=agent_id)
    send(server, "PostToolUse.TaskCreate", agent_id)
    send(server, "PostToolUse.TaskUpdate", agent_id)
    assert events_of(server, "session.todo_updated", key) == [
        {"session": name, "items": 1, "in_progress": ""},
        {"session": name, "items": 1, "in_progress": "Writing the address book page"},
    ]


@pytest.fixture(autouse=True)
def _no_server_errors(server: RelaybayServer) -> Iterator[None]:
    yield
    assert "Traceback" not in server.log()


def test_a_working_sessions_latest_activity_is_written_when_its_window_ends(
    server: RelaybayServer,
) -> None:
    """§4 "at most once per 5 s per session (the latest wins)": after UserPromptSubmit →
    PreToolUse Edit → PostToolUse Edit the session must not still say "prompt" 9 s later."""
    agent_id = new_id()
    send(server, "UserPromptSubmit.print", agent_id)
    send(server, "PreToolUse.Bash", agent_id, tool_name="Edit")
    send(server, "PostToolUse.Bash", agent_id, tool_name="Edit")
    row = session_of(server, agent_id)
    assert row is not None
    assert row["activity"] == "prompt"  # inside the window: coalesced
    deadline = time.monotonic() + 9
    while time.monotonic() < deadline and row["activity"] != "Edit":
        time.sleep(0.25)
        row = session_of(server, agent_id) or row
    assert (row["hook_status"], row["activity"]) == ("working", "Edit")
