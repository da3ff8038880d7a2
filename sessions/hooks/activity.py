"""The activity window of a working session (§4 "at most once per 5 s per session (the
latest wins)"): when each session's activity was last written, the latest one held inside
the window, and the flush that writes it when the window ends. In memory: one server.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from core import caches
from core.memo import Memo
from sessions.services import hooks as hook_steps

ACTIVITY_EVERY = 5.0  # seconds: a working session's activity is written at most this often
SESSIONS_MAX = 10_000  # sessions remembered; the least recently written are forgotten


@dataclass(frozen=True)
class PendingActivity:
    """The latest activity of a working session that arrived inside its write window."""

    activity: str
    at: datetime
    cwd: str


@dataclass
class _Window:
    written: float | None = None  # the clock when the activity was last written
    pending: PendingActivity | None = None


class ActivityClock:
    """When each session's activity was last written (in memory: one server process).

    A working session that stays working is written at most once per ACTIVITY_EVERY
    seconds (§4: "the latest wins"). An event inside the window is kept as the session's
    pending activity, replacing any older one, and `flush_pending_activity` writes it when
    the window ends — the hook endpoint schedules that, and the server flushes what is left
    when it stops. A status change is always written at once (and drops what was pending).
    """

    def __init__(self, every: float = ACTIVITY_EVERY, clock: Callable[[], float] = time.monotonic):
        self.every = every
        self.clock = clock
        self._windows: Memo[int, _Window] = Memo(SESSIONS_MAX)

    def due(self, session_id: int) -> bool:
        window = self._windows.get(session_id)
        last = window.written if window is not None else None
        return last is None or self.clock() - last >= self.every

    def written(self, session_id: int) -> None:
        self._windows.set(session_id, _Window(written=self.clock()))

    def hold(self, session_id: int, pending: PendingActivity) -> float:
        """Keep the latest activity of the window; the seconds until the window ends."""
        with self._windows.lock:
            window = self._windows.setdefault(session_id, _Window)
            window.pending = pending
            last = window.written if window.written is not None else self.clock()
        return max(0.0, last + self.every - self.clock())

    def next_due_in(self) -> float | None:
        """Seconds until the first pending activity's window ends; None when none waits."""
        now = self.clock()
        ends = [
            (w.written if w.written is not None else now) + self.every
            for w in self._windows.snapshot().values()
            if w.pending is not None
        ]
        return max(0.0, min(ends) - now) if ends else None

    def take_due(self, *, all_of_them: bool = False) -> dict[int, PendingActivity]:
        """The pending activities whose window has ended (or all, when the server stops)."""
        now = self.clock()
        due: dict[int, PendingActivity] = {}
        with self._windows.lock:
            for sid, w in self._windows.snapshot().items():
                written = w.written if w.written is not None else now
                if w.pending is not None and (all_of_them or now - written >= self.every):
                    due[sid] = w.pending
                    w.pending = None
        return due

    def clear(self) -> None:
        self._windows.clear()


activity_clock = ActivityClock()
caches.register(
    "sessions.hooks.activity.activity_clock._windows",
    key="a session's id",
    bound=SESSIONS_MAX,
    invalidation="the window's end writes what it held; the oldest set first past the bound",
    reset="`activity.activity_clock.clear()` (the autouse fixture)",
)


def flush_pending_activity(*, all_of_them: bool = False) -> float | None:
    """Write each working session's latest activity whose write window has ended (§4 "the
    latest wins"); `all_of_them` when the server stops. Returns the seconds until the next
    pending one is due (None when none waits), for the caller to come back then.

    One transaction per session (sessions.services.hooks.activity_flush), like the hook
    event that would have written it. A session whose status changed meanwhile was written
    at once and holds nothing pending; one that is no longer working keeps its newer state.
    """
    for session_id, pending in activity_clock.take_due(all_of_them=all_of_them).items():
        hook_steps.activity_flush(
            session_id, activity=pending.activity, at=pending.at, cwd=pending.cwd
        )
        activity_clock.written(session_id)
    return activity_clock.next_due_in()
