"""Reads for the board and MCP answers: ready-made values, so templates only loop.

Every list here costs a fixed number of queries whatever its length (select_related and
batched extension calls), so the board and project_snapshot stay flat as a project grows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from core.errors import InvalidField, NotFound
from core.rows import columns, count_where, fetch_one, fetch_related, rows_where
from tasks import extensions
from tasks.events import describe
from tasks.models import (
    STAGES,
    Decision,
    Event,
    Project,
    ProjectRules,
    Report,
    Task,
    TrackerEntry,
)
from tasks.rules import EffectiveRules, effective_rules, summary_line

RECENT_REPORTS = 5
RECENT_EVENTS = 10
SNAPSHOT_DECISIONS = 20
EVENTS_MAX = 500


# --- navigation (page frame) -------------------------------------------------------------


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


# --- lookups ---------------------------------------------------------------------------------


def get_project(slug: str) -> Project:
    """The project of a slug (case and surrounding spaces forgiven); NotFound says what to do."""
    wanted = (slug or "").strip()
    # The rules row rides along (a join), so project_rules needs no query of its own.
    project = Project.objects.select_related("rules").filter(slug=wanted.lower()).first()
    if project is None:
        raise NotFound(
            f"Unknown project {wanted or '(empty)'}. Call project_list to see the slugs, "
            "or create it with project_upsert."
        )
    return project


_TASK = columns(Task, "t")
_PROJECT = columns(Project, "p")
_RULES = columns(ProjectRules, "r")
# What Task.objects.select_related("project", "project__rules") would ask, written once:
# compiling that queryset cost more than running it on every MCP call and hook (issue 18).
_TASK_SQL = (
    f"SELECT {_TASK.select}, {_PROJECT.select}, {_RULES.select} FROM {_TASK.table} "  # noqa: S608
    f'INNER JOIN {_PROJECT.table} ON p."id" = t."project_id" '
    f'LEFT OUTER JOIN {_RULES.table} ON r."project_id" = p."id" WHERE t."key" = %s'
)


def get_task(key: str) -> Task:
    """The task of a key like acme-shop-12 (with its project and its project's rules row
    cached, as select_related would); NotFound says what to do."""
    wanted = (key or "").strip()
    row = fetch_one(_TASK_SQL, [wanted.lower()])
    if row is None:
        raise NotFound(f"Unknown task {wanted or '(empty)'}. Call task_list to see the keys.")
    task = _TASK.build(row)
    project = _PROJECT.build(row, _TASK.width)
    rules_at = _TASK.width + _PROJECT.width
    rules = None if row[rules_at] is None else _RULES.build(row, rules_at)
    task.project = project
    Project.rules.related.set_cached_value(project, rules)  # None: project.rules raises
    if rules is not None:
        ProjectRules.project.field.set_cached_value(rules, project)
    return task


def tasks_sql(joins_and_where: str) -> str:
    """The SELECT of tasks with their project (t, p), then the caller's joins, WHERE and
    ORDER BY: for a caller that writes its hot read once at import (issue 18)."""
    return (
        f"SELECT {_TASK.select}, {_PROJECT.select} FROM {_TASK.table} "  # noqa: S608
        f'INNER JOIN {_PROJECT.table} ON p."id" = t."project_id" {joins_and_where}'
    )


def tasks_of(sql: str, params: Sequence[Any]) -> list[Task]:
    """The tasks a `tasks_sql` statement finds, each with its project cached, as
    select_related("project") would."""
    return fetch_related(sql, params, _TASK, _PROJECT, "project")


def is_next_step_stale(task: Task) -> bool:
    """A next step written before the task's last stage change is stale (§1)."""
    if not task.next_step or task.next_step_at is None:
        return False
    return task.next_step_at < task.stage_changed_at


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


# --- task lines ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskLine:
    """One task of a list with the values a line or a card shows."""

    task: Task
    key: str
    title: str
    stage: str
    size: str
    priority: str
    next_step: str
    next_step_stale: bool
    waiting_on: str
    tracker_ref: str
    tracker_logged: bool
    version: int
    stage_changed_at: datetime
    closed_at: datetime | None
    suffixes: tuple[str, ...] = ()  # from the extensions (" · session x")


def _lines(tasks: list[Task]) -> list[TaskLine]:
    suffixes = extensions.task_line_suffixes(tasks) if tasks else {}
    return [
        TaskLine(
            task=t,
            key=t.key,
            title=t.title,
            stage=t.stage,
            size=t.size,
            priority=t.priority,
            next_step=t.next_step,
            next_step_stale=is_next_step_stale(t),
            waiting_on=t.waiting_on,
            tracker_ref=t.tracker_ref,
            tracker_logged=t.tracker_logged,
            version=t.version,
            stage_changed_at=t.stage_changed_at,
            closed_at=t.closed_at,
            suffixes=tuple(suffixes.get(t.id, ())),
        )
        for t in tasks
    ]


# --- projects --------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Snapshot:
    """project_snapshot and the board: open tasks by stage, recent done ones, decisions."""

    project: Project
    rules: EffectiveRules
    rules_line: str  # "Rules <hash>: … (read relaybay://rules/<slug>)"
    stages: list[tuple[str, list[TaskLine]]]  # every stage in order; done holds recent ones
    decisions: list[Decision]  # newest first, at most SNAPSHOT_DECISIONS
    counts: dict[str, int]  # stage → all tasks in it (done: every done task)
    done_hidden: int  # done tasks closed before the done window
    done_window_days: int
    extra_lines: list[str] = field(default_factory=list)  # other apps' lines (stands, §7)


def _done_cutoff() -> datetime:
    return timezone.now() - timedelta(days=settings.RELAYBAY.done_window_days)


def snapshot_data(slug: str) -> Snapshot:
    """Four queries plus one per registered line-suffix extension, whatever the task count."""
    project = get_project(slug)
    rules = project_rules(project)
    cutoff = _done_cutoff()
    tasks = list(
        Task.objects.select_related("project")
        .filter(project=project)
        .filter(~Q(stage="done") | Q(closed_at__gte=cutoff))
        .order_by("number")
    )
    counts = dict.fromkeys(STAGES, 0)
    for row in Task.objects.filter(project=project).values("stage").annotate(n=Count("id")):
        counts[row["stage"]] = row["n"]
    decisions = list(
        Decision.objects.filter(project=project, superseded_at__isnull=True)  # current (§8)
        .select_related("task")
        .order_by("-id")[:SNAPSHOT_DECISIONS]
    )
    lines = _lines(tasks)
    by_stage: dict[str, list[TaskLine]] = {s: [] for s in STAGES}
    for line in lines:
        by_stage[line.stage].append(line)
    # Recent done first: the one closed last is what the reader looks for.
    by_stage["done"].sort(key=lambda ln: ln.closed_at or ln.stage_changed_at, reverse=True)
    return Snapshot(
        project=project,
        rules=rules,
        rules_line=summary_line(rules, project.slug),
        stages=[(s, by_stage[s]) for s in STAGES],
        decisions=decisions,
        counts=counts,
        done_hidden=counts["done"] - len(by_stage["done"]),
        done_window_days=settings.RELAYBAY.done_window_days,
        extra_lines=extensions.project_lines(project),
    )


@dataclass(frozen=True)
class TaskListData:
    project: Project
    tasks: list[TaskLine]
    stage: str | None
    include_done: bool
    query: str | None
    done_hidden: int  # done tasks left out (include_done False and no stage filter)


def task_list_data(
    project: str,
    stage: str | None = None,
    include_done: bool = False,
    query: str | None = None,
) -> TaskListData:
    """The tasks of a project, optionally of one stage and/or matching a text.

    Done tasks are left out unless include_done or stage="done". query matches the key,
    title, description, progress or next step (case-insensitive).
    """
    proj = get_project(project)
    stage = (stage or "").strip().lower() or None
    if stage is not None and stage not in STAGES:
        raise InvalidField("stage", f"Unknown stage '{stage}'. Stages: {', '.join(STAGES)}.")
    rows = Task.objects.select_related("project").filter(project=proj)
    if stage:
        rows = rows.filter(stage=stage)
    text = (query or "").strip()
    if text:
        rows = rows.filter(
            Q(key__icontains=text)
            | Q(title__icontains=text)
            | Q(description__icontains=text)
            | Q(progress__icontains=text)
            | Q(next_step__icontains=text)
        )
    hidden = 0
    if not include_done and stage is None:
        hidden = rows.filter(stage="done").count()
        rows = rows.exclude(stage="done")
    tasks = list(rows.order_by("number"))
    return TaskListData(
        project=proj,
        tasks=_lines(tasks),
        stage=stage,
        include_done=include_done,
        query=text or None,
        done_hidden=hidden,
    )


# --- one task --------------------------------------------------------------------------------


@dataclass(frozen=True)
class EventLine:
    """One event as the Activity feed, events_since and SSE show it."""

    id: int
    kind: str
    project_slug: str | None
    task_key: str | None
    actor: str
    created_at: datetime
    text: str  # tasks.events.describe(kind, payload)
    payload: dict[str, Any] = field(default_factory=dict)


def _event_line(e: Event) -> EventLine:
    return EventLine(
        id=e.id,
        kind=e.kind,
        project_slug=e.project.slug if e.project else None,
        task_key=e.task.key if e.task else None,
        actor=e.actor,
        created_at=e.created_at,
        text=describe(e.kind, e.payload),
        payload=e.payload,
    )


@dataclass(frozen=True)
class TaskDetail:
    task: Task  # with .project
    next_step_stale: bool
    reports: list[Report]  # the latest RECENT_REPORTS, oldest first
    report_count: int
    decisions: list[Decision]  # of this task, oldest first
    tracker_entries: list[TrackerEntry]  # every issue key the task has had, oldest first
    events: list[EventLine]  # the latest RECENT_EVENTS, oldest first


def task_detail(key: str) -> TaskDetail:
    """task_get: the task, latest reports, decisions, tracker history and recent events."""
    task = get_task(key)
    # Each section one list read with SQL written once (issue 18: compiling the querysets cost
    # more than running them; tests/test_rows.py holds them equal).
    reports = rows_where(Report, "task", task.pk, "-id", RECENT_REPORTS)
    reports.reverse()
    count = count_where(Report, "task", task.pk)
    decisions = rows_where(Decision, "task", task.pk, "id")
    entries = rows_where(TrackerEntry, "task", task.pk, "id")
    events = rows_where(Event, "task", task.pk, "-id", RECENT_EVENTS)
    events.reverse()
    for e in events:  # the task and its project are in hand: no join rebuilds them per row
        e.task = task
        if e.project_id == task.project_id:
            e.project = task.project
    return TaskDetail(
        task=task,
        next_step_stale=is_next_step_stale(task),
        reports=reports,
        report_count=count,
        decisions=decisions,
        tracker_entries=entries,
        events=[_event_line(e) for e in events],
    )


# --- events ----------------------------------------------------------------------------------


def events_since(after_id: int, project: str | None = None, limit: int = 100) -> list[EventLine]:
    """Events newer than after_id, oldest first, at most `limit` (1 … EVENTS_MAX)."""
    rows = Event.objects.filter(id__gt=max(int(after_id), 0)).select_related("project", "task")
    if project:
        rows = rows.filter(project=get_project(project))
    limit = min(max(int(limit), 1), EVENTS_MAX)
    return [_event_line(e) for e in rows.order_by("id")[:limit]]


DECISION_LIST_MAX = 100


def decision_list(
    project: str, *, query: str = "", task: str | None = None, include_superseded: bool = False
) -> tuple[Project, list[Decision]]:
    """decision_list: the project's decisions, newest first; current ones unless asked;
    `query` keeps those whose text or source text holds every word (case-insensitive)."""
    found = get_project(project)
    rows = Decision.objects.filter(project=found).select_related("task").order_by("-id")
    if not include_superseded:
        rows = rows.filter(superseded_at__isnull=True)
    if task:
        rows = rows.filter(task__key=task.strip().lower())
    for word in query.split():
        rows = rows.filter(Q(text__icontains=word) | Q(source_text__icontains=word))
    return found, list(rows[:DECISION_LIST_MAX])
