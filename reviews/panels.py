"""The Review tab of the task dialog and the Review section of the task page (§2 Review tab).

Registered in reviews.apps.ready() through tasks.extensions.register_task_panels; tasks
never imports this module. Every value here is ready for the template, which only loops
and branches. One query whatever the checklist holds: the steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from relaybay_site import tokens
from relaybay_site.security import current_token
from reviews import selectors
from reviews.models import ACCEPTED, ReviewStep
from tasks.extensions import TaskPanel, register_task_panels
from tasks.models import Task
from tasks.selectors.task_page import Stamp, stamp

PANEL_ID = "review"
PANEL_TEMPLATE = "reviews/partials/review_panel.html"


@dataclass(frozen=True)
class StepView:
    position: int
    title: str
    details: str
    status: str  # open / accepted / rejected
    decided_by: str
    decided: Stamp | None
    decide_url: str

    @property
    def is_accepted(self) -> bool:
        return self.status == ACCEPTED


@dataclass(frozen=True)
class ReviewPanel:
    key: str
    counts_text: str  # "2 of 5 accepted · 1 rejected"
    all_accepted: bool
    rejected: int
    steps: list[StepView]
    error: str = ""
    error_step: int = 0  # the step whose form the error is about (its comment is kept)
    kept_comment: str = ""


def decide_url(task: Task, position: int) -> str:
    return f"/p/{task.project.slug}/t/{task.key}/review/{position}/decide"


def _step_view(task: Task, step: ReviewStep, now: Any) -> StepView:
    return StepView(
        position=step.position,
        title=step.title,
        details=step.details,
        status=step.status,
        decided_by=step.decided_by,
        decided=stamp(step.decided_at, now),
        decide_url=decide_url(task, step.position),
    )


def review_panel(
    task: Task, error: str = "", error_step: int = 0, kept_comment: str = ""
) -> ReviewPanel:
    now = timezone.now()
    steps = selectors.review_steps(task)
    summary = selectors.summarize(steps)
    return ReviewPanel(
        key=task.key,
        counts_text=summary.counts_text,
        all_accepted=summary.all_accepted,
        rejected=summary.rejected,
        steps=[_step_view(task, s, now) for s in steps],
        error=error,
        error_step=error_step,
        kept_comment=kept_comment,
    )


def panel_context(
    task: Task, error: str = "", error_step: int = 0, kept_comment: str = ""
) -> dict[str, Any]:
    """What the panel template needs, also when rendered without a request."""
    return {
        "rv": review_panel(task, error, error_step, kept_comment),
        "csrf_token": tokens.csrf_token(current_token()),
    }


def task_panels(task: Task) -> list[TaskPanel]:
    return [
        TaskPanel(
            id=PANEL_ID,
            title="Review",
            template=PANEL_TEMPLATE,
            context=panel_context(task),
            tab="review",
        )
    ]


_registered = False


def register() -> None:
    """Plug into the board's seams once, even if ready() runs again (plain lists)."""
    global _registered
    if _registered:
        return
    _registered = True
    register_task_panels(30, task_panels)
