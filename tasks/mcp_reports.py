"""MCP tools that add to a task's record (§3): reports and decisions."""

from typing import Annotated

from pydantic import Field

from core.mcp import call_service
from tasks import render_md, selectors, services
from tasks.extensions import CallerRef
from tasks.fields import DECISION_TEXT_MAX, QUERY_MAX, REPORT_BODY_MAX
from tasks.mcp_params import (
    HookSession,
    Project,
    Session,
    SessionTitle,
    TaskKey,
    chars,
    editable,
    field_param,
)


async def report_add(
    task: TaskKey,
    body: Annotated[
        str,
        Field(
            description="Markdown report. First line: state · size · gist, e.g. "
            "verified · M · login works with 2FA (rules_get lists states and sizes).",
            json_schema_extra=chars(REPORT_BODY_MAX),
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
        on_loop=True,
        key=task,
        body=body,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.report_write_md,
        **values,
    )


async def decision_add(
    text: Annotated[
        str,
        Field(
            description="The decision in a sentence or two.",
            json_schema_extra=chars(DECISION_TEXT_MAX),
        ),
    ],
    project: Annotated[
        str, Field(description="Project slug; may be left out when task is given.")
    ] = "",
    task: Annotated[
        str | None, Field(description="Task key, for a decision about one task.")
    ] = None,
    decided_by: Annotated[
        str | None, Field(description="Who decided: owner, a person, a session.")
    ] = None,
    supersedes: Annotated[
        int | None,
        Field(description="Id of a current decision of this project that this one replaces."),
    ] = None,
    source: Annotated[
        str | None,
        Field(
            description="Where it came from: report:<id>, event:<id>, comment:<id> (of this "
            "project) or message:<external id>."
        ),
    ] = None,
    source_text: Annotated[
        str | None, Field(description="The source as people read it, one line.")
    ] = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Record a decision for a project or one of its tasks (shown in snapshot and task_get).

    With supersedes the named decision is marked replaced (nothing is deleted); a decision
    already superseded cannot be superseded again — supersede the newer one.

    Returns:
        "Recorded decision #<id> for <task or project>: <text>".
    Errors:
        - Unknown project or task; a task of another project; empty or too long text; a
          superseded or unknown decision; a source that is not one of this project's.
    """
    return await call_service(
        services.decision_add,
        project=project,
        text=text,
        task=task,
        decided_by=decided_by,
        supersedes=supersedes,
        source=source,
        source_text=source_text,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.decision_write_md,
    )


def _decision_list(project: str, query: str, task: str | None, include_superseded: bool) -> str:
    found, decisions = selectors.decision_list(
        project, query=query, task=task, include_superseded=include_superseded
    )
    return render_md.decision_list_md(found, decisions, query=query)


async def decision_list(
    project: Project,
    query: Annotated[
        str,
        Field(
            description="Words every listed decision's text or source holds.",
            json_schema_extra=chars(QUERY_MAX),
        ),
    ] = "",
    task: Annotated[str | None, Field(description="Only the decisions of this task key.")] = None,
    include_superseded: Annotated[
        bool, Field(description="Also the decisions a newer one replaced.")
    ] = False,
) -> str:
    """List and search a project's decisions, newest first (current ones unless asked).

    Returns:
        "# Decisions of <slug>: <n>" and one line per decision: "#<id>", the task key, the
        text, who and when, its source, "superseded by #<n>" for replaced ones.
    Errors:
        - Unknown project: call project_list.
    """
    return await call_service(_decision_list, project, query, task, include_superseded)
