"""The clients of bench/soak.py: simulated Claude Code sessions posting the captured hook
bodies, the board reader and the /healthz floor on HTTP connections in threads, and the MCP
clients on an event loop of their own. What each sends, not what is measured of it
(_soak_parts.py records and samples)."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
from typing import Any

from _soak_parts import Recorder, paced

from tests.support.claude_code import CLAUDE_CODE
from tests.support.mcp_client import mcp_client, text_of
from tests.support.server import RelaybayServer

SLUG = "soak"
MCP_INTERVAL = 0.5  # seconds between two tool calls of one client
FLOOR = "floor GET /healthz"
FIXTURES = CLAUDE_CODE / "hooks"
TURN = (
    "UserPromptSubmit.print",
    "PreToolUse.Bash",
    "PostToolUse.Bash",
    "PreToolUse.mcp",
    "PostToolUse.mcp.unstructured",
    "PostToolUse.TaskCreate",
    "PostToolUse.TaskUpdate",
    "PreToolUse.Bash",
    "PostToolUse.Bash",
    "Stop.first",
)


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())


# --- HTTP clients in threads: hook sessions and the board reader -----------------------------


def request(
    conn: http.client.HTTPConnection, method: str, path: str, token: str, body: bytes | None
) -> int:
    headers = {"Authorization": f"Bearer {token}"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    return response.status


def http_loop(
    server: RelaybayServer,
    rec: Recorder,
    stop: threading.Event,
    interval: float,
    offset: float,
    calls: list[tuple[str, str, str, bytes | None, tuple[int, ...]]],
) -> None:
    """Send `calls` (endpoint, method, path, body, expected statuses) in a loop, paced, on
    one keep-alive connection; a broken connection is an error and is opened again."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    n = 0
    for _ in paced(stop, interval, offset):
        endpoint, method, path, body, expected = calls[n % len(calls)]
        n += 1
        began = time.perf_counter()
        try:
            status = request(conn, method, path, server.token, body)
        except (OSError, http.client.HTTPException) as exc:
            rec.error(endpoint, repr(exc))
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            continue
        rec.status(endpoint, time.perf_counter() - began, status, expected)
    conn.close()


def hook_calls(agent_id: str) -> list[tuple[str, str, str, bytes | None, tuple[int, ...]]]:
    calls = []
    for name in TURN:
        body = {**fixture(name), "session_id": agent_id}
        endpoint = f"hook {body['hook_event_name']}"
        calls.append(
            (endpoint, "POST", "/hooks/claude-code", json.dumps(body).encode(), (200, 204))
        )
    return calls


def floor_calls() -> list[tuple[str, str, str, bytes | None, tuple[int, ...]]]:
    return [(FLOOR, "GET", "/healthz", None, (200,))]


def board_calls() -> list[tuple[str, str, str, bytes | None, tuple[int, ...]]]:
    return [
        ("board page", "GET", f"/p/{SLUG}", None, (200,)),
        ("board columns", "GET", f"/p/{SLUG}/board/columns", None, (200,)),
    ]


def session_start(server: RelaybayServer, agent_id: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    body = {**fixture("SessionStart.startup.print"), "session_id": agent_id}
    request(conn, "POST", "/hooks/claude-code", server.token, json.dumps(body).encode())
    conn.close()


# --- MCP clients on an event loop of their own ------------------------------------------------


async def mcp_worker(
    server: RelaybayServer, rec: Recorder, stop: threading.Event, n: int, key: str, offset: float
) -> None:
    """One MCP client working on its own task; a failed call is an error, never fatal."""
    stages = ("dev", "review", "test", "plan")
    await asyncio.sleep(offset)
    async with mcp_client(server.base_url, server.token) as client:
        due, i = time.monotonic(), 0
        while not stop.is_set():
            i += 1
            step = i % 10
            if i % 100 == 0:
                tool, args = "task_create", {"project": SLUG, "title": f"c{n} task {i}"}
            elif step in (0, 1, 2, 3):
                tool, args = "task_update", {"task": key, "progress": f"c{n} write {i}"}
            elif step in (4, 5):
                tool, args = "task_get", {"task": key}
            elif step == 6:
                tool, args = "report_add", {"task": key, "body": f"changed · S · soak {n}/{i}"}
            elif step == 7:
                tool, args = "task_list", {"project": SLUG}
            elif step == 8:
                stage = stages[(i // 10) % len(stages)]
                tool, args = (
                    "task_set_stage",
                    {"task": key, "stage": stage, "next_step": "go on", "waiting_on": "agent"},
                )
            else:
                tool, args = "events_since", {"project": SLUG, "limit": 20}
            if tool not in ("task_get", "task_list", "events_since"):
                args["session"] = f"mcp-{n}"
            began = time.perf_counter()
            try:
                result = await client.call_tool(tool, args)
            except Exception as exc:  # the soak counts every failure; it never stops on one
                rec.error(f"mcp {tool}", repr(exc))
            else:
                if result.is_error:
                    rec.error(f"mcp {tool}", text_of(result))
                else:
                    rec.ok(f"mcp {tool}", time.perf_counter() - began)
            due = max(due + MCP_INTERVAL, time.monotonic() - MCP_INTERVAL)
            await asyncio.sleep(max(0.0, due - time.monotonic()))
