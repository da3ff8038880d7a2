"""The short markdown of the Owner check: review_get, the task_get section, write answers."""

from __future__ import annotations

from reviews.models import ReviewStep
from reviews.selectors import ReviewSummary
from tasks.models import Task
from tasks.render_md import one_line, when

NO_CHECK = (
    "No Owner check yet: before review or test write what the owner should check by eye "
    "with review_steps_set, then attach screenshots with attach_file."
)


def step_lines(step: ReviewStep, *, details: bool) -> list[str]:
    lines = [f"{step.position}. [{step.status}] {step.title}"]
    if step.decided_at is not None:
        lines.append(f"   {step.status} by {step.decided_by or '-'} {when(step.decided_at)}")
    if details and step.details:
        lines += [f"   {line}".rstrip() for line in step.details.splitlines()]
    elif step.details:
        lines.append(f"   {one_line(step.details, 120)}")
    return lines


def review_md(steps: list[ReviewStep], summary: ReviewSummary, *, full: bool) -> str:
    """review_get (full: details in full) and the "## Owner check" section of task_get."""
    if not steps:
        return f"## Owner check\n\n{NO_CHECK}"
    lines = [f"## Owner check — {summary.counts_text}", ""]
    for step in steps:
        lines += step_lines(step, details=full)
    if summary.rejected:
        lines += [
            "",
            "Rejected steps: the owner's comment says why; fix it, then ask for a new look "
            "with review_step_update(status=open).",
        ]
    return "\n".join(lines)


def review_get_md(task: Task, steps: list[ReviewStep], summary: ReviewSummary) -> str:
    head = f"# Owner check of {task.key} {task.title} (stage {task.stage})"
    return "\n".join([head, "", review_md(steps, summary, full=True)])


def with_notes(head: str, notes: tuple[str, ...] | list[str]) -> str:
    return "\n".join([head, *(n for n in notes if n)])
