"""The activity window of a working session (§4 "at most once per 5 s per session (the
latest wins)"): when each session's activity was last written, the latest one held inside
the window, and the flush that writes it when the window ends. In memory: one server.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from sessions.models import WORKING, Session

ACTIVITY_EVERY = 5.0  # seconds: a working session's activity is written at most this often


@dataclass(frozen=True)
class PendingActivity:
    """The latest activity of a working session that arrived inside its write window."""

    activity: str
    at: datetime
    cwd: str


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
        self._written: dict[int, float] = {}
        self._pending: dict[int, PendingActivity] = {}
        self._lock = threading.Lock()

    def due(self, session_id: int) -> bool:
        with self._lock:
            last = self._written.get(session_id)
        return last is None or self.clock() - last >= self.every

    def written(self, session_id: int) -> None:
        now = self.clock()
        with self._lock:
            if len(self._written) > 10_000:  # forget sessions quiet for a whole window
                self._written = {k: v for k, v in self._written.items() if now - v < self.every}
            self._written[session_id] = now
            self._pending.pop(session_id, None)

    def hold(self, session_id: int, pending: PendingActivity) -> float:
        """Keep the latest activity of the window; the seconds until the window ends."""
        with self._lock:
            self._pending[session_id] = pending
            last = self._written.get(session_id, self.clock())
        return max(0.0, last + self.every - self.clock())

    def next_due_in(self) -> float | None:
        """Seconds until the first pending activity's window ends; None when none waits."""
        now = self.clock()
        with self._lock:
            ends = [self._written.get(sid, now) + self.every for sid in self._pending]
        return max(0.0, min(ends) - now) if ends else None

    def take_due(self, *, all_of_them: bool = False) -> dict[int, PendingActivity]:
        """The pending activities whose window has ended (or all, when the server stops)."""
        now = self.clock()
        with self._lock:
            due = {
                sid: p
                for sid, p in self._pending.items()
                if all_of_them or now - self._written.get(sid, now) >= self.every
            }
            for sid in due:
                del self._pending[sid]
        return due

    def clear(self) -> None:
        with self._lock:
            self._written.clear()
            self._pending.clear()


activity_clock = ActivityClock()


def flush_pending_activity(*, all_of_them: bool = False) -> float | None:
    """Write each working session's latest activity whose write window has ended (§4 "the
    latest wins"); `all_of_them` when the server stops. Returns the seconds until the next
    pending one is due (None when none waits), for the caller to come back then.

    One transaction per session, like the hook event that would have written it. A session
    whose status changed meanwhile was written at once and holds nothing pending; one that
    is no longer working keeps its newer state.
    """
    for session_id, pending in activity_clock.take_due(all_of_them=all_of_them).items():
        with transaction.atomic():
            session = Session.objects.filter(pk=session_id, hook_status=WORKING).first()
            if session is None or (session.activity_at and session.activity_at > pending.at):
                continue
            session.activity = pending.activity
            session.activity_at = pending.at
            fields = ["activity", "activity_at"]
            if pending.cwd and pending.cwd != session.cwd:
                session.cwd = pending.cwd
                fields.append("cwd")
            session.save(update_fields=fields)
        activity_clock.written(session_id)
    return activity_clock.next_due_in()
