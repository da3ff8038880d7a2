"""What every service module shares: the result type and the guarded loads."""

from __future__ import annotations

from dataclasses import dataclass

from tasks.models import Project, Task
from tasks.selectors import get_project, get_task


@dataclass(frozen=True)
class Outcome[T]:
    """The result of a service.

    obj: the written (or, for a no-op, the unchanged) object.
    created: a new row was made.
    changed: names of the fields that changed (empty for a no-op).
    warnings: working-rules warnings WITHOUT the "Warning (rules): " prefix.
    hints: whole lines such as "Hint: acme-3 has no plan and no todo yet: …".
    notes: other lines for the answer (tracker mark cleared, nothing changed, …).
    moved: (from, to) when the write moved a task's stage, for "Moved a → b".
    caller_notes: what resolving the calling session had to say (hook_session not linked …).
    """

    obj: T
    created: bool = False
    changed: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    moved: tuple[str, str] | None = None
    caller_notes: tuple[str, ...] = ()


def load_project(slug: str) -> Project:
    return get_project(slug)


def load_task(key: str) -> Task:
    return get_task(key)
