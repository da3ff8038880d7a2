"""The memory's MCP tools and resources (§3 Memory group), in the order the model sees
them; register(server) is called by relaybay_site.mcp_server.build_server."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from core.mcp import ResourceEntry, ToolEntry, add_tools
from memory import mcp_blocks, mcp_documents, mcp_notes, mcp_search
from tasks.mcp_params import READ, WRITE

_TOOLS: list[ToolEntry] = [
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

_RESOURCES: list[ResourceEntry] = [
    # notes resources are registered here too
    ("relaybay://doc/{project}/{doc}", "document", mcp_documents.doc_resource),
]


def register(server: MCPServer) -> None:
    """Add the memory tools and resources to the MCP server."""
    add_tools(server, _TOOLS, _RESOURCES)
