"""MCP adapters of the Owner check (§3 Review group): review_get, review_steps_set,
review_step_update.

Same shape as plans.mcp_tools: each tool is `async def` and makes exactly one
`call_service` hop; a write tool names its service, passes the caller as a CallerRef
(resolved inside the service's transaction) and builds its answer from the Outcome.
Agents write and fix the checklist; only the owner accepts or rejects, on the board
(reviews.services.review_step_decide has no tool).
"""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from core.mcp import ToolEntry, add_tools, call_service
from reviews import mcp_files, render_md, selectors, services
from reviews.models import DETAILS_MAX, TITLE_MAX, ReviewStep
from tasks.extensions import CallerRef
from tasks.mcp_params import (
    READ,
    WRITE,
    HookSession,
    Session,
    SessionTitle,
    StepObject,
    TaskKey,
    optional,
    step_number_param,
    steps_param,
)
from tasks.models import Task
from tasks.selectors import get_task
from tasks.services import Outcome


class StepInput(StepObject):
    title: Annotated[str, Field(description="What the owner should check, one short line.")]
    details: Annotated[
        str | None,
        Field(
            description="What, how and why (markdown): where to click, what to expect. Left "
            'out: a step whose title stays keeps its details; "-" clears them.'
        ),
    ] = None


Steps = steps_param(
    StepInput,
    'The whole checklist in order: titles ["Login with 2FA", …] or objects '
    '[{"title": "Login with 2FA", "details": "Open /login, …"}]. [] removes it.',
)
StepNumber = step_number_param("review_get")


# --- the read's sync half and the write answers -------------------------------------------


def _review_text(key: str) -> str:
    task = get_task(key)
    steps = selectors.review_steps(task)
    return render_md.review_get_md(task, steps, selectors.summarize(steps))


def _checklist_md(outcome: Outcome[Task]) -> str:
    t, notes = outcome.obj, [*outcome.notes, *outcome.caller_notes]
    if not outcome.changed:
        return render_md.with_notes(notes[0], notes[1:])
    if not selectors.review_steps(t):
        return render_md.with_notes(f"Removed the Owner check of {t.key}.", notes)
    head = f"Owner check of {t.key} written."
    return "\n".join([render_md.with_notes(head, notes), "", _review_text(t.key)])


def _step_md(outcome: Outcome[ReviewStep]) -> str:
    step = outcome.obj
    if not outcome.changed:
        return render_md.with_notes(outcome.notes[0], outcome.caller_notes)
    head = (
        f"Step {step.position} of {step.task.key} '{step.title}' is {step.status}: "
        "the owner looks again."
    )
    return render_md.with_notes(head, outcome.caller_notes)


# --- tools ---------------------------------------------------------------------------------


async def review_get(task: TaskKey) -> str:
    """Read a task's Owner check: what the owner should check by eye, and the decisions.

    Each step shows its status (open, accepted or rejected), who decided and when, and its
    details. The owner's decisions also arrive as owner comments on the task.

    Returns:
        "# Owner check of <key> <title> (stage <stage>)", then "## Owner check — 2 of 5
        accepted · 1 rejected" and one numbered line per step "[status] title"; "No Owner
        check yet …" when there is none.
    Errors:
        - Unknown task: call task_list to see the keys.
    """
    return await call_service(_review_text, task)


async def review_steps_set(
    task: TaskKey,
    steps: Steps,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Write the Owner check of a task before it moves to review or test: what the owner
    should check by eye, one step per thing to look at (then attach screenshots with
    attach_file).

    It replaces the list. Step N keeps its status (and its screenshots) while its title and
    details stay the same; a changed step is open again; steps past the new end are removed;
    [] removes the checklist. A write that changes nothing is not kept. Only the owner
    accepts or rejects steps, on the board; each decision reaches you as an owner comment
    ("Step 2 '…' rejected: <why>").

    Returns:
        "Owner check of <key> written." and the checklist; "Nothing changed: …" when it
        already reads so.
    Errors:
        - Unknown task; a step without a title; more than 30 steps; text over the limits; a
          step key other than title and details (named, nothing written).
    """
    return await call_service(
        services.review_steps_set,
        key=task,
        steps=[s.model_dump() if isinstance(s, StepInput) else s for s in steps],
        actor=CallerRef(session, session_title, hook_session),
        answer=_checklist_md,
    )


async def review_step_update(
    task: TaskKey,
    step: StepNumber,
    title: optional("The step's new title; a changed step is open again.", TITLE_MAX) = None,
    details: optional('What, how and why (markdown). "-" clears it.', DETAILS_MAX) = None,
    status: optional(
        'Only "open": ask the owner for a new look after you fixed a rejected step.'
    ) = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Change one step of the Owner check: its text, or status open to ask for a new look.

    Use it after fixing what the owner rejected: status "open" puts the step back in front
    of the owner. A step whose text changes is open again. You cannot accept or reject:
    the owner decides on the board.

    Returns:
        "Step <n> of <key> '<title>' is open: the owner looks again." or "Nothing changed:
        …" when the step already says so.
    Errors:
        - Unknown task or step number; a status other than open; an empty title.
    """
    return await call_service(
        services.review_step_update,
        key=task,
        step=step,
        title=title,
        details=details,
        status=status,
        actor=CallerRef(session, session_title, hook_session),
        answer=_step_md,
    )


_TOOLS: list[ToolEntry] = [
    (review_get, READ),
    (review_steps_set, WRITE),
    (review_step_update, WRITE),
]


def register(server: MCPServer) -> None:
    """Add the review tools to the MCP server (relaybay_site.mcp_server.build_server)."""
    add_tools(server, _TOOLS)
    mcp_files.register(server)
