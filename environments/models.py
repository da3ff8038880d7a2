"""A project's stands (§7 Environment, §11 0009_environments).

Fields, constraints and Meta only. The policy app keys its environment layers on this
model; the environment services, access entries and proposals build on it (§7 Access map).
"""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Lower

from policy.catalog import KINDS, LEVELS
from tasks.models import Project
from tasks.proposals import PENDING, STATUSES

NAME_MAX = 80


class Environment(models.Model):
    """One stand of a project: where it is and what agents may do there."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="environments")
    name = models.CharField(max_length=NAME_MAX)
    kind = models.CharField(max_length=8, choices=[(k, k) for k in KINDS])
    base_url = models.CharField(max_length=2000, blank=True, default="")
    # "An agent may sign in and remember the login": never on live (the check below).
    sign_in_allowed = models.BooleanField(default=False)
    login_state_path = models.CharField(max_length=1000, blank=True, default="")
    notes = models.TextField(blank=True, default="")
    # "" = the level comes from the policy; overrides are {capability: level}.
    level = models.CharField(max_length=8, blank=True, default="")
    overrides = models.JSONField(default=dict, blank=True)
    position = models.PositiveIntegerField(default=0)
    changed_at = models.DateTimeField()
    changed_by = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["project_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                "project", Lower("name"), name="environment_name_unique_in_project"
            ),
            models.CheckConstraint(
                condition=models.Q(kind__in=KINDS), name="environment_kind_known"
            ),
            models.CheckConstraint(
                condition=~(models.Q(kind="live") & models.Q(sign_in_allowed=True)),
                name="environment_no_sign_in_on_live",
            ),
            models.CheckConstraint(
                condition=models.Q(level__in=("", *LEVELS)), name="environment_level_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.project_id}/{self.name}"


ACCESS_KINDS = ("ssh", "kubectl", "db", "gitops", "logs", "monitoring", "other")


class EnvironmentAccess(models.Model):
    """One way to reach an environment (ssh, kubectl, db …): references only, never a secret.

    fields: {name: "text"} — or {name: {"value": "…", "test": true}} for a harmless test
    secret where the policy allows them (§7 Test secrets).
    """

    environment = models.ForeignKey(
        Environment, on_delete=models.CASCADE, related_name="access_entries"
    )
    kind = models.CharField(max_length=12, choices=[(k, k) for k in ACCESS_KINDS])
    fields = models.JSONField(default=dict)
    position = models.PositiveIntegerField(default=0)
    changed_at = models.DateTimeField()
    changed_by = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["environment_id", "position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__in=ACCESS_KINDS), name="environment_access_kind_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.environment_id}:{self.kind}"


class EnvironmentProposal(models.Model):
    """An agent's proposed change of a project's stands; nothing changes until accepted
    (the statuses and their mechanics: tasks/proposals.py)."""

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="environment_proposals"
    )
    change = models.JSONField()
    reason = models.CharField(max_length=1000)
    proposed_by = models.CharField(max_length=200)
    session = models.ForeignKey(
        "agent_sessions.Session",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="environment_proposals",
    )
    status = models.CharField(max_length=10, choices=[(s, s) for s in STATUSES], default=PENDING)
    created_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=STATUSES),
                name="environment_proposal_status_known",
            ),
        ]

    def __str__(self) -> str:
        return f"environment proposal {self.id} ({self.status})"
