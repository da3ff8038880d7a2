"""Reads of the event log: one event as a line (Activity, events_since, SSE, task_get)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from core import rows
from tasks import sql
from tasks.events import describe
from tasks.models import Event
from tasks.selectors.projects import get_project

EVENTS_MAX = 500
EVENT_COLUMNS = ("kind", "project", "task", "actor", "payload", "created_at")


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


def log_rows() -> QuerySet[Event]:
    """The log's rows with their task's key joined and their projects read after them (one
    small read by id): with the project joined too, SQLite walked a project's whole log
    through the project_id index for a kind it rarely holds instead of seeking the
    (project, kind, id) one (60–95 ms at a million events, < 1 ms without). A
    list of these costs two queries whatever its length (one when it is empty)."""
    return (
        Event.objects.select_related("task")
        .only(*EVENT_COLUMNS, "task__key", "task__project")
        .prefetch_related("project")
    )


def event_line(e: Event) -> EventLine:
    """An event row as a line; its project and task are read through the instance."""
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


def events_since(after_id: int, project: str | None = None, limit: int = 100) -> list[EventLine]:
    """Events newer than after_id, oldest first, at most `limit` (1 … EVENTS_MAX).

    Written as SQL once: agents poll it, and the queryset (the task joined, the projects
    read after) spent longer compiling and building three kinds of instances than SQLite
    spent reading; tests/test_rows.py holds it equal to log_rows()."""
    params: list[Any] = [max(int(after_id), 0)]
    if project:
        params.append(get_project(project).id)
    params.append(min(max(int(limit), 1), EVENTS_MAX))
    e = rows.columns(Event, "e")
    lines = []
    for row in rows.fetch_all(sql.events_since(bool(project)), params):
        event = e.build(row)
        key, slug = row[e.width], row[e.width + 1]
        lines.append(
            EventLine(
                id=event.id,
                kind=event.kind,
                project_slug=slug,
                task_key=key,
                actor=event.actor,
                created_at=event.created_at,
                text=describe(event.kind, event.payload),
                payload=event.payload,
            )
        )
    return lines


@dataclass(frozen=True)
class LogSize:
    """How long the event log is: Settings → Storage."""

    count: int
    first_at: datetime | None  # the oldest event's time


def log_size() -> LogSize:
    """The event count (SQLite counts the narrowest index: ~6 ms at a million events) and
    the oldest event's time (the first id)."""
    count = Event.objects.count()
    first = Event.objects.order_by("id").values_list("created_at", flat=True).first()
    return LogSize(count=count, first_at=first)
