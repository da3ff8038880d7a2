"""The owner approves from the board, through a real `relaybay serve` and each agent's
captured payloads: a held PermissionRequest (Claude Code, Codex) and a held guard ask on the
demo's live stand at level ask (Claude Code, Codex, Gemini CLI) answer with the owner's
Approve or Deny within a second of the click, a fail-closed deny (guard) or no answer (the
CLI's prompt) when time is up, nothing when the person answered in the terminal first; the
Bearer token cannot decide; fifty held hooks cost the server no thread each."""

from __future__ import annotations

import http.client
import json
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from core import tokens
from core.security import COOKIE_NAME
from tests.sessions.codex_payloads import codex_payload
from tests.sessions.gemini_payloads import gemini_payload
from tests.sessions.hook_payloads import payload as claude_payload
from tests.support.guarded_demo import asking_demo
from tests.support.server import RelaybayServer, read_only_db

pytestmark = pytest.mark.integration

RESTART = "ssh prod-alias sudo systemctl restart app"  # a remote change on the demo's live
HOLD = 60  # what the client says it waits: the server holds up to 50 s


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    with asking_demo(tmp_path_factory.mktemp("approvals")) as server:
        yield server


@dataclass
class Held:
    """One hook request the server may hold, posted from a thread as the hook client does."""

    server: RelaybayServer
    path: str
    body: dict[str, Any]
    hold: int = HOLD
    status: int = 0
    answer: Any = None
    ended_at: float = 0.0
    thread: threading.Thread = field(init=False)

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self._post, daemon=True)
        self.thread.start()

    def _post(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=self.hold + 30)
        headers = {
            "Content-Type": "application/json",
            "Authorization": f"Bearer {self.server.token}",
            "X-Relaybay-Hold": str(self.hold),
        }
        try:
            conn.request("POST", self.path, body=json.dumps(self.body), headers=headers)
            reply = conn.getresponse()
            raw = reply.read()
            self.status, self.answer = reply.status, json.loads(raw) if raw else None
        finally:
            self.ended_at = time.monotonic()
            conn.close()

    def result(self, timeout: float = 90) -> tuple[int, Any]:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the held hook was never answered"
        return self.status, self.answer


def approvals(home: Path, session_id: str) -> list[dict[str, Any]]:
    with read_only_db(home) as db:
        db.row_factory = sqlite3.Row
        rows = db.execute(
            "SELECT * FROM agent_sessions_approvalrequest WHERE agent_session_id = ? ORDER BY id",
            (session_id,),
        ).fetchall()
    return [dict(r) for r in rows]


def hold(
    server: RelaybayServer, hook: Callable[[str], tuple[str, dict]], seconds: int = HOLD
) -> tuple[str, Held, dict[str, Any]]:
    """A new session's hook `hook(sid)` sent held, and its request once it is pending."""
    sid = str(uuid.uuid4())
    held = Held(server, *hook(sid), hold=seconds)
    return sid, held, pending(server.home, sid)


def pending(home: Path, session_id: str, timeout: float = 15) -> dict[str, Any]:
    """The session's request once it is stored and waits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [r for r in approvals(home, session_id) if r["state"] == "pending"]
        if found:
            return found[-1]
        time.sleep(0.05)
    raise AssertionError(f"no pending approval for {session_id}")


def board(server: RelaybayServer, path: str, form: dict[str, str], *, bearer: bool = False):
    """A board write as the signed-in browser sends it (cookie, CSRF, Origin), or with the
    Bearer token instead."""
    if bearer:
        headers = {"Authorization": f"Bearer {server.token}"}
        body = urlencode(form)
    else:
        cookie = f"{COOKIE_NAME}={tokens.cookie_value(server.token)}"
        headers = {"Cookie": cookie, "Origin": server.base_url}
        body = urlencode({"csrf_token": tokens.csrf_token(server.token), **form})
    headers |= {
        "Host": f"127.0.0.1:{server.port}",
        "Content-Type": "application/x-www-form-urlencoded",
    }
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request("POST", path, body=body, headers=headers)
        reply = conn.getresponse()
        return reply.status, reply.read().decode()
    finally:
        conn.close()


def decide(server: RelaybayServer, approval: int, verb: str, message: str = "") -> float:
    """Approve or Deny on the board; when the click's answer came back."""
    status, text = board(server, f"/approvals/{approval}/{verb}", {"message": message})
    assert status in (200, 303), text
    return time.monotonic()


# --- the agents' tool calls the guard asks about -------------------------------------------------


def claude_pre(sid: str) -> tuple[str, dict[str, Any]]:
    body = claude_payload("PreToolUse.Bash", session_id=sid, cwd="/home/dev/acme-shop")
    return "/hooks/claude-code", {**body, "tool_input": {"command": RESTART}}


def codex_pre(sid: str) -> tuple[str, dict[str, Any]]:
    body = codex_payload("PreToolUse.Bash", session_id=sid, cwd="/home/dev/acme-shop")
    return "/hooks/codex", {**body, "tool_input": {"command": RESTART}}


def gemini_pre(sid: str) -> tuple[str, dict[str, Any]]:
    body = gemini_payload("BeforeTool.run_shell_command", session_id=sid)
    return "/hooks/gemini", {**body, "tool_input": {"command": RESTART, "description": "x"}}


AGENTS = {"claude-code": claude_pre, "codex": codex_pre, "gemini": gemini_pre}
# What the owner's Approve is, said each agent's way: Claude Code allows, the others run the
# tool on the empty answer (their PreToolUse / BeforeTool "allow" does nothing).
APPROVED = {
    "claude-code": lambda a: a["hookSpecificOutput"]["permissionDecision"] == "allow",
    "codex": lambda a: a is None,
    "gemini": lambda a: a is None,
}


def denial(agent: str, answer: Any) -> str:
    """The deny's reason as the agent reads it."""
    if agent == "gemini":
        assert answer["decision"] == "deny"
        return answer["reason"]
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    return output["permissionDecisionReason"]


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_a_guard_ask_held_and_approved_lets_the_call_through(
    demo: RelaybayServer, agent: str
) -> None:
    sid, held, request = hold(demo, AGENTS[agent])
    assert (request["source"], request["stand"], request["level"]) == ("guard", "live", "ask")
    assert RESTART.split()[0] in request["summary"]
    clicked = decide(demo, request["id"], "approve")
    status, answer = held.result()
    assert status in (200, 204)
    assert APPROVED[agent](answer), answer
    assert held.ended_at - clicked < 1.0
    assert approvals(demo.home, sid)[-1]["state"] == "approved"
    with read_only_db(demo.home) as db:
        entry, decided = (
            json.loads(
                db.execute(
                    f"SELECT payload FROM tasks_event WHERE kind = '{k}' ORDER BY id DESC LIMIT 1"
                ).fetchone()[0]
            )
            for k in ("live.action", "approval.decided")
        )
    assert (entry["decision"], entry["sent"], entry["agent"]) == ("ask", "hold", agent)
    assert (decided["outcome"], decided["stand"]) == ("approved", "live")


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_a_guard_ask_denied_on_the_board_blocks_the_call_with_the_owners_words(
    demo: RelaybayServer, agent: str
) -> None:
    _, held, request = hold(demo, AGENTS[agent])
    decide(demo, request["id"], "deny", "not during the sale")
    status, answer = held.result()
    assert status == 200
    assert denial(agent, answer).endswith("on the relaybay board: not during the sale")


def test_a_guard_ask_nobody_answers_is_denied_in_time(demo: RelaybayServer) -> None:
    """The client waits 12 s: the server answers after 2 (fail closed), never letting the
    agent's own timeout run the call."""
    sid = str(uuid.uuid4())
    started = time.monotonic()
    held = Held(demo, *claude_pre(sid), hold=12)
    status, answer = held.result()
    assert status == 200
    assert "did not answer on the relaybay board" in denial("claude-code", answer)
    assert held.ended_at - started < 10
    assert approvals(demo.home, sid)[-1]["state"] == "timed_out"


def test_without_a_hold_the_guard_asks_as_before(demo: RelaybayServer) -> None:
    sid = str(uuid.uuid4())
    status, answer = demo.post_hook(*claude_pre(sid))
    assert (status, answer["hookSpecificOutput"]["permissionDecision"]) == (200, "ask")
    assert approvals(demo.home, sid) == []


# --- the CLI's own permission prompt -------------------------------------------------------------


PROMPTS = {
    "claude-code": lambda sid: (
        "/hooks/claude-code",
        claude_payload("PermissionRequest.Bash.print", session_id=sid, cwd="/home/dev/acme-shop"),
    ),
    "codex": lambda sid: (
        "/hooks/codex",
        codex_payload("PermissionRequest.Bash", session_id=sid, cwd="/home/dev/acme-shop"),
    ),
}


@pytest.mark.parametrize("agent", sorted(PROMPTS))
def test_a_permission_request_approved_or_denied_on_the_board(
    demo: RelaybayServer, agent: str
) -> None:
    sid, held, request = hold(demo, PROMPTS[agent])
    assert request["source"] == "cli"
    clicked = decide(demo, request["id"], "approve")
    status, answer = held.result()
    assert status == 200
    assert held.ended_at - clicked < 1.0
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }
    }

    held = Held(demo, *PROMPTS[agent](sid))
    request = pending(demo.home, sid)
    decide(demo, request["id"], "deny", "use the staging box")
    _, answer = held.result()
    assert answer["hookSpecificOutput"]["decision"] == {
        "behavior": "deny",
        "message": "The owner denied this on the relaybay board: use the staging box",
    }


def test_a_permission_request_nobody_answers_gets_no_answer(demo: RelaybayServer) -> None:
    sid = str(uuid.uuid4())
    held = Held(demo, *PROMPTS["claude-code"](sid), hold=12)
    assert held.result() == (204, None)  # the CLI falls back to its own prompt
    assert approvals(demo.home, sid)[-1]["state"] == "timed_out"


def test_the_terminal_answering_first_clears_the_request(demo: RelaybayServer) -> None:
    """The person pressed Enter in the TUI: Claude Code never tells the hook, but the call's
    PostToolUse comes: the request leaves the board and the held hook ends quietly."""
    sid = str(uuid.uuid4())
    held = Held(demo, *PROMPTS["claude-code"](sid))
    pending(demo.home, sid)
    ran = claude_payload("PostToolUse.Bash", session_id=sid, cwd="/home/dev/acme-shop")
    assert demo.post_hook("/hooks/claude-code", ran)[0] in (200, 204)
    assert held.result(timeout=10) == (204, None)
    assert approvals(demo.home, sid)[-1]["state"] == "terminal"


def test_a_hook_that_goes_away_ends_its_request(demo: RelaybayServer) -> None:
    sid = str(uuid.uuid4())
    path, body = claude_pre(sid)
    data = json.dumps(body).encode()
    with socket.create_connection(("127.0.0.1", demo.port), timeout=10) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{demo.port}\r\n"
            f"Authorization: Bearer {demo.token}\r\nContent-Type: application/json\r\n"
            f"X-Relaybay-Hold: {HOLD}\r\nContent-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        pending(demo.home, sid)
    deadline = time.monotonic() + 10
    while approvals(demo.home, sid)[-1]["state"] == "pending" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert approvals(demo.home, sid)[-1]["state"] == "gone"


# --- who may decide ------------------------------------------------------------------------------


def test_the_bearer_token_cannot_decide_and_no_mcp_tool_does(demo: RelaybayServer) -> None:
    from tests.support.mcp_client import mcp_client, run_async

    async def tool_names() -> set[str]:
        async with mcp_client(demo.base_url, demo.token) as session:
            return {t.name for t in (await session.list_tools()).tools}

    sid, held, request = hold(demo, claude_pre, seconds=15)
    status, text = board(demo, f"/approvals/{request['id']}/approve", {}, bearer=True)
    assert status == 403
    assert "never with the Bearer token" in text
    assert approvals(demo.home, sid)[-1]["state"] == "pending"
    names = run_async(tool_names())
    assert not {n for n in names if "approv" in n or "decide" in n}
    held.result()


def test_fifty_held_hooks_cost_no_thread_each_and_the_board_stays_quick(
    demo: RelaybayServer,
) -> None:
    def threads() -> int:
        status = Path(f"/proc/{demo.proc.pid}/status").read_text()
        return int(
            next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:"))
        )

    before = threads()
    sids = [str(uuid.uuid4()) for _ in range(50)]
    held = [Held(demo, *claude_pre(sid), hold=25) for sid in sids]
    for sid in sids:
        pending(demo.home, sid, timeout=60)
    during = threads()
    started = time.monotonic()
    assert demo.healthz()["version"]
    quick = time.monotonic() - started
    for each in held:
        _, answer = each.result()
        assert "did not answer" in denial("claude-code", answer)
    assert during - before < 10, (before, during)
    print(
        f"\n50 held hooks: threads {before} -> {during}; /healthz meanwhile {quick * 1000:.0f} ms"
    )
