"""The official mcp client over Streamable HTTP, as Claude Code would connect."""

from __future__ import annotations

from collections.abc import AsyncIterator
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
