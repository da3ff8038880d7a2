"""Reads of tasks: a task by key (its SQL written once), the tasks another app's rows link
to, a project's task list, task_get's detail and the values a task line shows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import Model

from core.errors import InvalidField, NotFound
from core.rows import (
    columns,
    count_where,
    fetch_all,
    fetch_one,
    fetch_related,
    rows_where,
)
from tasks import extensions, sql
from tasks.models import STAGES, Decision, Event, Project, ProjectRules, Report, Task, TrackerEntry
from tasks.selectors.events import EventLine, event_line
from tasks.selectors.projects import get_project

RECENT_REPORTS = 5
RECENT_EVENTS = 10


# --- lookups ---------------------------------------------------------------------------------


_TASK = columns(Task, "t")
_PROJECT = columns(Project, "p")
_RULES = columns(ProjectRules, "r")


def get_task(key: str) -> Task:
    """The task of a key like acme-shop-12 (with its project and its project's rules row
    cached, as select_related would); NotFound says what to do."""
    wanted = (key or "").strip()
    row = fetch_one(sql.TASK_BY_KEY.text, [wanted.lower()])
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


def linked_tasks(
    link: type[Model], field: str, value: Any, *, unset: str | None = None
) -> list[Task]:
    """The tasks another app's rows link to, by id, each with its project cached:
    `Task.objects.select_related("project").filter(<link>__<field>=value,
    <link>__<unset>__isnull=True).order_by("id")` for a `link` model with a `task` foreign
    key, its SQL written once per shape. For the hot reads of apps tasks cannot
    import: sessions' bound tasks, read on every hook (tests/test_rows.py holds it equal)."""
    return fetch_related(sql.linked_tasks(link, field, unset), [value], _TASK, _PROJECT, "project")


def is_next_step_stale(task: Task) -> bool:
    """A next step written before the task's last stage change is stale (§1)."""
    if not task.next_step or task.next_step_at is None:
        return False
    return task.next_step_at < task.stage_changed_at


# --- task lines ------------------------------------------------------------------------------


class TaskLine(NamedTuple):
    """One task of a list (project_snapshot, task_list) as the plain values of its row: no
    Task is built for a line, since building and converting them was most of a busy
    project's list (193 lines of a 2,000-task project)."""

    id: int
    key: str
    title: str
    stage: str
    size: str
    waiting_on: str
    next_step: str
    next_step_stale: bool  # written before the last stage change (§1)
    tracker_name: str
    tracker_ref: str
    tracker_logged: bool
    plan_status: str
    last_moved: str  # closed_at, else stage_changed_at, as stored: sorts as the moments do
    suffixes: tuple[str, ...] = ()  # from the extensions (" · session x")


def task_lines(rows: list[tuple[Any, ...]]) -> list[TaskLine]:
    """Rows of `sql.TaskLineRow` as lines in number order, with the extensions'
    suffixes read once for the list. The order is put here: asking SQLite for it made it walk
    every task of the project by number instead of the few of the asked stages."""
    lines = [
        TaskLine(*row[1:8], bool(row[8]), row[9], row[10], bool(row[11]), row[12], row[13])
        for row in sorted(rows, key=itemgetter(0))
    ]
    if not lines:
        return lines
    suffixes = extensions.task_line_suffixes(lines)
    return [ln._replace(suffixes=tuple(s)) if (s := suffixes.get(ln.id)) else ln for ln in lines]


# --- a project's tasks -----------------------------------------------------------------------


def snapshot_lines(project: Project, closed_since: datetime) -> list[TaskLine]:
    """A project's open tasks and its done ones closed since `closed_since`, by number."""
    since = connection.ops.adapt_datetimefield_value(closed_since)
    return task_lines(fetch_all(sql.SNAPSHOT_LINES.text, [project.pk, project.pk, since]))


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
    text = (query or "").strip()
    hide_done = not include_done and stage is None
    params: list[Any] = [proj.pk]
    if stage:
        params.append(stage)
    if text:
        params += [f"%{connection.ops.prep_for_like_query(text)}%"] * len(sql.TEXT_COLUMNS)
    list_sql = sql.task_list(bool(stage), bool(text), hide_done)
    done_sql = sql.task_list_done(bool(stage), bool(text)) if hide_done else None
    hidden = fetch_one(done_sql, params)[0] if done_sql else 0  # type: ignore[index]
    return TaskListData(
        project=proj,
        tasks=task_lines(fetch_all(list_sql, params)),
        stage=stage,
        include_done=include_done,
        query=text or None,
        done_hidden=hidden,
    )


# --- one task --------------------------------------------------------------------------------


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
    # Each section one list read with SQL written once (compiling the querysets cost
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
        events=[event_line(e) for e in events],
    )
