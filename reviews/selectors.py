"""Reads of the Owner check: steps, the summary line, batched for cards and the Inbox; and
the screenshots' stored files."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F

from core.errors import NotFound
from core.rows import has_rows, rows_where
from reviews.models import ACCEPTED, REJECTED, Attachment, ReviewStep
from tasks.models import Task
from tasks.steps import step_number

QUEUE_STAGES = ("review", "test")


@dataclass(frozen=True)
class ReviewSummary:
    total: int
    accepted: int
    rejected: int

    @property
    def open(self) -> int:
        return self.total - self.accepted - self.rejected

    @property
    def all_accepted(self) -> bool:
        return self.total > 0 and self.accepted == self.total

    @property
    def counts_text(self) -> str:
        """ "2 of 5 accepted · 1 rejected" (§2 Review tab)."""
        text = f"{self.accepted} of {self.total} accepted"
        if self.rejected:
            text += f" · {self.rejected} rejected"
        return text


def find_step(task: Task, step: object) -> ReviewStep:
    """The step a tool or form names by its number, or an error that says what exists."""
    number = step_number(step, "task_get")
    found = ReviewStep.objects.filter(task=task, position=number).first()
    if found is None:
        count = ReviewStep.objects.filter(task=task).count()
        if not count:
            raise NotFound(f"{task.key} has no Owner check yet: write it with review_steps_set.")
        raise NotFound(f"{task.key} has no step {number}: its checklist has {count} step(s).")
    return found


def review_steps(task: Task) -> list[ReviewStep]:
    return rows_where(ReviewStep, "task", task.pk, "position")  # task_get's section: SQL once


def has_review_steps(task: Task) -> bool:
    return has_rows(ReviewStep, "task", task.pk)


def summarize(steps: list[ReviewStep]) -> ReviewSummary:
    return ReviewSummary(
        total=len(steps),
        accepted=sum(1 for s in steps if s.status == ACCEPTED),
        rejected=sum(1 for s in steps if s.status == REJECTED),
    )


def next_not_accepted(steps: list[ReviewStep], after: int) -> ReviewStep | None:
    """The step to continue with: the first not accepted after `after`, else before it."""
    later = [s for s in steps if s.position > after and s.status != ACCEPTED]
    earlier = [s for s in steps if s.position < after and s.status != ACCEPTED]
    return (later or earlier or [None])[0]


def card_summaries(tasks: list[Task]) -> dict[int, tuple[str, ReviewSummary]]:
    """{task id: (project slug, summary)} for the board's cards: exactly one query."""
    by_task: dict[int, list[ReviewStep]] = {}
    slugs: dict[int, str] = {}
    rows = ReviewStep.objects.filter(task_id__in=[t.id for t in tasks]).annotate(
        project_slug=F("task__project__slug")
    )
    for step in rows.order_by("task_id", "position"):
        by_task.setdefault(step.task_id, []).append(step)
        slugs[step.task_id] = step.project_slug
    return {tid: (slugs[tid], summarize(steps)) for tid, steps in by_task.items()}


@dataclass(frozen=True)
class QueueItem:
    task: Task
    summary: ReviewSummary


def review_queue(limit: int = 50) -> list[QueueItem]:
    """Tasks in review or test with a checklist, across projects, longest waiting first."""
    tasks = list(
        Task.objects.filter(stage__in=QUEUE_STAGES, review_steps__isnull=False)
        .distinct()
        .select_related("project")
        .order_by("stage_changed_at", "id")[:limit]
    )
    if not tasks:  # no steps to read: their queryset's compiling cost the empty group a third
        return []
    by_task: dict[int, list[ReviewStep]] = {}
    for step in ReviewStep.objects.filter(task_id__in=[t.id for t in tasks]):
        by_task.setdefault(step.task_id, []).append(step)
    return [QueueItem(task=t, summary=summarize(by_task.get(t.id, []))) for t in tasks]


def stored_files() -> list[tuple[str, str, str]]:
    """(project slug, task key, stored name) of every screenshot row: what the start's
    sweep keeps under attachments/ (reviews.storage)."""
    rows = Attachment.objects.values_list("task__project__slug", "task__key", "stored_name")
    return list(rows)
