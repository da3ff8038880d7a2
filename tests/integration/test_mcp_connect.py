"""Connecting to /mcp with the real SDK client, both protocol generations, and being refused."""

from __future__ import annotations

import asyncio
import http.client
import json
from importlib.metadata import version

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.support.claude_code import CLAUDE_CODE
from tests.support.mcp_client import mcp_client

pytestmark = pytest.mark.integration

FIXTURES = CLAUDE_CODE / "mcp"
# Headers of the recording that belong to that connection, not to the request itself.
HOP_HEADERS = {"authorization", "host", "content-length", "connection", "accept-encoding"}


def connect(base_url: str, token: str, mode: str):
    async def run():
        async with mcp_client(base_url, token, mode) as client:
            tools = await client.list_tools()
            return client.protocol_version, client.server_info, client.instructions, tools

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("mode", "protocol"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")], ids=["auto", "legacy"]
)
def test_the_sdk_client_connects_with_the_token(server, mode, protocol):
    negotiated, info, instructions, tools = connect(server.base_url, server.token, mode)
    assert negotiated == protocol
    assert info is not None
    assert info.name == "relaybay"
    assert info.version == version("relaybay")
    assert instructions
    assert instructions.strip()
    assert isinstance(tools.tools, list)


def refused_statuses(base_url: str, token: str | None) -> list[int]:
    """Connect like Claude Code would; return the HTTP statuses the client saw."""
    statuses: list[int] = []

    async def record(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    async def run() -> None:
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        async with httpx2.AsyncClient(
            headers=headers, timeout=30, event_hooks={"response": [record]}
        ) as http:
            transport = streamable_http_client(f"{base_url}/mcp", http_client=http)
            async with Client(transport, mode="auto"):
                pass

    with pytest.raises(BaseExceptionGroup) as info:
        asyncio.run(run())
    assert info.group_contains(MCPError, depth=None), repr(info.value)
    return statuses


@pytest.mark.parametrize("token", [None, "wrong-token"], ids=["no-token", "wrong-token"])
def test_the_sdk_client_is_refused_without_the_right_token(server, token):
    statuses = refused_statuses(server.base_url, token)
    assert statuses
    assert set(statuses) == {401}


def post(server, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, dict(response.headers.items()), response.read()
    finally:
        conn.close()


def recorded_discover() -> dict:
    entry = json.loads((FIXTURES / "modern-2026-07-28.json").read_text())[0]
    assert entry["body"]["method"] == "server/discover"
    assert "origin" not in entry["headers"], "Claude Code sends no Origin header"
    return entry


def test_claude_codes_recorded_discover_request_gets_a_json_answer(server):
    entry = recorded_discover()
    headers = {k: v for k, v in entry["headers"].items() if k not in HOP_HEADERS}
    headers["Authorization"] = f"Bearer {server.token}"
    status, response_headers, body = post(
        server, entry["path"], headers, json.dumps(entry["body"]).encode()
    )
    assert status == 200, body
    assert response_headers["Content-Type"].startswith("application/json")
    answer = json.loads(body)
    assert answer["id"] == entry["body"]["id"]
    result = answer["result"]
    assert "2026-07-28" in result["supportedVersions"]
    server_info = result["_meta"]["io.modelcontextprotocol/serverInfo"]
    assert server_info["name"] == "relaybay"
    assert server_info["version"] == version("relaybay")
    assert result["instructions"]
    assert "Mcp-Session-Id" not in response_headers, "stateless: nothing to strand on a restart"


def test_claude_codes_recorded_discover_with_a_wrong_token_gets_401(server):
    entry = json.loads((FIXTURES / "wrong-token-401.json").read_text())[0]
    headers = {k: v for k, v in entry["headers"].items() if k not in HOP_HEADERS}
    headers["Authorization"] = "Bearer wrong-token"
    status, response_headers, _ = post(
        server, entry["path"], headers, json.dumps(entry["body"]).encode()
    )
    assert status == entry["status"] == 401
    assert response_headers["WWW-Authenticate"] == "Bearer"


def test_mcp_with_a_trailing_slash_is_not_the_mcp_endpoint(server):
    entry = recorded_discover()
    headers = {k: v for k, v in entry["headers"].items() if k not in HOP_HEADERS}
    headers["Authorization"] = f"Bearer {server.token}"
    body = json.dumps(entry["body"]).encode()
    assert post(server, "/mcp", headers, body)[0] == 200
    status, _, answer = post(server, "/mcp/", headers, body)
    assert status == 404
    assert b"jsonrpc" not in answer


def test_a_foreign_origin_on_mcp_is_refused_even_with_the_token(server):
    entry = recorded_discover()
    headers = {k: v for k, v in entry["headers"].items() if k not in HOP_HEADERS}
    headers["Authorization"] = f"Bearer {server.token}"
    headers["Origin"] = "https://evil.example"
    status, _, answer = post(server, "/mcp", headers, json.dumps(entry["body"]).encode())
    assert status == 403
    assert b"jsonrpc" not in answer
