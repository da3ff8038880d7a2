"""Reads for the board and MCP answers: ready-made values, so templates only loop."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from tasks.models import STAGES, Project, Task


@dataclass(frozen=True)
class NavProject:
    slug: str
    name: str


def nav_projects() -> list[NavProject]:
    return [NavProject(p.slug, p.name) for p in Project.objects.only("slug", "name")]


@dataclass(frozen=True)
class ProjectOverview:
    slug: str
    name: str
    description: str
    counts: list[tuple[str, int]]  # (stage, open tasks) in stage order
    total: int


def projects_overview() -> list[ProjectOverview]:
    """Every project with its task count per stage, in two queries whatever the size."""
    counts: dict[int, dict[str, int]] = {}
    for row in Task.objects.values("project_id", "stage").annotate(n=Count("id")):
        counts.setdefault(row["project_id"], {})[row["stage"]] = row["n"]
    result = []
    for p in Project.objects.all():
        per = counts.get(p.id, {})
        result.append(
            ProjectOverview(
                slug=p.slug,
                name=p.name,
                description=p.description,
                counts=[(s, per.get(s, 0)) for s in STAGES],
                total=sum(per.values()),
            )
        )
    return result
