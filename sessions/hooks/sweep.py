"""The signals that become true with time alone (possibly stuck, forgotten), pushed when they do.

A session that works 45 minutes without a relaybay write, or that is forgotten (working
with no task, idle for a day), crosses its threshold without any event of its own, so the
board would show it only at its next refresh. The server runs `sweep` once a minute
(relaybay_site/asgi.py): each signal that was not there at the previous sweep records an
event through sessions.services.signals — `session.stuck` (with the long-work reason) or
`session.forgotten` — which the Inbox and Activity refresh on. The first sweep after a
start only takes note of what is already true: those rows were on the page when it
loaded.
"""

from __future__ import annotations

from datetime import datetime

from core import actor as actors
from core import caches
from core.memo import Memo
from sessions.hooks import forgotten, stuck
from sessions.services.signals import Signal, session_signals_record
from tasks.models import Event

SWEEP_SECONDS = 60

# The signals true at the last sweep; the key (None, 0) says a sweep ran in this process.
_seen: Memo[tuple[str | None, int], bool] = Memo(100_000)
_SWEPT = (None, 0)
caches.register(
    "sessions.hooks.sweep._seen",
    key="(signal, session id); (None, 0): a sweep ran",
    bound=_seen.cap,
    invalidation="each sweep keeps only the signals still true",
    reset="`sweep.forget()` (the autouse fixture)",
)


def forget() -> None:
    """Start over as after a restart (tests)."""
    _seen.clear()


def sweep(now: datetime | None = None, *, actor: str = actors.SYSTEM) -> list[Event]:
    """Record an event for each time-based signal that appeared since the last sweep
    (through sessions.services.signals, one transaction)."""
    with _seen.lock:
        current: dict[tuple[str | None, int], Signal] = {}
        for s in stuck.stuck_sessions(now):
            if not s.reason.startswith(stuck.LONG_WORK):
                continue  # a repetition recorded its own event when it happened
            current[("stuck", s.task.pk)] = Signal("stuck", s.session, s.reason, task=s.task)
        for f in forgotten.forgotten_sessions(now):
            signal = Signal("forgotten", f.session.name, f.reason, forgotten=f.session)
            current[("forgotten", f.session.pk)] = signal
        first = _SWEPT not in _seen
        new = [key for key in current if not first and key not in _seen]
        _seen.clear()
        for key in (_SWEPT, *current):
            _seen.set(key, True)
        if not new:
            return []
        return session_signals_record(signals=[current[key] for key in new], actor=actor)
