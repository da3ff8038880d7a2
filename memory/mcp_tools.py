"""The memory's MCP tools and resources (§3 Memory group), in the order the model sees
them; register(server) is called by relaybay_site.mcp_server.build_server."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from memory import mcp_blocks, mcp_documents, mcp_notes, mcp_search
from tasks.mcp_params import READ, WRITE

_TOOLS: list[tuple[Callable[..., Any], ToolAnnotations]] = [
    *mcp_notes.NOTES_TOOLS,  # memory_add, memory_update, memory_get
    *mcp_search.SEARCH_TOOLS,  # memory_search
    # documents
    (mcp_documents.doc_list, READ),
    (mcp_documents.doc_get, READ),
    (mcp_documents.doc_update, WRITE),
    (mcp_documents.doc_history, READ),
    # blocks
    (mcp_blocks.block_get, READ),
    (mcp_blocks.block_set, WRITE),
]

_RESOURCES: list[tuple[str, str, Callable[..., Any]]] = [
    # notes resources are registered here too
    ("relaybay://doc/{project}/{doc}", "document", mcp_documents.doc_resource),
]


def register(server: MCPServer) -> None:
    """Add the memory tools and resources to the MCP server."""
    for fn, hints in _TOOLS:
        server.add_tool(
            fn,
            description=inspect.cleandoc(fn.__doc__ or ""),
            annotations=hints,
            structured_output=False,
        )
    for uri, name, fn in _RESOURCES:
        description = inspect.cleandoc(fn.__doc__ or "")
        server.resource(uri, name=name, description=description, mime_type="text/markdown")(fn)
