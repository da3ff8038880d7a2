"""Stored policy layers and agents' policy proposals (§7, §11 0010_policy).

Fields, constraints and Meta only: every write goes through policy.services. The global
layer is not here: it is the file policy.json in the data folder (policy/global_file.py).
"""

from __future__ import annotations

from django.db import models

from tasks.models import Project
from tasks.proposals import PENDING, STATUSES

REASON_MAX = 1000
SCOPE_MAX = 160


class PolicyLayer(models.Model):
    """A project layer (environment empty) or an environment layer: one per scope."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="policy_layers")
    environment = models.ForeignKey(
        "environments.Environment",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="policy_layers",
    )
    body = models.JSONField()
    changed_at = models.DateTimeField()
    changed_by = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["project_id", "environment_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project"],
                condition=models.Q(environment__isnull=True),
                name="policy_layer_one_per_project",
            ),
            models.UniqueConstraint(
                fields=["environment"],
                condition=models.Q(environment__isnull=False),
                name="policy_layer_one_per_environment",
            ),
        ]

    def __str__(self) -> str:
        return f"policy layer {self.project_id}/{self.environment_id or '-'}"


class PolicyProposal(models.Model):
    """An agent's merge patch for one scope; it changes nothing until the owner accepts (the
    statuses and their mechanics: tasks/proposals.py)."""

    scope = models.CharField(max_length=SCOPE_MAX)  # global, <project>, <project>/<environment>
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, null=True, blank=True, related_name="policy_proposals"
    )
    environment = models.ForeignKey(
        "environments.Environment",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="policy_proposals",
    )
    patch = models.JSONField()
    reason = models.CharField(max_length=REASON_MAX)
    proposed_by = models.CharField(max_length=200)
    session = models.ForeignKey(
        "agent_sessions.Session",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="policy_proposals",
    )
    status = models.CharField(max_length=10, choices=[(s, s) for s in STATUSES], default=PENDING)
    created_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=200, blank=True, default="")
    # An accepted global proposal whose policy.json is not written yet: if the server stops
    # before the write, the start reopens it (§7: the proposal goes back to pending).
    file_pending = models.BooleanField(default=False)
    error = models.TextField(blank=True, default="")  # why it was reopened
    result = models.JSONField(null=True, blank=True)  # the scope's layer as accepted

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=STATUSES), name="policy_proposal_status_known"
            ),
        ]

    def __str__(self) -> str:
        return f"policy proposal {self.id} ({self.scope}, {self.status})"
