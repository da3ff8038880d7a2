"""The official mcp client over Streamable HTTP, as Claude Code would connect."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


@asynccontextmanager
async def mcp_client(base_url: str, token: str | None, mode: str = "auto") -> AsyncIterator[Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(f"{base_url}/mcp", http_client=http)
        async with Client(transport, mode=mode) as client:
            yield client


def text_of(result: Any) -> str:
    """The markdown text of a tool result (what the model sees)."""
    return "\n".join(getattr(block, "text", "") for block in result.content)


def run_async[T](coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to the end from sync test code, in a thread of its own.

    Playwright's sync API keeps an event loop running in the main thread while a browser
    is open, and asyncio.run refuses to start inside it.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def call_tools(base_url: str, token: str, *calls: tuple[str, dict[str, Any]]) -> list[str]:
    """Tool calls in order over one client from sync code, as an agent makes them; each
    answer's markdown. A tool error fails the test, naming the tool."""

    async def main() -> list[str]:
        found = []
        async with mcp_client(base_url, token) as client:
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                if result.is_error:
                    raise AssertionError(f"{name} failed: {text_of(result)}")
                found.append(text_of(result))
        return found

    return run_async(main())


def call_tool(base_url: str, token: str, name: str, arguments: dict[str, Any]) -> str:
    """One tool call through the real client from sync code; the answer's markdown."""
    return call_tools(base_url, token, (name, arguments))[0]
