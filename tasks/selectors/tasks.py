"""Reads of tasks: a task by key (its SQL written once), the tasks another app's rows link
to, a project's task list, task_get's detail and the values a task line shows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

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
from tasks import extensions
from tasks.models import STAGES, Decision, Event, Project, ProjectRules, Report, Task, TrackerEntry
from tasks.selectors.events import EventLine, event_line
from tasks.selectors.projects import get_project

RECENT_REPORTS = 5
RECENT_EVENTS = 10


# --- lookups ---------------------------------------------------------------------------------


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


@cache
def _linked_sql(link: type[Model], field: str, unset: str | None) -> str:
    # `b`, the row a task is linked by: the statement's text is the one sessions wrote for
    # its bindings, which tests find by it.
    meta = link._meta
    where = f'b."{meta.get_field(field).column}" = %s'
    if unset:
        where += f' AND b."{meta.get_field(unset).column}" IS NULL'
    # Names from the models' metadata, the value a parameter: nothing here comes from a caller.
    return (
        f"SELECT {_TASK.select}, {_PROJECT.select} FROM {_TASK.table} "  # noqa: S608
        f'INNER JOIN {_PROJECT.table} ON p."id" = t."project_id" '
        f'INNER JOIN "{meta.db_table}" b ON b."{meta.get_field("task").column}" = t."id" '
        f'WHERE {where} ORDER BY t."id"'
    )


def linked_tasks(
    link: type[Model], field: str, value: Any, *, unset: str | None = None
) -> list[Task]:
    """The tasks another app's rows link to, by id, each with its project cached:
    `Task.objects.select_related("project").filter(<link>__<field>=value,
    <link>__<unset>__isnull=True).order_by("id")` for a `link` model with a `task` foreign
    key, its SQL written once per shape (issue 18). For the hot reads of apps tasks cannot
    import: sessions' bound tasks, read on every hook (tests/test_rows.py holds it equal)."""
    return fetch_related(_linked_sql(link, field, unset), [value], _TASK, _PROJECT, "project")


def is_next_step_stale(task: Task) -> bool:
    """A next step written before the task's last stage change is stale (§1)."""
    if not task.next_step or task.next_step_at is None:
        return False
    return task.next_step_at < task.stage_changed_at


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


# What no task line (nor its extensions' suffixes) reads: left in the database, so a list of
# a busy project's tasks builds narrower rows (issue 33: task_list, project_snapshot).
LINE_DEFERRED = (
    "description",
    "progress",
    "stage_note",
    "document_path",
    "branch",
    "tracker_url",
    "plan_accepted_at",
    "plan_accepted_by",
    "created_at",
    "updated_at",
)


def with_project(tasks: list[Task], project: Project) -> list[Task]:
    """Tasks of one project with that project in hand: no join rebuilds it per row."""
    for task in tasks:
        task.project = project
    return tasks


def task_lines(tasks: list[Task]) -> list[TaskLine]:
    """Each task as a line, with the extensions' suffixes read once for the whole list."""
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


# --- a project's tasks -----------------------------------------------------------------------


_LINE = columns(Task, "t", LINE_DEFERRED)
_TEXT_COLUMNS = ("key", "title", "description", "progress", "next_step")


@cache
def _task_list_sql(stage: bool, text: bool, hide_done: bool) -> tuple[str, str | None]:
    """task_list's statements, written once per shape: its rows, and its hidden done count
    when done tasks are left out. What `Task.objects.defer(*LINE_DEFERRED).filter(…)` with
    `icontains` asked; compiling it cost as much as building the rows (issue 33)."""
    where = 't."project_id" = %s' + (' AND t."stage" = %s' if stage else "")
    if text:  # Django's icontains on SQLite: LIKE with its escape character
        names = (Task._meta.get_field(name).column for name in _TEXT_COLUMNS)
        like = " OR ".join(f"t.\"{c}\" LIKE %s ESCAPE '\\'" for c in names)
        where += f" AND ({like})"
    # Names from the model's metadata, values parameters: nothing here comes from a caller.
    rows = f"SELECT {_LINE.select} FROM {_LINE.table} WHERE {where}"  # noqa: S608
    if not hide_done:
        return f'{rows} ORDER BY t."number"', None
    count = f"SELECT COUNT(*) FROM {_LINE.table} WHERE {where} AND t.\"stage\" = 'done'"  # noqa: S608
    return f'{rows} AND NOT (t."stage" = \'done\') ORDER BY t."number"', count


# project_snapshot's tasks: the open ones and the done ones closed since a cutoff, in number
# order; what `Task.objects.defer(*LINE_DEFERRED).filter(project=…).filter(~Q(stage="done") |
# Q(closed_at__gte=cutoff))` asked, written once (issue 33, as task_list's).
_SNAPSHOT_SQL = (
    f'SELECT {_LINE.select} FROM {_LINE.table} WHERE t."project_id" = %s '  # noqa: S608
    'AND (NOT (t."stage" = \'done\') OR t."closed_at" >= %s) ORDER BY t."number"'
)


def snapshot_tasks(project: Project, closed_since: datetime) -> list[Task]:
    """A project's open tasks and its done ones closed since `closed_since`, by number, with
    the project in hand and the columns no task line reads left out."""
    since = connection.ops.adapt_datetimefield_value(closed_since)
    rows = fetch_all(_SNAPSHOT_SQL, [project.pk, since])
    return with_project([_LINE.build(row) for row in rows], project)


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
        params += [f"%{connection.ops.prep_for_like_query(text)}%"] * len(_TEXT_COLUMNS)
    list_sql, done_sql = _task_list_sql(bool(stage), bool(text), hide_done)
    hidden = fetch_one(done_sql, params)[0] if done_sql else 0  # type: ignore[index]
    tasks = with_project([_LINE.build(row) for row in fetch_all(list_sql, params)], proj)
    return TaskListData(
        project=proj,
        tasks=task_lines(tasks),
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
        events=[event_line(e) for e in events],
    )
