"""Reads of the plan: steps, the one-line summary, revisions, batched for lists and cards."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import F

from core.rows import fetch_all, has_rows, rows_where
from plans import sql
from plans.models import BLOCKED, DONE, IN_PROGRESS, PlanRevision, PlanStep
from tasks.extensions import LineTask
from tasks.models import Task


@dataclass(frozen=True)
class PlanSummary:
    """What a list line, a card badge and the plan heading say about a plan."""

    status: str  # none / draft / accepted (from the task)
    total: int
    done: int
    deviations: int
    blocked: int
    now: str  # the title of the first step in progress, "" when none
    accepted_by: str
    accepted_at: datetime | None

    @property
    def counts_text(self) -> str:
        """ "2 of 5 done · 1 deviation" (§2 Plan tab)."""
        text = f"{self.done} of {self.total} done"
        if self.deviations:
            text += f" · {self.deviations} deviation{'s' if self.deviations != 1 else ''}"
        if self.blocked:
            text += f" · {self.blocked} blocked"
        return text


def is_deviation(step: PlanStep) -> bool:
    return step.status == DONE and step.conformance.startswith("deviation")


def plan_steps(task: Task) -> list[PlanStep]:
    return rows_where(PlanStep, "task", task.pk, "position")  # task_get's section: SQL once


def has_plan_steps(task: Task) -> bool:
    return has_rows(PlanStep, "task", task.pk)


def summarize(task: Task, steps: list[PlanStep]) -> PlanSummary:
    now = next((s.title for s in steps if s.status == IN_PROGRESS), "")
    return PlanSummary(
        status=task.plan_status if steps else "none",
        total=len(steps),
        done=sum(1 for s in steps if s.status == DONE),
        deviations=sum(1 for s in steps if is_deviation(s)),
        blocked=sum(1 for s in steps if s.status == BLOCKED),
        now=now,
        accepted_by=task.plan_accepted_by,
        accepted_at=task.plan_accepted_at,
    )


def step_counts(tasks: Sequence[LineTask]) -> dict[int, tuple[int, int]]:
    """{task id: (done steps, steps)} for the tasks that have a plan, in at most one query."""
    # plan_status is "none" exactly when a task has no steps: a list without plans asks nothing.
    ids = [int(t.id) for t in tasks if t.plan_status != "none"]
    if not ids:
        return {}
    return {row[0]: (row[1], row[2]) for row in fetch_all(sql.STEP_COUNTS.text, [json.dumps(ids)])}


def card_summaries(tasks: list[Task]) -> dict[int, tuple[str, PlanSummary]]:
    """{task id: (project slug, summary)} for the board's cards: exactly one query."""
    by_task: dict[int, list[PlanStep]] = {}
    slugs: dict[int, str] = {}
    rows = PlanStep.objects.filter(task_id__in=[t.id for t in tasks]).annotate(
        project_slug=F("task__project__slug")
    )
    for step in rows.order_by("task_id", "position"):
        by_task.setdefault(step.task_id, []).append(step)
        slugs[step.task_id] = step.project_slug
    return {t.id: (slugs[t.id], summarize(t, by_task[t.id])) for t in tasks if t.id in by_task}


def revision_count(task: Task) -> int:
    return PlanRevision.objects.filter(task=task).count()


def latest_revision(task: Task) -> int:
    last = (
        PlanRevision.objects.filter(task=task)
        .order_by("-revision")
        .values_list("revision", flat=True)
        .first()
    )
    return last or 0


def revisions(task: Task, limit: int | None = None) -> list[PlanRevision]:
    """The task's plan revisions, newest first."""
    rows = PlanRevision.objects.filter(task=task).order_by("-revision")
    return list(rows[:limit] if limit else rows)
