"""session.stuck and session.forgotten for the signals that became true with time alone:
the minute's sweep (sessions/hooks/sweep.py) finds them, this writes their events in one
transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from sessions.models import Session
from sessions.services._steps import _stuck_event
from tasks.events import EventKind, record_event
from tasks.models import Event, Task


@dataclass(frozen=True)
class Signal:
    """One signal to record: a task's session possibly stuck, or a session forgotten."""

    kind: str  # "stuck" or "forgotten"
    session: str  # the session's name
    reason: str
    task: Task | None = None  # stuck: the task
    forgotten: Session | None = None  # forgotten: the session


def session_signals_record(*, signals: Sequence[Signal], actor: str) -> list[Event]:
    """One event per new signal, in one transaction."""
    events = []
    with transaction.atomic(durable=True):
        for signal in signals:
            if signal.task is not None:
                events.append(_stuck_event(signal.task, signal.session, signal.reason, actor=actor))
            elif signal.forgotten is not None:
                events.append(
                    record_event(
                        EventKind.SESSION_FORGOTTEN,
                        project=signal.forgotten.project,
                        actor=actor,
                        payload={"session": signal.session, "reason": signal.reason},
                    )
                )
    return events
