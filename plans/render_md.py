"""The short markdown of the plan: plan_get, the task_get section and the write answers."""

from __future__ import annotations

from plans.models import DONE, PlanStep
from plans.selectors import PlanSummary, is_deviation
from tasks.models import Task
from tasks.render_md import one_line, when

NO_PLAN = "No plan yet: write 2-5 steps with plan_set (S tasks: at least a todo)."


def heading(summary: PlanSummary) -> str:
    """ "draft · 2 of 5 done · 1 deviation" or "accepted by owner 2026-… · 2 of 5 done"."""
    state = summary.status
    if state == "accepted":
        by = f" by {summary.accepted_by}" if summary.accepted_by else ""
        state += f"{by} {when(summary.accepted_at)}"
    return f"{state} · {summary.counts_text}"


def step_line(step: PlanStep, *, details: bool = False) -> list[str]:
    mark = " ← now" if step.status == "in_progress" else ""
    flag = " ⚠" if is_deviation(step) else ""
    lines = [f"{step.position}. [{step.status}] {step.title}{flag}{mark}"]
    if step.status == DONE:
        bits = [step.conformance or "no conformance"]
        if step.outcome:
            bits.append(step.outcome)
        if step.link:
            bits.append(step.link)
        bits.append(f"done {when(step.done_at)}")
        lines.append("   Checkpoint: " + " · ".join(bits))
    elif step.outcome:
        lines.append(f"   Why: {step.outcome}" if step.status == "blocked" else step.outcome)
    if details and step.details:
        lines += [f"   {line}".rstrip() for line in step.details.splitlines()]
    elif step.details:
        lines.append(f"   {one_line(step.details, 120)}")
    return lines


def plan_md(task: Task, steps: list[PlanStep], summary: PlanSummary, *, full: bool) -> str:
    """plan_get (full: details in full) and the "## Plan" section of task_get."""
    if not steps:
        return f"## Plan\n\n{NO_PLAN}"
    lines = [f"## Plan — {heading(summary)}", ""]
    for step in steps:
        lines += step_line(step, details=full)
    if summary.status == "draft":
        lines += [
            "",
            "Draft: the owner accepts it on the board, the coordinator with plan_accept.",
        ]
    return "\n".join(lines)


def plan_get_md(task: Task, steps: list[PlanStep], summary: PlanSummary, revisions: int) -> str:
    lines = [f"# Plan of {task.key} {task.title}", "", plan_md(task, steps, summary, full=True)]
    if revisions:
        lines += ["", f"Revisions: {revisions} (every plan write is kept with its reason)."]
    return "\n".join(lines)


def with_notes(head: str, notes: tuple[str, ...] | list[str]) -> str:
    return "\n".join([head, *(n for n in notes if n)])
