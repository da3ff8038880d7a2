"""MCP adapters of the stands (§3 Environments, §7): environments_get, environment_propose and
the resource relaybay://project/{slug}/environments.

Agents read the map before touching a server and propose changes instead of making them:
there is no tool that changes an environment or a level.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import BeforeValidator, Field

from core.mcp import add_tools, call_service, resource_answer
from environments import render_md, selectors, services
from environments.models import EnvironmentProposal
from tasks.extensions import CallerRef
from tasks.mcp_params import (
    READ,
    WRITE,
    HookSession,
    Project,
    Session,
    SessionTitle,
    json_text_object,
)
from tasks.selectors import get_project
from tasks.services import Outcome

ChangeParam = Annotated[
    dict[str, Any],
    BeforeValidator(json_text_object),
    Field(
        description='What should change: {"environment": "<name>", and any of "kind" (local, '
        'test, live; needed for a new environment), "base_url", "notes", "sign_in_allowed", '
        '"login_state_path", "level" (none, read, ask, full; "default" clears it), '
        '"overrides" ({"db": "ask"}; "default" removes one), "access" (entries to add: '
        '[{"kind": "ssh", "fields": {"alias": "prod", "host": "…", "key_path_ref": '
        '"~/.ssh/prod"}}])}. References only: never a password, token or key.'
    ),
]


def _map(project: str) -> str:
    return render_md.stands_md(selectors.stands_map(get_project(project)))


def _proposed_md(outcome: Outcome[EnvironmentProposal]) -> str:
    p = outcome.obj
    head = (
        f"Proposed environment change #{p.id} for {p.project.slug}/{p.change.get('environment')}; "
        "nothing changed yet. The owner accepts or rejects it on the Stands & access page."
    )
    return "\n".join([head, *outcome.notes, *outcome.caller_notes])


async def environments_get(project: Project) -> str:
    """Read a project's stands before touching a server, cluster or database.

    Each environment (local, test, live) with its base URL, the agents' permission level and
    where it comes from, per-capability levels (sign_in, ssh, kubectl, db, deploy), its
    access entries (references only: hosts, aliases, contexts, where a key lives) and notes.
    The level says what you may do unasked: none (do not touch), read (look only), ask (the
    owner approves each action), full (act as needed). Live is read-only unless the owner
    set otherwise.

    Returns:
        "# Environments of <slug>", the project's preset and guard mode, then one section
        per environment.
    Errors:
        - Unknown project: call project_list.
    """
    return await call_service(_map, project)


async def environment_propose(
    project: Project,
    change: ChangeParam,
    reason: Annotated[str, Field(description="Why the stands should change, for the owner.")],
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Propose a change of a project's stands to the owner; it changes nothing until accepted.

    Use it instead of changing a server's access yourself: a new environment, a base URL, an
    access entry, or a different level. It is checked like the owner's own write when you
    propose it (a secret value in any field is refused: give where the secret lives, e.g.
    $DB_PASSWORD or ~/.ssh/key). Raising access on live is confirmed twice by the owner.

    Returns:
        "Proposed environment change #<id> for <project>/<environment>; nothing changed yet."
    Errors:
        - Unknown project; a change without "environment"; a new environment without
          "kind"; an unknown key; a value that looks like a secret (the field and the
          detector are named, never the value); test secrets (the owner enters them).
    """
    return await call_service(
        services.environment_propose,
        project=project,
        change=change,
        reason=reason,
        actor=CallerRef(session, session_title, hook_session),
        answer=_proposed_md,
    )


async def environments_resource(slug: str) -> str:
    """A project's stands (same markdown as environments_get)."""
    return await resource_answer(_map, slug)


_TOOLS = [(environments_get, READ), (environment_propose, WRITE)]
_RESOURCES = [("relaybay://project/{slug}/environments", "environments", environments_resource)]


def register(server: MCPServer) -> None:
    """Add the environment tools and resource (relaybay_site.mcp_server.build_server)."""
    add_tools(server, _TOOLS, _RESOURCES)
