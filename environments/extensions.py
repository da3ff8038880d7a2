"""What environments plugs into the seams of tasks.extensions (EnvironmentsConfig.ready)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from environments import render_md, secret_door, selectors
from policy.merge import Merged
from policy.seams import register_text_check
from tasks.extensions import (
    InboxGroup,
    InboxRow,
    plug_in_once,
    register_inbox_group,
    register_project_lines,
    register_secret_door,
)
from tasks.models import Project
from tasks.render_md import one_line

INBOX_ORDER = 70  # after Agent replies (60), before Policy proposals (80): §2 Inbox order


def snapshot_lines(project: Project) -> list[str]:
    """project_snapshot: one line per environment after the description (§7 MCP)."""
    if not selectors.has_stands(project):  # one query for a project without stands
        return []
    data = selectors.stands_map(project)
    return ["Environments (read environments_get before touching a server):"] + [
        render_md.snapshot_line(view) for view in data.stands
    ]


def proposed_by_agents_group() -> InboxGroup | None:
    """Inbox "Proposed by agents": pending environment proposals, linking to each project's
    Stands & access page."""
    proposals = selectors.pending_proposals()
    if not proposals:
        return None
    rows = tuple(
        InboxRow(
            title=f"#{p.id} {p.project.slug}/{p.change.get('environment', '')}: "
            + one_line(p.reason, 80),
            href=reverse("environments", args=[p.project.slug]) + f"#env-proposal-{p.id}",
            detail=f"proposed by {p.proposed_by}",
            project=p.project.name,
        )
        for p in proposals
    )
    return InboxGroup(id="proposed-by-agents", title="Proposed by agents", rows=rows)


def _check_policy_values(values: dict[str, Any], policy: Merged) -> None:
    secret_door.refuse(values=values, policy=policy)


@plug_in_once
def register() -> None:
    register_project_lines(10, snapshot_lines)
    register_inbox_group(INBOX_ORDER, proposed_by_agents_group)
    # A policy proposal's patch and reason pass the same door as an environment proposal.
    register_text_check(_check_policy_values)
    # Every write of the base and the apps on it passes the door (tasks imports no app).
    register_secret_door(secret_door.refuse)
    # The database's last line runs the door's token scan on every written value.
    secret_door.register()
