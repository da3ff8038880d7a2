"""The MCP server (§3): one `MCPServer`, and every app adds its tools through `register`.

The roof builds it because it names every app; the pieces the tools stand on are in
core/mcp.py.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from core.mcp import RelaybayMCPServer
from environments import mcp_tools as environment_tools
from memory import mcp_tools as memory_tools
from plans import mcp_tools as plan_tools
from policy import mcp_tools as policy_tools
from relaybay import get_version
from reviews import mcp_tools as review_tools
from sessions import mcp_tools as session_tools
from tasks import instructions
from tasks import mcp_tools as task_tools


def build_server() -> MCPServer:
    server = RelaybayMCPServer(  # relaybay's own argument errors (§5)
        name="relaybay",
        title="relaybay",
        version=get_version(),
        # The working contract sent on connect; tasks owns the text (it needs the rules).
        instructions=instructions.server_instructions(),
        subscriptions=False,  # no listen stream: restarts stay invisible to Claude Code
    )
    for app_tools in (
        task_tools,
        session_tools,
        plan_tools,
        review_tools,
        environment_tools,
        policy_tools,
        memory_tools,
    ):
        app_tools.register(server)
    return server
