"""MCP adapters of the tasks app (§3): projects, tasks, reports, decisions, events, rules.

Each tool is `async def` and makes exactly one `call_service` hop on Django's sync thread
(docs/architecture.md §4). A write tool names its service (`services.task_set_stage`), hands
it the caller as a CallerRef, which the service resolves inside its own transaction, and
builds its answer from the service's result. The docstrings and parameter descriptions are
what the model reads.

Parameter conventions (§3 compatibility policy): only what a tool truly needs is required;
an optional text left out (null) changes nothing, "-" or "" clears it; expected_version 0
means "do not check".
"""

import inspect
from collections.abc import Callable
from importlib import import_module
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import ToolAnnotations
from pydantic import BeforeValidator, Field

from core.errors import NotFound
from core.mcp import call_service
from tasks import render_md, selectors, services
from tasks.extensions import CallerRef, task_sections
from tasks.fields import EDITABLE_FIELD_NAMES, FIELDS_BY_NAME, schema_table_md
from tasks.mcp_params import (
    READ,
    WRITE,
    HookSession,
    Session,
    SessionTitle,
    TaskKey,
)
from tasks.rules import render_rules_md

# --- parameter types: the schema descriptions the model reads -------------------------------

Project = Annotated[str, Field(description="Project slug, e.g. acme-shop (project_list).")]
ExpectedVersion = Annotated[
    int,
    # A model may send null or "" for "not given"; the schema stays a plain integer.
    BeforeValidator(lambda v: 0 if v is None or v == "" else v),
    Field(
        description="The task version you last read (task_get shows it). The write fails "
        "instead of overwriting a newer version. 0 or omitted: do not check."
    ),
]


def _text(description: str) -> Any:
    return Annotated[str | None, Field(description=f'{description} "-" or "" clears it.')]


def _field(name: str) -> Any:
    """An editable task field as a tool parameter; its description and limit from fields.py."""
    spec = FIELDS_BY_NAME[name]
    text = spec.description
    if spec.max_length:
        text += f" At most {spec.max_length} characters."
    if spec.type == "bool":
        return Annotated[bool | None, Field(description=text)]
    if spec.clearable:
        text += ' "-" or "" clears it.'
    return Annotated[str | None, Field(description=text)]


# --- the sync halves: one call_service hop each ------------------------------------------------


def _editable(values: dict[str, Any], *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The editable fields a tool call gave (not None), from the tool's locals()."""
    return {
        n: values[n] for n in EDITABLE_FIELD_NAMES if n not in skip and values.get(n) is not None
    }


def _version(expected_version: int | None) -> int | None:
    return expected_version if expected_version and expected_version > 0 else None


def _task_get(key: str) -> str:
    detail = selectors.task_detail(key)
    return render_md.task_md(detail, task_sections(detail.task))


def _events_since(after_id: int, project: str, limit: int) -> str:
    limit = min(max(limit, 1), selectors.EVENTS_MAX)
    lines = selectors.events_since(after_id, project=project.strip() or None, limit=limit)
    return render_md.events_md(lines, max(after_id, 0), limit)


def _rules(project: str) -> str:
    proj = selectors.get_project(project) if project and project.strip() else None
    return render_rules_md(selectors.project_rules(proj), proj.slug if proj else None)


def _snapshot(project: str) -> str:
    return render_md.snapshot_md(selectors.snapshot_data(project))


def _task_list(project: str, stage: str, include_done: bool, query: str) -> str:
    data = selectors.task_list_data(
        project, stage=stage or None, include_done=include_done, query=query or None
    )
    return render_md.task_list_md(data)


def _project_list() -> str:
    return render_md.project_list_md(selectors.project_list())


async def _resource(fn: Callable[..., str], *args: Any) -> str:
    """Resources answer protocol errors, not tool results: keep the message readable."""
    try:
        return await call_service(fn, *args)
    except ToolError as exc:
        if isinstance(exc.__context__, NotFound):
            raise ResourceNotFoundError(str(exc)) from None
        raise ResourceError(str(exc)) from None


# --- tools -------------------------------------------------------------------------------------

_TOOLS: list[tuple[Callable[..., Any], ToolAnnotations]] = []
_RESOURCES: list[tuple[str, str, Callable[..., Any]]] = []


def tool(annotations: ToolAnnotations) -> Callable[[Any], Any]:
    """Collect a tool for register(); read tools are READ, write tools WRITE."""

    def decorator(fn: Any) -> Any:
        _TOOLS.append((fn, annotations))
        return fn

    return decorator


def resource(uri: str, name: str) -> Callable[[Any], Any]:
    def decorator(fn: Any) -> Any:
        _RESOURCES.append((uri, name, fn))
        return fn

    return decorator


@tool(READ)
async def project_list() -> str:
    """List every project with its open task counts per stage.

    Use it to find a project's slug. Then read project_snapshot(project).

    Returns:
        One line per project: slug — name: open tasks (per stage), done count, repo path.
    """
    return await call_service(_project_list)


@tool(WRITE)
async def project_upsert(
    slug: Annotated[
        str, Field(description="Lowercase letters, digits and dashes, e.g. acme-shop.")
    ],
    name: Annotated[str | None, Field(description="Display name (default: the slug).")] = None,
    repo_path: _text("Absolute path of the project's repository.") = None,
    description: _text("What the project is (markdown).") = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Create a project, or change the given fields of an existing one.

    Call it once per repository before creating tasks in it. Fields left out stay as
    they are.

    Returns:
        "Created project <slug> '<name>'." or "Updated project <slug>: <fields>.", or a
        note that nothing changed.
    Errors:
        - Invalid slug (capitals, spaces): the message suggests a valid slug.
        - A value over its limit: the message names the field and the limit.
    """
    return await call_service(
        services.project_upsert,
        slug=slug,
        name=name,
        repo_path=repo_path,
        description=description,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.project_write_md,
    )


@tool(READ)
async def project_snapshot(project: Project) -> str:
    """Read this first: the project's working rules, open tasks per stage and decisions.

    Its first line names the working rules (Rules <hash>: …); read rules_get for the
    details. Each task line shows key, title, [size], waiting on, next step ("(stale)"
    when written before the last stage change) and the tracker mark.

    Returns:
        The rules line, the project name and description, task counts, tasks per stage
        (recent done ones only) and the newest decisions.
    Errors:
        - Unknown project: call project_list or create it with project_upsert.
    """
    return await call_service(_snapshot, project)


@tool(READ)
async def task_list(
    project: Project,
    stage: Annotated[str, Field(description="Only this stage (plan … done).")] = "",
    include_done: Annotated[bool, Field(description="Also list done tasks.")] = False,
    query: Annotated[
        str, Field(description="Only tasks whose key, title or text contains this.")
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


@tool(READ)
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


@tool(WRITE)
async def task_create(
    project: Project,
    title: Annotated[str, Field(description="Short name of the task.")],
    description: _field("description") = None,
    stage: _field("stage") = None,
    size: _field("size") = None,
    priority: _field("priority") = None,
    next_step: _field("next_step") = None,
    waiting_on: _field("waiting_on") = None,
    progress: _field("progress") = None,
    branch: _field("branch") = None,
    document_path: _field("document_path") = None,
    stage_note: _field("stage_note") = None,
    tracker_ref: _field("tracker_ref") = None,
    tracker_name: _field("tracker_name") = None,
    tracker_url: _field("tracker_url") = None,
    tracker_logged: _field("tracker_logged") = None,
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
    values = _editable(locals(), skip=("title", "stage"))
    return await call_service(
        services.task_create,
        project=project,
        title=title,
        stage=stage or "plan",
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.task_write_md,
        **values,
    )


@tool(WRITE)
async def task_update(
    task: TaskKey,
    expected_version: ExpectedVersion = 0,
    title: _field("title") = None,
    stage: _field("stage") = None,
    stage_note: _field("stage_note") = None,
    waiting_on: _field("waiting_on") = None,
    next_step: _field("next_step") = None,
    progress: _field("progress") = None,
    description: _field("description") = None,
    size: _field("size") = None,
    priority: _field("priority") = None,
    branch: _field("branch") = None,
    document_path: _field("document_path") = None,
    tracker_ref: _field("tracker_ref") = None,
    tracker_name: _field("tracker_name") = None,
    tracker_url: _field("tracker_url") = None,
    tracker_logged: _field("tracker_logged") = None,
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
    values = _editable(locals())
    return await call_service(
        services.task_update,
        key=task,
        expected_version=_version(expected_version),
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.task_write_md,
        **values,
    )


@tool(WRITE)
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
        key=task,
        fields=fields,
        expected_version=_version(expected_version),
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.task_write_md,
    )


@tool(WRITE)
async def task_set_stage(
    task: TaskKey,
    stage: Annotated[str, Field(description="plan, dev, review, test, live or done.")],
    note: _text("Stage note: why it moves, what holds it.") = None,
    next_step: _field("next_step") = None,
    waiting_on: _field("waiting_on") = None,
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
        key=task,
        stage=stage,
        note=note,
        next_step=next_step,
        waiting_on=waiting_on,
        expected_version=_version(expected_version),
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.task_write_md,
    )


@tool(WRITE)
async def report_add(
    task: TaskKey,
    body: Annotated[
        str,
        Field(
            description="Markdown report. First line: state · size · gist, e.g. "
            "verified · M · login works with 2FA (rules_get lists states and sizes)."
        ),
    ],
    next_step: _field("next_step") = None,
    waiting_on: _field("waiting_on") = None,
    progress: _field("progress") = None,
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
    values = _editable(locals())
    return await call_service(
        services.report_add,
        key=task,
        body=body,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.report_write_md,
        **values,
    )


@tool(WRITE)
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


@tool(READ)
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


@tool(READ)
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


@resource("relaybay://project/{slug}", "project")
async def project_resource(slug: str) -> str:
    """The project snapshot (same markdown as project_snapshot)."""
    return await _resource(_snapshot, slug)


@resource("relaybay://rules", "rules")
async def rules_resource() -> str:
    """The global working rules (same as rules_get without a project)."""
    return await _resource(_rules, "")


@resource("relaybay://rules/{project}", "project-rules")
async def project_rules_resource(project: str) -> str:
    """A project's effective working rules (same as rules_get(project))."""
    return await _resource(_rules, project)


@resource("relaybay://schema/task", "task-schema")
async def task_schema_resource() -> str:
    """The editable task fields: name, type, limit, description, how to clear."""
    return schema_table_md()


# --- registration ------------------------------------------------------------------------------


def register(server: MCPServer) -> None:
    """Add the tasks tools and resources to the MCP server (called by relaybay_site.mcp_server)."""
    for fn, annotations in _TOOLS:
        server.add_tool(
            fn,
            description=inspect.cleandoc(fn.__doc__ or ""),
            annotations=annotations,
            structured_output=False,  # markdown, not {"result": …} (fixtures/mcp README)
        )
    for uri, name, fn in _RESOURCES:
        description = inspect.cleandoc(fn.__doc__ or "")
        server.resource(uri, name=name, description=description, mime_type="text/markdown")(fn)
    import_module("tasks.mcp_comments").register(server)  # comments_list, comment_ack, …
