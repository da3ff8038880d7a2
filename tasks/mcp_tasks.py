"""MCP tools of tasks (§3): list, read, create, update, patch and move between stages."""

from typing import Annotated, Any

from pydantic import Field

from core.mcp import call_service
from tasks import render_md, selectors, services
from tasks.extensions import CallerRef, task_sections
from tasks.fields import FIELDS_BY_NAME, QUERY_MAX, schema_table_md
from tasks.mcp_params import (
    ExpectedVersion,
    HookSession,
    Project,
    Session,
    SessionTitle,
    TaskKey,
    chars,
    editable,
    field_param,
    text_param,
    version_or_none,
)


def _task_get(key: str) -> str:
    detail = selectors.task_detail(key)
    return render_md.task_md(detail, task_sections(detail.task))


def _task_list(project: str, stage: str, include_done: bool, query: str) -> str:
    data = selectors.task_list_data(
        project, stage=stage or None, include_done=include_done, query=query or None
    )
    return render_md.task_list_md(data)


async def task_list(
    project: Project,
    stage: Annotated[str, Field(description="Only this stage (plan … done).")] = "",
    include_done: Annotated[bool, Field(description="Also list done tasks.")] = False,
    query: Annotated[
        str,
        Field(
            description="Only tasks whose key, title or text contains this.",
            json_schema_extra=chars(QUERY_MAX),
        ),
    ] = "",
) -> str:
    """List a project's tasks, grouped by stage (done tasks only when asked).

    Use it to pick a task to work on or to find a key.

    Returns:
        One line per task: key, title, [size], waiting on, next step, tracker mark.
    Errors:
        - Unknown project or stage: the message lists what exists.
    """
    return await call_service(_task_list, project, stage, include_done, query)


async def task_get(task: TaskKey) -> str:
    """Read one task in full before working on it.

    Returns:
        Every field (stage with its note, waiting on, next step with "(stale)", size,
        priority, branch, document, tracker with logged state, version, updated),
        description and progress in full, the latest reports with state and size (the
        newest in full), decisions, the bound session and plan when there are any, and
        the line "Editable fields: …".
    Errors:
        - Unknown task: call task_list to see the keys.
    """
    return await call_service(_task_get, task)


async def task_create(
    project: Project,
    title: Annotated[
        str,
        Field(
            description="Short name of the task.",
            json_schema_extra=chars(FIELDS_BY_NAME["title"].max_length),
        ),
    ],
    description: field_param("description") = None,
    stage: field_param("stage") = None,
    size: field_param("size") = None,
    priority: field_param("priority") = None,
    next_step: field_param("next_step") = None,
    waiting_on: field_param("waiting_on") = None,
    progress: field_param("progress") = None,
    branch: field_param("branch") = None,
    document_path: field_param("document_path") = None,
    stage_note: field_param("stage_note") = None,
    tracker_ref: field_param("tracker_ref") = None,
    tracker_name: field_param("tracker_name") = None,
    tracker_url: field_param("tracker_url") = None,
    tracker_logged: field_param("tracker_logged") = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Create a task in a project; its key is <slug>-<n>. It starts in plan by default.

    The description follows the project's description template when it has one
    (rules_get). Creating is not a stage move: the working rules are not checked.

    Returns:
        "Created <key> '<title>' in <stage> (version 1)." plus any hint lines.
    Errors:
        - Unknown project; empty title; bad stage or size; a value over its limit (the
          message names the field and the limit); tracker_url not http(s).
    """
    values = editable(locals(), skip=("title", "stage"))
    return await call_service(
        services.task_create,
        on_loop=True,
        project=project,
        title=title,
        stage=stage or "plan",
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.task_write_md,
        **values,
    )


async def task_update(
    task: TaskKey,
    expected_version: ExpectedVersion = 0,
    title: field_param("title") = None,
    stage: field_param("stage") = None,
    stage_note: field_param("stage_note") = None,
    waiting_on: field_param("waiting_on") = None,
    next_step: field_param("next_step") = None,
    progress: field_param("progress") = None,
    description: field_param("description") = None,
    size: field_param("size") = None,
    priority: field_param("priority") = None,
    branch: field_param("branch") = None,
    document_path: field_param("document_path") = None,
    tracker_ref: field_param("tracker_ref") = None,
    tracker_name: field_param("tracker_name") = None,
    tracker_url: field_param("tracker_url") = None,
    tracker_logged: field_param("tracker_logged") = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Change the given fields of a task; fields left out stay as they are.

    A stage given here is a stage move like task_set_stage (checked by the working
    rules). New work on a task whose tracker work log is marked (a changed progress, a
    move back out of live/done) clears the mark unless tracker_logged is passed too.
    If a field you need is missing from this tool, use task_patch.

    Returns:
        "Updated <key>: <fields> (version N)." or "Moved <key> a → b; …", then any
        "Warning (rules): …" lines (fix what they name), hints and notes.
    Errors:
        - Unknown task; stale expected_version (the message names the current version:
          task_get, then write again); bad value (names the field and the limit);
          strict rules: "Rules: … Nothing changed."
    """
    values = editable(locals())
    return await call_service(
        services.task_update,
        on_loop=True,
        key=task,
        expected_version=version_or_none(expected_version),
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.task_write_md,
        **values,
    )


async def task_patch(
    task: TaskKey,
    fields: Annotated[
        dict[str, Any],
        Field(
            description='Field name → new value, e.g. {"priority": "high", "size": "M"}. '
            "Any editable field (relaybay://schema/task); "
            '"-" or "" clears a text field.'
        ),
    ],
    expected_version: ExpectedVersion = 0,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Change any editable task fields given as one mapping — same rules as task_update.

    Use it when your cached tool schema lacks a field: it reaches every editable field
    (the "Editable fields" line of task_get, or relaybay://schema/task).

    Returns:
        The same answer as task_update.
    Errors:
        - Unknown task or field name (the message lists the editable fields); stale
          expected_version; bad value; strict rules refusal.
    """
    return await call_service(
        services.task_patch,
        on_loop=True,
        key=task,
        fields=fields,
        expected_version=version_or_none(expected_version),
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.task_write_md,
    )


async def task_set_stage(
    task: TaskKey,
    stage: Annotated[str, Field(description="plan, dev, review, test, live or done.")],
    note: text_param(
        "Stage note: why it moves, what holds it.", FIELDS_BY_NAME["stage_note"].max_length
    ) = None,
    next_step: field_param("next_step") = None,
    waiting_on: field_param("waiting_on") = None,
    expected_version: ExpectedVersion = 0,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Move a task to another stage (any move is allowed) and update what comes next.

    Always pass next_step and waiting_on with a move (a next step written before the
    move becomes stale). The working rules are checked: warn mode moves with
    "Warning (rules): …" lines, strict mode refuses. Moving to done sets the closed time.

    Returns:
        "Moved <key> a → b (version N)." then warnings, hints and notes.
    Errors:
        - Unknown task; unknown stage (the message lists the stages); stale
          expected_version; strict rules: "Rules: … Nothing changed."
    """
    return await call_service(
        services.task_set_stage,
        on_loop=True,
        key=task,
        stage=stage,
        note=note,
        next_step=next_step,
        waiting_on=waiting_on,
        expected_version=version_or_none(expected_version),
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.task_write_md,
    )


async def task_schema_resource() -> str:
    """The editable task fields: name, type, limit, description, how to clear."""
    return schema_table_md()
