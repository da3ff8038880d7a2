"""What environments plugs into the seams of tasks.extensions (EnvironmentsConfig.ready)."""

from __future__ import annotations

from environments import render_md, selectors
from tasks.extensions import plug_in_once, register_project_lines
from tasks.models import Project


def snapshot_lines(project: Project) -> list[str]:
    """project_snapshot: one line per environment after the description (§7 MCP)."""
    data = selectors.stands_map(project)
    if not data.stands:
        return []
    return ["Environments (read environments_get before touching a server):"] + [
        render_md.snapshot_line(view) for view in data.stands
    ]


@plug_in_once
def register() -> None:
    register_project_lines(10, snapshot_lines)
