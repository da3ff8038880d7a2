"""A Gemini CLI started from a script with `--session-id X`, `RELAYBAY_SESSION=X` and the
header `X-Relaybay-Session: ${RELAYBAY_SESSION}` in its relaybay server entry sends X with
every MCP request (the captured request: tests/fixtures/gemini-cli-0.61.0/mcp/); relaybay
links the writing session to the hook session X exactly, as Codex's `_meta.sessionId` does
— without the agent passing hook_session. An unexpanded `${…}` links nothing."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from tests.integration.test_hooks_gemini import row, send, started
from tests.sessions.gemini_payloads import gemini_payload
from tests.support.mcp_client import text_of

pytestmark = pytest.mark.integration

CAPTURED = Path(__file__).resolve().parents[1] / "fixtures" / "gemini-cli-0.61.0" / "mcp"


def captured() -> dict[str, Any]:
    return json.loads((CAPTURED / "session-id-via-header-expansion.json").read_text())


def write_with_header(base_url: str, token: str, header: str, session: str) -> str:
    """Create a project and a task, then write to it naming `session`, every request with
    the captured X-Relaybay-Session header value."""

    async def scenario() -> str:
        headers = {"Authorization": f"Bearer {token}", "X-Relaybay-Session": header}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            transport = streamable_http_client(f"{base_url}/mcp", http_client=http)
            async with Client(transport, mode="auto") as client:
                await client.call_tool(
                    "project_upsert", {"slug": "acme-shop", "repo_path": "/home/dev/acme-shop"}
                )
                made = await client.call_tool(
                    "task_create", {"project": "acme-shop", "title": "Fix the README"}
                )
                key = re.match(r"Created (\S+) ", text_of(made)).group(1)
                done = await client.call_tool(
                    "task_update", {"task": key, "session": session, "progress": "started"}
                )
                assert not done.is_error, text_of(done)
                return key

    return asyncio.run(scenario())


def test_the_session_header_links_the_writing_session_to_its_hooks(tmp_path: Path) -> None:
    sid = captured()["first_request_headers"]["x-relaybay-session"]
    assert captured()["hook_session_ids"] == [sid]
    server = started(tmp_path / "home", tmp_path / "gemini-home")
    try:
        send(server, gemini_payload("SessionStart.startup.p", session_id=sid))
        write_with_header(server.base_url, server.token, sid, "gemini-script")
        linked = row(server, sid)
        assert (linked["name"], linked["agent_exact"], linked["agent"]) == (
            "gemini-script",
            1,
            "gemini",
        )
    finally:
        server.stop()


def test_an_unexpanded_header_links_nothing(tmp_path: Path) -> None:
    sid = captured()["first_request_headers"]["x-relaybay-session"]
    server = started(tmp_path / "home", tmp_path / "gemini-home")
    try:
        send(server, gemini_payload("SessionStart.startup.p", session_id=sid))
        write_with_header(server.base_url, server.token, "${RELAYBAY_SESSION}", "gemini-x")
        assert row(server, sid)["agent_exact"] == 0
    finally:
        server.stop()
