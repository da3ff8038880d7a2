"""A project's stands (§7 Environment, §11 0009_environments).

Fields, constraints and Meta only. The policy app keys its environment layers on this
model; the environment services, access entries and proposals build on it (§7 Access map).
"""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Lower

from policy.catalog import KINDS, LEVELS
from tasks.models import Project

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
