"""POST /hooks/claude-code/wait against a real `relaybay serve` (§4 Wake-up hook, §5).

A wait for an exactly linked, idle session answers 200 {"wake": …} within a second of an
owner comment being written on the board, and the hook client turns that into exit 2;
a newer wait for the same session ends the older one with 204; a session that is not
linked exactly gets 204 at once; 200 open waits never keep the server from stopping.
"""

from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.sessions.hook_payloads import payload
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

WAIT = "/hooks/claude-code/wait"
HOOK = "/hooks/claude-code"
SLUG = "wakeshop"


# --- HTTP helpers ------------------------------------------------------------------------------


def post(
    server: RelaybayServer, path: str, body: dict[str, Any] | bytes, timeout: float = 10
) -> tuple[int, bytes]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        conn.request(
            "POST",
            path,
            body=raw,
            headers={
                "Authorization": f"Bearer {server.token}",
                "Content-Type": "application/json",
            },
        )
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def hook(server: RelaybayServer, name: str, agent_id: str) -> tuple[int, bytes]:
    return post(server, HOOK, payload(name, session_id=agent_id))


def owner_comment(server: RelaybayServer, key: str, text: str) -> None:
    """The owner writes on the board: the comment form's POST (Bearer instead of cookie)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(
            "POST",
            f"/p/{SLUG}/t/{key}/comments",
            body=urllib.parse.urlencode({"body": text}),
            headers={
                "Authorization": f"Bearer {server.token}",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        response = conn.getresponse()
        response.read()
        assert response.status in (200, 303), response.status
    finally:
        conn.close()


def stats(server: RelaybayServer) -> dict[str, int]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request("GET", "/api/stats", headers={"Authorization": f"Bearer {server.token}"})
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def wait_until(predicate: Any, timeout: float = 10, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@dataclass
class HeldWait:
    """A wait request in a thread of its own: status, body and when the answer arrived."""

    server: RelaybayServer
    agent_id: str
    seconds: float = 60
    status: int | None = None
    body: bytes = b""
    answered_at: float | None = None

    def __post_init__(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        stop = payload("Stop.first", session_id=self.agent_id, relaybay_wait_seconds=self.seconds)
        self.status, self.body = post(self.server, WAIT, stop, timeout=self.seconds + 30)
        self.answered_at = time.monotonic()

    def join(self, timeout: float) -> HeldWait:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), f"no answer within {timeout}s"
        return self


# --- the scene: a task bound to a session whose agent linked its hook id ------------------------


def link_exact(server: RelaybayServer, names: list[str]) -> list[str]:
    """For each session name, a Claude Code id its agent linked exactly (hook_session on a
    write, §4 step 2), all through one MCP client. The ids, in order."""
    agent_ids = [str(uuid.uuid4()) for _ in names]

    async def scenario(agent: Agent) -> None:
        for name, agent_id in zip(names, agent_ids, strict=True):
            await agent.ok("project_upsert", slug=SLUG, session=name, hook_session=agent_id)

    run(server, scenario)
    return agent_ids


def linked_idle_session(
    server: RelaybayServer, name: str, *, exact: bool = True
) -> tuple[str, str]:
    """A task bound to session `name`, a Claude Code id linked to it (exactly, by the agent's
    hook_session, unless exact=False), and a Stop that left it idle. (agent_id, task key)."""
    agent_id = str(uuid.uuid4())

    async def scenario(agent: Agent) -> str:
        key = await new_task(agent, SLUG, title=f"Task of {name}")
        await agent.ok("task_bind_session", task=key, session=name)
        if exact:
            await agent.ok("project_upsert", slug=SLUG, session=name, hook_session=agent_id)
        return key

    key = run(server, scenario)
    assert hook(server, "SessionStart.startup.print", agent_id)[0] in (200, 204)
    assert hook(server, "Stop.first", agent_id)[0] in (200, 204)
    return agent_id, key


def start_server(home: Path) -> RelaybayServer:
    server = RelaybayServer(home=home).start()

    async def scenario(agent: Agent) -> None:
        await new_project(agent, SLUG)

    run(server, scenario)
    return server


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    server = start_server(tmp_path_factory.mktemp("wake") / "home")
    yield server
    server.stop()


# --- the waits ----------------------------------------------------------------------------------


def test_an_owner_comment_wakes_the_idle_session_within_a_second(served: RelaybayServer) -> None:
    agent_id, key = linked_idle_session(served, "wake-agent-1")
    wait = HeldWait(served, agent_id)
    wait_until(lambda: stats(served).get("waits", 0) >= 1, what="the wait to be held")
    time.sleep(0.3)
    assert wait.status is None, "the wait answered before any comment was written"
    written = time.monotonic()
    owner_comment(served, key, "Please also cover the empty cart.")
    wait.join(5)
    took = wait.answered_at - written
    print(f"\nwake-up answered {took * 1000:.0f} ms after the comment was written")
    assert wait.status == 200, wait.body
    lines = json.loads(wait.body)["wake"]
    assert re.search(rf"Owner comment on {key} \(#\d+\): Please also cover the empty cart\.", lines)
    assert took < 1.0
    # Delivered now: the next event of the session does not carry it again.
    _, body = hook(served, "PostToolUse.Bash", agent_id)
    assert "empty cart" not in body.decode()


def test_a_comment_written_before_the_wait_wakes_at_once(served: RelaybayServer) -> None:
    agent_id, key = linked_idle_session(served, "wake-agent-2")
    # The Stop above found nothing; the comment comes after it, before the next wait.
    owner_comment(served, key, "Written while the agent was idle.")
    started = time.monotonic()
    status, body = post(served, WAIT, payload("Stop.first", session_id=agent_id))
    assert status == 200
    assert "Written while the agent was idle." in json.loads(body)["wake"]
    assert time.monotonic() - started < 1.0


def test_the_hook_client_exits_2_with_the_lines_on_stderr(
    served: RelaybayServer, tmp_path: Path
) -> None:
    agent_id, key = linked_idle_session(served, "wake-agent-3")
    (tmp_path / "token").write_text(served.token)
    stop = json.dumps(payload("Stop.first", session_id=agent_id, relaybay_wait_seconds=30))
    proc = subprocess.Popen(
        [
            *(sys.executable, "-I", "-m", "relaybay.hook_client"),
            *("--url", served.base_url + WAIT, "--token-file", str(tmp_path / "token"), "--wait"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdin.write(stop.encode())
    proc.stdin.close()
    wait_until(lambda: stats(served).get("waits", 0) >= 1, what="the client's wait")
    owner_comment(served, key, "Wake up, please.")
    assert proc.wait(10) == 2
    assert proc.stdout.read() == b""
    assert f"Owner comment on {key}" in proc.stderr.read().decode()


def test_the_hook_client_prints_the_real_session_start_answer(
    served: RelaybayServer, tmp_path: Path
) -> None:
    """Not a wait: the plain forwarder against daphne (a chunked answer) prints it as is."""
    (tmp_path / "token").write_text(served.token)
    agent_id = str(uuid.uuid4())
    proc = subprocess.run(
        [
            *(sys.executable, "-I", "-m", "relaybay.hook_client"),
            *("--url", served.base_url + HOOK, "--token-file", str(tmp_path / "token")),
        ],
        input=json.dumps(payload("SessionStart.startup.print", session_id=agent_id)).encode(),
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, b"")
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"Your relaybay hook session: {agent_id}." in context


def test_a_newer_wait_for_the_same_session_ends_the_older_with_204(
    served: RelaybayServer,
) -> None:
    agent_id, key = linked_idle_session(served, "wake-agent-4")
    first = HeldWait(served, agent_id)
    wait_until(lambda: stats(served).get("waits", 0) >= 1, what="the first wait")
    started = time.monotonic()
    second = HeldWait(served, agent_id)
    first.join(5)
    assert first.status == 204
    assert first.answered_at - started < 1.0
    owner_comment(served, key, "For the newer wait.")
    second.join(5)
    assert second.status == 200
    assert "For the newer wait." in json.loads(second.body)["wake"]


def test_a_session_not_linked_exactly_gets_204_at_once(served: RelaybayServer) -> None:
    agent_id, _ = linked_idle_session(served, "wake-agent-5", exact=False)
    started = time.monotonic()
    assert post(served, WAIT, payload("Stop.first", session_id=agent_id))[0] == 204
    assert post(served, WAIT, payload("Stop.first", session_id=str(uuid.uuid4())))[0] == 204
    assert time.monotonic() - started < 1.0


def test_time_up_answers_204(served: RelaybayServer) -> None:
    agent_id, _ = linked_idle_session(served, "wake-agent-6")
    started = time.monotonic()
    body = payload("Stop.first", session_id=agent_id, relaybay_wait_seconds=0.5)
    assert post(served, WAIT, body)[0] == 204
    assert 0.4 < time.monotonic() - started < 2.0


def test_a_working_session_is_not_woken_until_it_stops(served: RelaybayServer) -> None:
    agent_id, key = linked_idle_session(served, "wake-agent-7")
    assert hook(served, "UserPromptSubmit.print", agent_id)[0] in (200, 204)  # working again
    wait = HeldWait(served, agent_id, seconds=30)
    wait_until(lambda: stats(served).get("waits", 0) >= 1, what="the wait")
    owner_comment(served, key, "Seen with the next tool call.")
    time.sleep(0.5)
    assert wait.status is None, "a working session was woken"
    status, _ = hook(served, "Stop.first", agent_id)  # the Stop blocks on the comment …
    assert status == 200
    time.sleep(0.5)
    assert wait.status is None, "woken although relaybay blocked this turn's Stop"
    # … and the newer wait of that Stop takes over: the older one ends with 204. The
    # comment went out with the block, so nothing is left to wake the newer one with.
    newer = payload("Stop.first", session_id=agent_id, relaybay_wait_seconds=0.3)
    assert post(served, WAIT, newer)[0] == 204
    wait.join(5)
    assert wait.status == 204


def test_a_held_wait_ends_with_204_when_the_session_ends(served: RelaybayServer) -> None:
    agent_id, _ = linked_idle_session(served, "wake-agent-8")
    wait = HeldWait(served, agent_id)
    wait_until(lambda: stats(served).get("waits", 0) >= 1, what="the wait")
    ended = time.monotonic()
    assert hook(served, "SessionEnd.prompt_input_exit.interactive", agent_id)[0] in (200, 204)
    wait.join(5)
    assert wait.status == 204
    assert wait.answered_at - ended < 1.0
    # An ended session is not waited for at all.
    started = time.monotonic()
    assert post(served, WAIT, payload("Stop.first", session_id=agent_id))[0] == 204
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize(
    ("body", "status"),
    [(b"not json", 400), (b"[1, 2]", 400), (b"{}", 204), (b"x" * (256 * 1024 + 1), 204)],
    ids=["not-json", "not-an-object", "no-session-id", "over-256-kb"],
)
def test_bodies_that_cannot_wait(served: RelaybayServer, body: bytes, status: int) -> None:
    assert post(served, WAIT, body)[0] == status


def test_a_wait_needs_the_token(served: RelaybayServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
    conn.request("POST", WAIT, body=b"{}", headers={"Content-Type": "application/json"})
    assert conn.getresponse().status == 401
    conn.close()


# --- shutdown ------------------------------------------------------------------------------------

WAITS = 200


def raw_wait(server: RelaybayServer, agent_id: str) -> socket.socket:
    """One wait request on a raw socket, left open."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    body = json.dumps(payload("Stop.first", session_id=agent_id))
    sock.sendall(
        f"POST {WAIT} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Authorization: Bearer {server.token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
    )
    return sock


def test_serve_exits_promptly_with_200_open_waits(tmp_path: Path) -> None:
    server = start_server(tmp_path / "home")
    socks: list[socket.socket] = []
    try:
        agent_ids = link_exact(server, [f"shutdown-agent-{n}" for n in range(WAITS)])
        socks = [raw_wait(server, agent_id) for agent_id in agent_ids]
        wait_until(lambda: stats(server).get("waits", 0) == WAITS, what="200 held waits")
        assert server.proc is not None
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(30)  # a hang fails below with its real duration
        took = time.monotonic() - started
        print(f"\nSIGTERM: relaybay serve exited in {took:.2f}s with {WAITS} held waits")
        assert took < 5.0, server.log()
        assert server.proc.returncode == 0, server.log()
        assert "Traceback" not in server.log()
        answered = 0
        for sock in socks:  # each hook saw its request end: a 204, or at least a close
            sock.settimeout(2)
            received = b""
            while chunk := sock.recv(4096):
                received += chunk
            answered += received.startswith(b"HTTP/1.1 204")
        print(f"{answered} of {WAITS} waits were answered 204 before the exit")
    finally:
        for sock in socks:
            sock.close()
        server.stop(signal.SIGKILL)
