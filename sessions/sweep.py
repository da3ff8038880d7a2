"""The signals that become true with time alone (issue 19 §3, §4), pushed when they do.

A session that works 45 minutes without a relaybay write, or that is forgotten (working
with no task, idle for a day), crosses its threshold without any event of its own, so the
board would show it only at its next refresh. The server runs `sweep` once a minute
(relaybay_site/asgi.py): each signal that was not there at the previous sweep records an
event — `session.stuck` (with the long-work reason) or `session.forgotten` — which the
Inbox and Activity refresh on. The first sweep after a start only takes note of what is
already true: those rows were on the page when it loaded.
"""

from __future__ import annotations

import threading
from datetime import datetime

from django.db import transaction

from core import actor as actors
from sessions import forgotten, stuck
from tasks.events import EventKind, record_event
from tasks.models import Event

SWEEP_SECONDS = 60

_seen: set[tuple[str, int]] | None = None  # None: no sweep yet in this process
_lock = threading.Lock()


def forget() -> None:
    """Start over as after a restart (tests)."""
    global _seen
    with _lock:
        _seen = None


def sweep(now: datetime | None = None, *, actor: str = actors.SYSTEM) -> list[Event]:
    """Record an event for each time-based signal that appeared since the last sweep."""
    global _seen
    with _lock, transaction.atomic():
        current: dict[tuple[str, int], object] = {}
        for s in stuck.stuck_sessions(now):
            if not s.reason.startswith(stuck.LONG_WORK):
                continue  # a repetition recorded its own event when it happened
            current[("stuck", s.task.pk)] = s
        for f in forgotten.forgotten_sessions(now):
            current[("forgotten", f.session.pk)] = f
        first = _seen is None
        new = [key for key in current if not first and key not in (_seen or set())]
        _seen = set(current)
        events = []
        for key in new:
            signal = current[key]
            if isinstance(signal, stuck.Stuck):
                events.append(
                    record_event(
                        EventKind.SESSION_STUCK,
                        project=signal.task.project,
                        task=signal.task,
                        actor=actor,
                        payload={"session": signal.session, "reason": signal.reason},
                    )
                )
            elif isinstance(signal, forgotten.Forgotten):
                events.append(
                    record_event(
                        EventKind.SESSION_FORGOTTEN,
                        project=signal.session.project,
                        actor=actor,
                        payload={"session": signal.session.name, "reason": signal.reason},
                    )
                )
        return events
