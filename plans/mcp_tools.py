"""MCP adapters of the plan (§3 Plan group): plan_get, plan_set, plan_step_update, plan_accept.

Same shape as tasks.mcp_tasks: each tool is `async def` and makes exactly one `call_service`
hop; a write tool names its service, passes the caller as a CallerRef (resolved inside the
service's transaction) and builds its answer from the service's Outcome. Short markdown.
"""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from core.mcp import ToolEntry, add_tools, call_service
from plans import render_md, selectors, services
from plans.models import (
    CONFORMANCE_MAX,
    DETAILS_MAX,
    LINK_MAX,
    OUTCOME_MAX,
    REASON_MAX,
    PlanStep,
)
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
    title: Annotated[str, Field(description="What the step does, one short line.")]
    details: Annotated[
        str | None,
        Field(
            description="What and why (markdown, at most 2000 characters). Left out: a step "
            'whose title stays keeps its details; "-" clears them.'
        ),
    ] = None


Steps = steps_param(
    StepInput,
    'The whole plan in order: titles ["Write the model", …] or objects '
    '[{"title": "Write the model", "details": "why …"}]. [] removes the plan.',
)
StepNumber = step_number_param("plan_get")


# --- the read's sync half and the write answers -----------------------------------------------


def _plan_text(key: str) -> str:
    task = get_task(key)
    steps = selectors.plan_steps(task)
    summary = selectors.summarize(task, steps)
    return render_md.plan_get_md(task, steps, summary, selectors.revision_count(task))


def _get(task: str) -> str:
    return _plan_text(task)


def _plan_set_md(outcome: Outcome[Task]) -> str:
    t, notes = outcome.obj, [*outcome.notes, *outcome.caller_notes]
    if not outcome.changed:
        return render_md.with_notes(notes[0], notes[1:])
    if t.plan_status == "none":
        return render_md.with_notes(f"Removed the plan of {t.key}; plan status none.", notes)
    head = f"Plan of {t.key} written: plan status {t.plan_status}."
    return "\n".join([render_md.with_notes(head, notes), "", _plan_text(t.key)])


def _step_md(outcome: Outcome[PlanStep]) -> str:
    step = outcome.obj
    if not outcome.changed:
        return render_md.with_notes(outcome.notes[0], outcome.caller_notes)
    head = f"Step {step.position} of {step.task.key} '{step.title}' is {step.status}."
    lines = render_md.step_line(step)[1:]
    return render_md.with_notes(head, [*lines, *outcome.caller_notes])


def _accepted_md(outcome: Outcome[Task]) -> str:
    if not outcome.changed:
        return render_md.with_notes(outcome.notes[0], outcome.caller_notes)
    t = outcome.obj
    head = f"Accepted the plan of {t.key} as {t.plan_accepted_by} (version {t.version})."
    return render_md.with_notes(head, outcome.caller_notes)


# --- tools ---------------------------------------------------------------------------------


async def plan_get(task: TaskKey) -> str:
    """Read a task's plan: its status, every step with its status, checkpoint and details.

    The plan is the ordered list of steps the agent committed to (plan_set). Done steps show
    their checkpoint (conformance, outcome, link, when); "← now" marks the step in progress.

    Returns:
        "# Plan of <key> <title>", then "## Plan — <status> · 2 of 5 done · 1 deviation"
        and one numbered line per step "[status] title", with "Checkpoint: …" under done
        steps and details indented; "No plan yet …" when there is none; the revision count.
    Errors:
        - Unknown task: call task_list to see the keys.
    """
    return await call_service(_get, task)


async def plan_set(
    task: TaskKey,
    steps: Steps,
    reason: optional(
        "Why the plan is written or changed, one line (kept in its history).", REASON_MAX
    ) = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Write the whole plan of a task: 2-5 steps before you code (from PLAN.md or your own).

    It replaces the list. Step N keeps its status and checkpoint while its title stays the
    same; a renamed step is pending again (its checkpoint cleared); steps past the new end
    are removed; [] removes the plan. A new plan is a draft: the owner accepts it on the
    board, the coordinator with plan_accept. Changing the titles or their order turns an
    accepted plan back to draft (the answer says so); details edits do not. A write that
    changes nothing is not kept.

    Returns:
        "Plan of <key> written: plan status draft." (plus a note when an accepted plan is a
        draft again) and the plan; "Removed the plan of <key>; plan status none." for [];
        "Nothing changed: …" when the plan already reads so.
    Errors:
        - Unknown task; a step without a title; details over 2000 characters; more than
          30 steps; a step key other than title and details (named, nothing written).
    """
    return await call_service(
        services.plan_set,
        key=task,
        steps=[s.model_dump() if isinstance(s, StepInput) else s for s in steps],
        reason=reason,
        actor=CallerRef(session, session_title, hook_session),
        answer=_plan_set_md,
    )


async def plan_step_update(
    task: TaskKey,
    step: StepNumber,
    status: optional("pending, in_progress, done or blocked.") = None,
    outcome: optional(
        'One line: what came of a done step, or why a step is blocked. "-" clears it.',
        OUTCOME_MAX,
    ) = None,
    link: optional(
        "A report of this task (12, #12 or report:12) or an http(s) URL such as a pull "
        'request. "-" clears it.',
        LINK_MAX,
    ) = None,
    conformance: optional(
        'Required for done: "as planned" or "deviation: <why>" — say honestly where the '
        "work left the plan.",
        CONFORMANCE_MAX,
    ) = None,
    details: optional(
        f'The step\'s "what and why" (markdown, at most {DETAILS_MAX}). "-" clears it.',
        DETAILS_MAX,
    ) = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Move one plan step: mark it in_progress when you start it, done when it is finished.

    done needs conformance "as planned" or "deviation: <why>"; it records the checkpoint
    (done time, optional one-line outcome and link). Leaving done clears the checkpoint;
    marking a done step done again keeps its done time. An outcome may say why a step is
    blocked. Step updates never change whether the plan is accepted.

    Returns:
        "Step <n> of <key> '<title>' is <status>." and the checkpoint line of a done step;
        "Nothing changed: …" when the step already says so.
    Errors:
        - Unknown task or step number; done without conformance; an outcome of more than one
          line; a link that is neither a report of this task nor an http(s) URL.
    """
    return await call_service(
        services.plan_step_update,
        key=task,
        step=step,
        status=status,
        outcome=outcome,
        link=link,
        conformance=conformance,
        details=details,
        actor=CallerRef(session, session_title, hook_session),
        answer=_step_md,
    )


async def plan_accept(
    task: TaskKey,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Accept a task's plan as the coordinator (the owner accepts on the board).

    Refused for the session bound to the task: the agent doing the work does not accept its
    own plan. An accepted plan lets the task move to dev under the working rules (§6).

    Returns:
        "Accepted the plan of <key> as <caller> (version <n>)." or "Nothing changed: the
        plan of <key> is already accepted by …".
    Errors:
        - Unknown task; the task has no plan; you are the session bound to the task.
    """
    return await call_service(
        services.plan_accept,
        key=task,
        actor=CallerRef(session, session_title, hook_session),
        answer=_accepted_md,
    )


_TOOLS: list[ToolEntry] = [
    (plan_get, READ),
    (plan_set, WRITE),
    (plan_step_update, WRITE),
    (plan_accept, WRITE),
]


def register(server: MCPServer) -> None:
    """Add the plan tools to the MCP server (relaybay_site.mcp_server.build_server)."""
    add_tools(server, _TOOLS)
