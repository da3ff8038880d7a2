"""The Owner check: a task's review checklist (§1 Review checklist, §11 0011_review).

Fields, constraints and Meta only: every write goes through reviews.services.
"""

from __future__ import annotations

from django.db import models

from tasks.models import Task

OPEN, ACCEPTED, REJECTED = "open", "accepted", "rejected"
STEP_STATUSES = (OPEN, ACCEPTED, REJECTED)

TITLE_MAX = 200
DETAILS_MAX = 4000  # "what, how and why", markdown
STEPS_MAX = 30


class ReviewStep(models.Model):
    """One thing the owner should check by eye; the owner accepts or rejects it."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="review_steps")
    position = models.PositiveIntegerField()  # 1, 2, 3 … in checklist order
    title = models.CharField(max_length=TITLE_MAX)
    details = models.TextField(blank=True, default="")
    status = models.CharField(max_length=10, choices=[(s, s) for s in STEP_STATUSES], default=OPEN)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=200, blank=True, default="")
    created_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["task_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["task", "position"], name="review_step_position"),
            models.CheckConstraint(
                condition=models.Q(status__in=STEP_STATUSES), name="review_step_status_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task_id}:{self.position} {self.title}"
