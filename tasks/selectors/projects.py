"""Reads of projects: the page frame's list, the projects page, project_list, a project by
slug, its effective working rules and its decisions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Count, F, Q

from core.errors import NotFound
from core.rows import columns, fetch_one
from tasks import sql
from tasks.models import STAGES, Decision, Project, ProjectRules, Task
from tasks.rules import EffectiveRules, effective_rules

DECISION_LIST_MAX = 100


# --- lookups ---------------------------------------------------------------------------------


_PROJECT = columns(Project, "p")
_RULES = columns(ProjectRules, "r")


def get_project(slug: str) -> Project:
    """The project of a slug (case and surrounding spaces forgiven), its rules row cached as
    select_related would (project_rules needs no query of its own); NotFound says what to do."""
    wanted = (slug or "").strip()
    row = fetch_one(sql.PROJECT_BY_SLUG.text, [wanted.lower()])
    if row is None:
        raise NotFound(
            f"Unknown project {wanted or '(empty)'}. Call project_list to see the slugs, "
            "or create it with project_upsert."
        )
    project = _PROJECT.build(row)
    rules = None if row[_PROJECT.width] is None else _RULES.build(row, _PROJECT.width)
    Project.rules.related.set_cached_value(project, rules)  # None: project.rules raises
    if rules is not None:
        ProjectRules.project.field.set_cached_value(rules, project)
    return project


# --- working rules ---------------------------------------------------------------------------


def _override_body(project: Project) -> str | None:
    # select_related("rules") may have filled the cache; a missing row raises DoesNotExist.
    try:
        return project.rules.body
    except ProjectRules.DoesNotExist:
        return None


def project_rules(project: Project | None) -> EffectiveRules:
    """The effective rules: built-in ⊕ settings.RELAYBAY.rules ⊕ the project's override (§6)."""
    cfg = settings.RELAYBAY
    if project is None:
        return effective_rules(cfg.rules, cfg.rules_mode)
    return effective_rules(cfg.rules, cfg.rules_mode, _override_body(project), project=project.slug)


# --- lists (the page frame, the projects page, project_list) ---------------------------------


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


def _stage_counts() -> dict[int, dict[str, int]]:
    counts: dict[int, dict[str, int]] = {}
    for row in Task.objects.values("project_id", "stage").annotate(n=Count("id")).order_by():
        counts.setdefault(row["project_id"], {})[row["stage"]] = row["n"]
    return counts


def projects_overview() -> list[ProjectOverview]:
    """Every project with its task count per stage, in two queries whatever the size."""
    return [
        ProjectOverview(
            p.slug, p.name, p.description, list(p.counts.items()), sum(p.counts.values())
        )
        for p in project_list()
    ]


@dataclass(frozen=True)
class ProjectSummary:
    slug: str
    name: str
    repo_path: str
    description: str
    counts: dict[str, int]  # stage → tasks (done counts every done task)
    open_count: int  # every stage but done
    updated_at: datetime


def project_list() -> list[ProjectSummary]:
    """Every project with its counts, in two queries."""
    counts = _stage_counts()
    result = []
    for p in Project.objects.all():
        per = counts.get(p.id, {})
        result.append(
            ProjectSummary(
                slug=p.slug,
                name=p.name,
                repo_path=p.repo_path,
                description=p.description,
                counts={s: per.get(s, 0) for s in STAGES},
                open_count=sum(n for s, n in per.items() if s != "done"),
                updated_at=p.updated_at,
            )
        )
    return result


# --- decisions -------------------------------------------------------------------------------


# What a decision_list line shows of a decision (tasks/render_md.py decision_list_md).
_LISTED = (
    "id",
    "text",
    "decided_by",
    "created_at",
    "superseded_by",
    "source_kind",
    "source_ref",
    "source_text",
)


def decision_list(
    project: str, *, query: str = "", task: str | None = None, include_superseded: bool = False
) -> tuple[Project, list[tuple[Decision, str]]]:
    """decision_list: the project's decisions, newest first, each with its task's key ("" for
    a project decision); current ones unless asked; `query` keeps those whose text or source
    text holds every word (case-insensitive). The key alone is read of the task: a whole task
    row per decision was a third of the call at a year of data."""
    found = get_project(project)
    rows = (
        Decision.objects.filter(project=found)
        .only(*_LISTED)
        .annotate(task_key=F("task__key"))
        .order_by("-id")
    )
    if not include_superseded:
        rows = rows.filter(superseded_at__isnull=True)
    if task:
        rows = rows.filter(task__key=task.strip().lower())
    for word in query.split():
        rows = rows.filter(Q(text__icontains=word) | Q(source_text__icontains=word))
    return found, [(d, d.task_key or "") for d in rows[:DECISION_LIST_MAX]]
