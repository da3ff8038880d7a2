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


CAPTION_MAX = 2000  # markdown


class Attachment(models.Model):
    """A screenshot on a task, optionally on one step of its Owner check (§1 Screenshots).

    The file lives at <data dir>/attachments/<project>/<task key>/<stored_name>; the name the
    agent gave is display only and never used on disk.
    """

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="attachments")
    step = models.ForeignKey(
        ReviewStep,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="attachments",
    )
    stored_name = models.CharField(max_length=100, unique=True)  # <32 hex>.<ext>
    original_name = models.CharField(max_length=255, blank=True, default="")
    content_type = models.CharField(max_length=50)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    caption = models.TextField(blank=True, default="")
    created_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["task_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["task", "sha256"], name="attachment_task_sha256"),
        ]

    def __str__(self) -> str:
        return f"{self.task_id}:{self.id} {self.original_name or self.stored_name}"
