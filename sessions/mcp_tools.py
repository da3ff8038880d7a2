"""MCP adapters of the sessions app (§3 Sessions): task_bind_session, task_unbind_session.

Each tool is `async def` and makes one `call_service` hop to the service it names (the task
by its key and the caller as a CallerRef, both resolved inside the service's transaction);
the short markdown answer is built from what the service returned.
"""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from core import actor
from core.mcp import add_tools, call_service
from sessions import render_md, services
from tasks.extensions import CallerRef
from tasks.mcp_params import WRITE

TaskKey = Annotated[str, Field(description="Task key <slug>-<n>, e.g. acme-shop-12.")]
SessionTitle = Annotated[
    str, Field(description="Title of your desktop session, when session is a local_ id.")
]
HookSession = Annotated[
    str,
    Field(description="The Claude Code session id your session start gave you, if any."),
]


async def task_bind_session(
    task: TaskKey,
    session: Annotated[
        str,
        Field(
            description="The session to bind: a Claude desktop session id (local_<uuid>) "
            "together with session_title, else a short readable name (at most 100 "
            "characters)."
        ),
    ],
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Bind a task to the session working on it (usually your own).

    A task has at most one bound session; binding another one replaces it and the old
    binding stays in the task's history. Pass your desktop id (local_…) with
    session_title when you have one, else a plain name. Binding the session already bound
    changes nothing.

    A plain name for a task bound to a desktop session does not rebind: the name becomes
    an alias of that desktop session and resolves to it from then on (aliases are global).
    When a session of that name already exists the call warns and changes nothing. Do not
    rebind a task away from a desktop session without your own local_ id.

    hook_session is not linked here (you may be binding another session); pass it with
    session on a write of your own session (task_update, report_add …).

    Returns:
        "Bound <key> to session <name> (<title>)." (and the session it was bound to), or
        "<name> is now an alias of session <desktop id>; <key> stays bound to it.", or that
        it was already bound; then Note/Warning lines. A new binding of an open task adds,
        after a blank line, its resume brief: stage, plan step, progress, next step, last
        report, unread owner comments, decisions and files touched lately.
    Errors:
        - Unknown task: call task_list to see the keys.
        - A malformed local_ id, a name over 100 characters or with control characters:
          the message says how to pass it.
    """
    return await call_service(
        services.task_bind_session,
        on_loop=True,
        task=task,
        session=session,
        session_title=session_title,
        hook_session=hook_session,
        actor=actor.agent(session),
        answer=render_md.bind_answer,
    )


async def task_unbind_session(
    task: TaskKey,
    session: Annotated[
        str,
        Field(
            description="Who you are (not the session to unbind): your desktop session id "
            "(local_…) with session_title, else a short readable name."
        ),
    ] = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
    reason: Annotated[
        str, Field(description="Why it is unbound (kept in the binding history).")
    ] = "",
) -> str:
    """Unbind the task's session: the task has no bound session afterwards.

    The binding stays in the task's history with the reason. Use it when a task should
    be picked up by someone else, or before binding a named session to a task bound to a
    desktop session. A task with no bound session is left as it is.

    Returns:
        "Unbound <key> from session <name>." or "<key> has no bound session; nothing
        changed.", then any Note/Warning lines about session and hook_session.
    Errors:
        - Unknown task: call task_list to see the keys.
        - A malformed local_ id or hook_session: the message says how to pass it.
    """
    return await call_service(
        services.task_unbind_session,
        task=task,
        reason=reason,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.unbind_answer,
    )


_TOOLS = [(task_bind_session, WRITE), (task_unbind_session, WRITE)]


def register(server: MCPServer) -> None:
    """Add the binding tools to the MCP server (relaybay_site.mcp_server.build_server)."""
    add_tools(server, _TOOLS)
