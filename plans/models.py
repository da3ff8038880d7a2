"""Plan steps and plan revisions (§1 Plan and checkpoints, §11 0013_plan).

Fields, constraints and Meta only: every write goes through plans.services. The plan's
status (none / draft / accepted, who and when) lives on tasks.Task.
"""

from __future__ import annotations

from django.db import models

from tasks.models import Task

PENDING, IN_PROGRESS, DONE, BLOCKED = "pending", "in_progress", "done", "blocked"
STEP_STATUSES = (PENDING, IN_PROGRESS, DONE, BLOCKED)

TITLE_MAX = 200
DETAILS_MAX = 2000  # §1: "what and why", markdown, up to 2000 characters
OUTCOME_MAX = 300
LINK_MAX = 2000
CONFORMANCE_MAX = 500
REASON_MAX = 500


class PlanStep(models.Model):
    """One step of a task's plan; a done step carries its checkpoint."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="plan_steps")
    position = models.PositiveIntegerField()  # 1, 2, 3 … in plan order
    title = models.CharField(max_length=TITLE_MAX)
    details = models.TextField(blank=True, default="")
    status = models.CharField(
        max_length=12, choices=[(s, s) for s in STEP_STATUSES], default=PENDING
    )
    # The checkpoint of a done step (cleared when the step leaves done).
    done_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=OUTCOME_MAX, blank=True, default="")
    link = models.CharField(max_length=LINK_MAX, blank=True, default="")
    conformance = models.CharField(max_length=CONFORMANCE_MAX, blank=True, default="")
    created_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["task_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["task", "position"], name="plan_step_position"),
            models.CheckConstraint(
                condition=models.Q(status__in=STEP_STATUSES), name="plan_step_status_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task_id}:{self.position} {self.title}"


class PlanRevision(models.Model):
    """The whole plan after one plan write (set, step update, acceptance)."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="plan_revisions")
    revision = models.PositiveIntegerField()
    body = models.JSONField(default=dict)
    author = models.CharField(max_length=200, blank=True, default="")
    reason = models.CharField(max_length=REASON_MAX, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["task_id", "revision"]
        constraints = [
            models.UniqueConstraint(fields=["task", "revision"], name="plan_revision_number"),
        ]
