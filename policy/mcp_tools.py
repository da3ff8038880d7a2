"""MCP adapters of the policy (§3, §7): policy_get and policy_propose.

The same shape as the other apps' tools: `async def`, one `call_service` hop; the write
tool names its service, passes the caller as a CallerRef and answers from the Outcome.
There is no tool that changes a policy: only the owner does, on Settings → Policy.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import BeforeValidator, Field

from core.errors import InvalidField
from core.mcp import add_tools, call_service
from policy import render_md, selectors, services
from tasks.extensions import CallerRef
from tasks.mcp_params import READ, WRITE, HookSession, Session, SessionTitle, json_text_object

Patch = Annotated[
    dict[str, Any],
    BeforeValidator(json_text_object),
    Field(
        description='A JSON merge patch for the scope\'s layer, e.g. {"guard": {"mode": '
        '"block"}} or {"levels": {"live": {"db": "ask"}}}: objects merge key by key, any '
        "other value replaces, null removes a key."
    ),
]
Scope = Annotated[
    str,
    Field(
        description="global, a project slug (acme-shop) or <project>/<environment> "
        "(acme-shop/live)."
    ),
]


def _get(project: str | None, environment: str | None) -> str:
    if environment and not project:
        raise InvalidField(
            "project", "environment needs its project: policy_get(project=…, environment=…)."
        )
    text = f"{project}/{environment}" if environment else (project or "global")
    return render_md.policy_md(selectors.effective(selectors.resolve_scope(text)))


async def policy_get(
    project: Annotated[
        str | None, Field(description="Project slug; left out: the global policy.")
    ] = None,
    environment: Annotated[
        str | None, Field(description="Environment name in that project (environments_get).")
    ] = None,
) -> str:
    """Read the effective policy of the global scope, a project or an environment.

    The policy says what agents may do on each kind of environment (levels), what the
    guard counts as a change (guard) and what counts as a secret (secrets).

    Returns:
        "# Policy: <scope>", the layer chain ("preset:default → global → project:acme"),
        ignored broken layers, and one line per value with the layer that set it:
        - guard.mode = "warn" (preset:default)
    Errors:
        - Unknown project (project_list) or environment (environments_get).
    """
    return await call_service(_get, project, environment)


async def policy_propose(
    scope: Scope,
    patch: Patch,
    reason: Annotated[str, Field(description="Why the policy should change, for the owner.")],
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Propose a policy change to the owner; it changes nothing until the owner accepts.

    The patch is merged into the scope's current layer and validated now (and again when
    accepted). A change that widens agents' access on live is confirmed twice by the owner.

    Returns:
        "Proposed policy change #<id> for <scope>; nothing changed yet." and whether it
        widens access on live.
    Errors:
        - Unknown scope; a patch that is not an object; a result that breaks the policy
          schema or uses an unsafe regular expression (each error names the path).
    """
    return await call_service(
        services.policy_propose,
        scope=scope,
        patch=patch,
        reason=reason,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.proposed_md,
    )


_TOOLS = [(policy_get, READ), (policy_propose, WRITE)]


def register(server: MCPServer) -> None:
    """Add the policy tools to the MCP server (relaybay_site.mcp_server.build_server)."""
    add_tools(server, _TOOLS)
