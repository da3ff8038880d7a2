"""The memory's MCP tools (§3, §8), in the order the model sees them."""

from __future__ import annotations

import inspect

from mcp.server.mcpserver import MCPServer

from memory.mcp_notes import NOTES_TOOLS


def register(server: MCPServer) -> None:
    """Add the memory tools to the MCP server (relaybay_site.mcp_server.build_server)."""
    for fn, hints in NOTES_TOOLS:
        server.add_tool(
            fn,
            description=inspect.cleandoc(fn.__doc__ or ""),
            annotations=hints,
            structured_output=False,
        )
