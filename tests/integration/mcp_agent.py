"""The real MCP client as a test agent: calls that must succeed or fail, and the helpers
the tasks MCP tests share (tests/integration/test_mcp_*.py)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

from tests.support.mcp_client import mcp_client, text_of
from tests.support.server import RelaybayServer


class Agent:
    """A connected client with the two ways a call can end."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def ok(self, tool: str, **args: Any) -> str:
        result = await self.client.call_tool(tool, args)
        text = text_of(result)
        assert not result.is_error, f"{tool} failed: {text}"
        return text

    async def err(self, tool: str, **args: Any) -> str:
        result = await self.client.call_tool(tool, args)
        text = text_of(result)
        assert result.is_error, f"{tool} should have failed: {text}"
        assert "Traceback" not in text
        assert "internal error" not in text
        return text

    async def version(self, key: str) -> int:
        text = await self.ok("task_get", task=key)
        return int(re.search(r"· version (\d+) ·", text).group(1))

    async def read(self, uri: str) -> str:
        result = await self.client.read_resource(uri, cache_mode="bypass")
        return "\n".join(getattr(c, "text", "") for c in result.contents)


def run(server: RelaybayServer, scenario: Callable[[Agent], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with mcp_client(server.base_url, server.token) as client:
            return await scenario(Agent(client))

    try:
        return asyncio.run(main())
    except BaseExceptionGroup as group:  # the client's task groups wrap a failed assert
        raise _first_leaf(group) from None


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


async def new_project(agent: Agent, slug: str, **fields: Any) -> None:
    await agent.ok("project_upsert", slug=slug, session="tester", **fields)


async def new_task(agent: Agent, slug: str, title: str = "A task", **fields: Any) -> str:
    text = await agent.ok("task_create", project=slug, title=title, session="tester", **fields)
    return re.match(r"Created (\S+) ", text).group(1)


def has_tool(server: RelaybayServer, name: str) -> bool:
    async def scenario(agent: Agent) -> bool:
        tools = await agent.client.list_tools()
        return any(t.name == name for t in tools.tools)

    return run(server, scenario)


# --- the whole life cycle ----------------------------------------------------------------------
