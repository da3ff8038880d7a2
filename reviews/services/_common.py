"""What the reviews services share. Private: runs inside the calling service's transaction."""

from __future__ import annotations

from typing import Any

from tasks.events import EventKind, record_event
from tasks.models import Task


def event(kind: EventKind, task: Task, actor: str, payload: dict[str, Any]) -> None:
    """Append one event of `task` to the log, in the caller's transaction."""
    record_event(kind, project=task.project, task=task, actor=actor, payload=payload)
