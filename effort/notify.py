"""The board hears that a task's tokens grew: a live-only `effort.updated` notice.

However fast tokens arrive, a task gets at most one notice every THROTTLE seconds: the
first at once, the rest folded into one sent when the interval is over (so the last count
always shows). The notice is not an event row (the log would fill with them); it has no
id and is never replayed — a page that reconnects reads the figures anyway.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

from core.live import LiveMessage, bus
from tasks.events import LiveNotice
from tasks.models import Task

THROTTLE = 5.0


class Throttle:
    """At most one call of `send(key)` per key per `interval` seconds, the last one kept."""

    def __init__(
        self,
        send: Callable[[object], None],
        interval: float = THROTTLE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._send, self._interval, self._clock = send, interval, clock
        self._last: dict[object, float] = {}
        self._owed: dict[object, threading.Timer] = {}
        self._lock = threading.Lock()

    def __call__(self, key: object) -> None:
        with self._lock:
            if key in self._owed:
                return  # one is owed already: it will carry this one too
            wait = self._last.get(key, -self._interval) + self._interval - self._clock()
            if wait > 0:
                timer = threading.Timer(wait, self._pay, args=(key,))
                timer.daemon = True
                self._owed[key] = timer
                timer.start()
                return
            self._last[key] = self._clock()
        self._send(key)

    def _pay(self, key: object) -> None:
        with self._lock:
            self._owed.pop(key, None)
            self._last[key] = self._clock()
        self._send(key)


def _publish(key: object) -> None:
    slug, task_key = key  # type: ignore[misc]
    data = {"kind": str(LiveNotice.EFFORT_UPDATED), "project": slug, "key": task_key}
    bus.publish(LiveMessage(id=0, kind=data["kind"], project=slug, data=data))


throttle = Throttle(_publish)


def tasks_changed(task_ids: Iterable[int]) -> None:
    """Tell the board the tokens of these tasks grew (throttled per task)."""
    ids = list(task_ids)
    if not ids:
        return
    for slug, key in Task.objects.filter(id__in=ids).values_list("project__slug", "key"):
        throttle((slug, key))
