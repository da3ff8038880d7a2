"""Reads of the event log: one event as a line (Activity, events_since, SSE, task_get)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tasks.events import describe
from tasks.models import Event
from tasks.selectors.projects import get_project

EVENTS_MAX = 500


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
    """Events newer than after_id, oldest first, at most `limit` (1 … EVENTS_MAX)."""
    rows = Event.objects.filter(id__gt=max(int(after_id), 0)).select_related("project", "task")
    if project:
        rows = rows.filter(project=get_project(project))
    limit = min(max(int(limit), 1), EVENTS_MAX)
    return [event_line(e) for e in rows.order_by("id")[:limit]]
