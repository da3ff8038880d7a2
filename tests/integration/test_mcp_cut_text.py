"""A /mcp text longer than any tool takes is cut before the SDK reads the body
(relaybay_site/mcp_body.py), and the call is answered as before: the same JSON-RPC id, the
same tool error naming the argument, its length and its limit, nothing of the value; a
legitimate upload as large as the limit allows still goes through (issue 40)."""

from __future__ import annotations

import base64
import http.client
import json
from typing import Any

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.reviews import images
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

MB = 1024 * 1024


def post_mcp(server: RelaybayServer, message: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """One JSON-RPC message POSTed as a client does, without a protocol version header."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {server.token}",
    }
    try:
        conn.request("POST", "/mcp", body=json.dumps(message).encode(), headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def call(id_: Any, tool: str, arguments: dict[str, Any], **params: Any) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments, **params}
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params}


def setup(server: RelaybayServer, slug: str) -> tuple[str, int]:
    """A task to attach to, and content_base64's limit as tools/list shows it."""

    async def scenario(agent: Agent) -> tuple[str, int]:
        await new_project(agent, slug)
        key = await new_task(agent, slug)
        tools = {t.name: t for t in (await agent.client.list_tools()).tools}
        return key, tools["attach_file"].input_schema["properties"]["content_base64"]["maxLength"]

    return run(server, scenario)


def test_content_base64_one_over_its_limit_gets_the_answer_it_always_had(
    server: RelaybayServer,
) -> None:
    key, limit = setup(server, "cut")
    expected = (
        f"attach_file: content_base64 is {limit + 1} characters long; the limit is {limit}. "
        "Shorten it.\nNothing changed."
    )

    async def through_the_client(agent: Agent) -> str:
        return await agent.err("attach_file", task=key, content_base64="Q" * (limit + 1))

    assert run(server, through_the_client) == expected
    status, answer = post_mcp(
        server, call("call-7", "attach_file", {"task": key, "content_base64": "Q" * (limit + 1)})
    )
    assert status == 200
    assert answer == {
        "jsonrpc": "2.0",
        "id": "call-7",
        "result": {"content": [{"type": "text", "text": expected}], "isError": True},
    }
    assert "Traceback" not in server.log()


def test_an_upload_as_large_as_the_limit_allows_is_attached(server: RelaybayServer) -> None:
    """The largest file (10 MB), its base64 wrapped every 64 characters as MIME does: the
    body is longer than the limit, so it is scanned, and every text in it is within."""
    key, limit = setup(server, "largest")
    data = images.GIF + b"\0" * (10 * MB - len(images.GIF))
    wrapped = base64.encodebytes(data).decode()
    assert len(wrapped) <= limit < len(json.dumps(wrapped))

    async def scenario(agent: Agent) -> str:
        return await agent.ok("attach_file", task=key, content_base64=wrapped, caption="largest")

    assert " attached: image/gif" in run(server, scenario)


def test_a_text_over_anywhere_else_in_a_call_is_refused_and_other_methods_still_answer(
    server: RelaybayServer,
) -> None:
    key, limit = setup(server, "elsewhere")
    big = "x" * (limit + 1)
    for message in (
        call(1, "task_patch", {"task": key, "fields": {"title": big}}),
        call(2, "task_get", {"task": key}, _meta={"note": big}),
    ):
        status, answer = post_mcp(server, message)
        assert status == 200
        assert answer["id"] == message["id"]
        assert answer["result"]["isError"] is True
        text = answer["result"]["content"][0]["text"]
        assert f"is {limit + 1} characters long; no parameter takes more than {limit}" in text
        assert "xxxx" not in text
    status, answer = post_mcp(
        server,
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": {"note": big}}},
    )
    assert status == 200
    assert len(answer["result"]["tools"]) > 30
