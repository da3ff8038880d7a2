"""MCP tools to catch up and to read the working rules (§3, §6): events_since, rules_get."""

from typing import Annotated

from pydantic import Field

from core.mcp import call_service, resource_answer
from tasks import render_md, selectors
from tasks.rules import render_rules_md


def _events_since(after_id: int, project: str, limit: int) -> str:
    limit = min(max(limit, 1), selectors.EVENTS_MAX)
    lines = selectors.events_since(after_id, project=project.strip() or None, limit=limit)
    return render_md.events_md(lines, max(after_id, 0), limit)


def _rules(project: str) -> str:
    proj = selectors.get_project(project) if project and project.strip() else None
    return render_rules_md(selectors.project_rules(proj), proj.slug if proj else None)


async def events_since(
    after_id: Annotated[int, Field(description="Last event id you saw (0: from the start).")] = 0,
    project: Annotated[str, Field(description="Only this project's events.")] = "",
    limit: Annotated[int, Field(description="At most this many events (1-500).")] = 100,
) -> str:
    """Catch up on what happened: the events after an id, oldest first.

    Returns:
        One line per event: "#<id> <age> <kind> <key or project> — <what> (<actor>)",
        then "Newest id: N": pass it as after_id next time.
    Errors:
        - Unknown project.
    """
    return await call_service(_events_since, after_id, project, limit)


async def rules_get(
    project: Annotated[str, Field(description="Project slug; left out: the global rules.")] = "",
) -> str:
    """The working rules: report format, what each stage move needs, template, guidance.

    Returns:
        Markdown with the rules hash and mode, the report first line, states and sizes,
        the stage requirements, the description template and guidance; a broken project
        override is named ("project override ignored: …").
    Errors:
        - Unknown project.
    """
    return await call_service(_rules, project)


async def rules_resource() -> str:
    """The global working rules (same as rules_get without a project)."""
    return await resource_answer(_rules, "")


async def project_rules_resource(project: str) -> str:
    """A project's effective working rules (same as rules_get(project))."""
    return await resource_answer(_rules, project)
