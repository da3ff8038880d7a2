"""MCP tools that add to a task's record (§3): reports and decisions."""

from typing import Annotated

from pydantic import Field

from core.mcp import call_service
from tasks import render_md, services
from tasks.extensions import CallerRef
from tasks.mcp_params import (
    HookSession,
    Session,
    SessionTitle,
    TaskKey,
    editable,
    field_param,
)


async def report_add(
    task: TaskKey,
    body: Annotated[
        str,
        Field(
            description="Markdown report. First line: state · size · gist, e.g. "
            "verified · M · login works with 2FA (rules_get lists states and sizes)."
        ),
    ],
    next_step: field_param("next_step") = None,
    waiting_on: field_param("waiting_on") = None,
    progress: field_param("progress") = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Append a report to a task: at the end of every stage, and whenever work is done.

    The first line is the summary; in the configured format it also sets the report's
    state and size (and the task's size when it has none). Update next_step,
    waiting_on and progress in the same call. A report clears a logged tracker mark.

    Returns:
        "Added report #<id> to <key> [state · size]: <summary> (version N)." plus notes.
    Errors:
        - Unknown task; empty body; a value over its limit.
    """
    values = editable(locals())
    return await call_service(
        services.report_add,
        key=task,
        body=body,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.report_write_md,
        **values,
    )


async def decision_add(
    text: Annotated[str, Field(description="The decision in a sentence or two.")],
    project: Annotated[
        str, Field(description="Project slug; may be left out when task is given.")
    ] = "",
    task: Annotated[
        str | None, Field(description="Task key, for a decision about one task.")
    ] = None,
    decided_by: Annotated[
        str | None, Field(description="Who decided: owner, a person, a session.")
    ] = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Record a decision for a project or one of its tasks (shown in snapshot and task_get).

    Returns:
        "Recorded decision #<id> for <task or project>: <text>".
    Errors:
        - Unknown project or task; a task of another project; empty or too long text.
    """
    return await call_service(
        services.decision_add,
        project=project,
        text=text,
        task=task,
        decided_by=decided_by,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.decision_write_md,
    )
