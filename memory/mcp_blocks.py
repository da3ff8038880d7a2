"""MCP adapters of the memory blocks (§3 Memory group, §8 Blocks): block_get, block_set.

Same shape as the other apps' tools: `async def`, one `call_service` hop; the write tool
names its service and passes the caller as a CallerRef — which never counts as the owner,
so owner-only blocks stay the board's.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from core.mcp import call_service
from memory import render_md, selectors, services
from memory.models import BLOCK_LIMIT_MAX
from memory.services.blocks import DESCRIPTION_MAX, LABEL_MAX
from tasks.extensions import CallerRef
from tasks.fields import PROJECT_SLUG_MAX
from tasks.mcp_params import HookSession, Session, SessionTitle, chars, optional

BlockProject = optional(
    "Project slug (project_list); left out: the global blocks.", PROJECT_SLUG_MAX
)


def _get(label: str | None, project: str | None) -> str:
    if not label:
        return render_md.block_list_md(selectors.block_list(project), project)
    return render_md.block_md(selectors.block_get(label, project))


async def block_get(
    label: optional("The block's label; left out: list the blocks.", LABEL_MAX) = None,
    project: BlockProject = None,
) -> str:
    """Read a memory block, or list the blocks (global ones, and a project's with project).

    Returns:
        "# Block <label> (<scope>)", "version <n> · <used> of <limit> characters", the
        description and the body; without label "# Blocks" with one line per block.
    Errors:
        - Unknown project (project_list) or block.
    """
    return await call_service(_get, label, project)


async def block_set(
    label: Annotated[str, Field(description="The block's label, a lowercase slug.")],
    body: Annotated[
        str,
        Field(
            description="The whole new body (markdown).", json_schema_extra=chars(BLOCK_LIMIT_MAX)
        ),
    ],
    base_version: Annotated[
        int, Field(description="The version you read (block_get); 0 creates the block.")
    ],
    project: BlockProject = None,
    description: optional("What the block is for, one line.", DESCRIPTION_MAX) = None,
    char_limit: Annotated[
        int | None,
        Field(description="The body's limit in characters (default 2000, at most 20000)."),
    ] = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Create or replace a memory block: a short, size-limited text kept for every session.

    base_version 0 creates it; otherwise it must be the version you read, or nothing is
    written and the answer holds the current version and body. A body over the limit is
    refused with its count. Owner-only blocks change only on the board.

    Returns:
        "Created global block <label>: now version 1 (<n> of <limit> characters)." /
        "Updated …"; "Nothing changed: …".
    Errors:
        - Unknown project; a bad label; over the limit; a stale base_version (the current
          body is in the message); an owner-only block; a secret value.
    """
    return await call_service(
        services.block_set,
        label=label,
        body=body,
        base_version=base_version,
        project=project,
        description=description,
        char_limit=char_limit,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.block_write_md,
    )
