"""MCP adapters of the tasks app (§3): the one place that registers its tools and resources.

The tools live by concept (mcp_projects, mcp_tasks, mcp_reports, mcp_events, mcp_comments);
this list is the order the model sees them in. Each tool is `async def` and makes exactly
one `call_service` hop on Django's sync thread (docs/architecture.md §4). A write tool names
its service (`services.task_set_stage`), hands it the caller as a CallerRef, which the
service resolves inside its own transaction, and builds its answer from the service's
result. The docstrings and parameter descriptions are what the model reads.

Parameter conventions (§3 compatibility policy): only what a tool truly needs is required;
an optional text left out (null) changes nothing, "-" or "" clears it; expected_version 0
means "do not check".
"""

from mcp.server.mcpserver import MCPServer

from core.mcp import ResourceEntry, ToolEntry, add_tools
from tasks import mcp_comments, mcp_events, mcp_projects, mcp_reports, mcp_tasks
from tasks.mcp_params import READ, WRITE

TOOLS: tuple[ToolEntry, ...] = (
    (mcp_projects.project_list, READ),
    (mcp_projects.project_upsert, WRITE),
    (mcp_projects.project_snapshot, READ),
    (mcp_tasks.task_list, READ),
    (mcp_tasks.task_get, READ),
    (mcp_tasks.task_create, WRITE),
    (mcp_tasks.task_update, WRITE),
    (mcp_tasks.task_patch, WRITE),
    (mcp_tasks.task_set_stage, WRITE),
    (mcp_reports.report_add, WRITE),
    (mcp_reports.decision_add, WRITE),
    (mcp_reports.decision_list, READ),
    (mcp_events.events_since, READ),
    (mcp_events.rules_get, READ),
)

RESOURCES: tuple[ResourceEntry, ...] = (
    ("relaybay://project/{slug}", "project", mcp_projects.project_resource),
    ("relaybay://rules", "rules", mcp_events.rules_resource),
    ("relaybay://rules/{project}", "project-rules", mcp_events.project_rules_resource),
    ("relaybay://schema/task", "task-schema", mcp_tasks.task_schema_resource),
)


def register(server: MCPServer) -> None:
    """Add the tasks tools and resources to the MCP server (called by relaybay_site.mcp_server)."""
    add_tools(server, TOOLS, RESOURCES)
    mcp_comments.register(server)  # comments_list, comment_ack, comment_add
