"""The Review tab of the task dialog and the Review section of the task page (§2 Review tab).

Registered in reviews.apps.ready() through tasks.extensions.register_task_panels; tasks
never imports this module. Every value here is ready for the template, which only loops
and branches. Two queries whatever the checklist holds: the steps and the task's screenshots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils import timezone

from core import tokens
from core.display import Stamp, stamp
from core.security import current_token
from reviews import selectors
from reviews.models import ACCEPTED, Attachment, ReviewStep
from tasks.extensions import Panel, plug_in_once, register_task_panel
from tasks.models import Task

PANEL_ID = "review"
PANEL_TEMPLATE = "reviews/partials/review_panel.html"


@dataclass(frozen=True)
class ShotView:
    """One screenshot as a thumbnail: its file, caption (markdown) and confirmed Remove."""

    id: int
    url: str  # GET /files/<id>
    caption: str
    remove_url: str
    number: int  # 1-based across the task's screenshots (the viewer's "3 / 7")


@dataclass(frozen=True)
class StepView:
    position: int
    title: str
    details: str
    status: str  # open / accepted / rejected
    decided_by: str
    decided: Stamp | None
    decide_url: str
    paste_url: str = ""
    shots: tuple[ShotView, ...] = ()

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
    other_shots: tuple[ShotView, ...] = ()  # screenshots of no step ("Other screenshots")
    shot_total: int = 0
    error: str = ""
    error_step: int = 0  # the step whose form the error is about (its comment is kept)
    kept_comment: str = ""


def decide_url(task: Task, position: int) -> str:
    return reverse("review_step_decide", args=[task.project.slug, task.key, position])


def paste_url(task: Task, position: int) -> str:
    return reverse("review_step_paste", args=[task.project.slug, task.key, position])


def remove_url(task: Task, attachment_id: int) -> str:
    return reverse("review_shot_remove", args=[task.project.slug, task.key, attachment_id])


def _step_view(
    task: Task, step: ReviewStep, now: Any, shots: tuple[ShotView, ...] = ()
) -> StepView:
    return StepView(
        position=step.position,
        title=step.title,
        details=step.details,
        status=step.status,
        decided_by=step.decided_by,
        decided=stamp(step.decided_at, now),
        decide_url=decide_url(task, step.position),
        paste_url=paste_url(task, step.position),
        shots=shots,
    )


def _shots(
    task: Task, steps: list[ReviewStep]
) -> tuple[dict[int, tuple[ShotView, ...]], tuple[ShotView, ...], int]:
    """The task's screenshots grouped by step (in step order), then those of no step,
    numbered across the task in that order. One query."""
    rows = list(Attachment.objects.filter(task=task).order_by("id"))
    by_step: dict[int, list[Attachment]] = {}
    for row in rows:
        by_step.setdefault(row.step_id or 0, [])
        by_step[row.step_id or 0].append(row)
    known = {s.id for s in steps}
    ordered = [(s.id, by_step.get(s.id, [])) for s in steps]
    other = [a for sid, items in by_step.items() if sid not in known for a in items]
    number = 0
    grouped: dict[int, tuple[ShotView, ...]] = {}
    for sid, items in [*ordered, (0, sorted(other, key=lambda a: a.id))]:
        views = []
        for a in items:
            number += 1
            views.append(
                ShotView(
                    id=a.id,
                    url=reverse("attachment_file", args=[a.id]),
                    caption=a.caption,
                    remove_url=remove_url(task, a.id),
                    number=number,
                )
            )
        grouped[sid] = tuple(views)
    others = grouped.pop(0, ())
    return grouped, others, number


def review_panel(
    task: Task, error: str = "", error_step: int = 0, kept_comment: str = ""
) -> ReviewPanel:
    now = timezone.now()
    steps = selectors.review_steps(task)
    summary = selectors.summarize(steps)
    grouped, others, total = _shots(task, steps)
    return ReviewPanel(
        key=task.key,
        counts_text=summary.counts_text,
        all_accepted=summary.all_accepted,
        rejected=summary.rejected,
        steps=[_step_view(task, s, now, grouped.get(s.id, ())) for s in steps],
        other_shots=others,
        shot_total=total,
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


@plug_in_once
def register() -> None:
    """Plug into the board's seams once, even if ready() runs again (plain lists)."""
    panel = Panel(PANEL_ID, "Review", PANEL_TEMPLATE, panel_context, "review")
    register_task_panel(30, panel)
