"""Transcripts are read off the hook's way: a hook event pokes, one thread reads.

The hook door pokes after its answer is sent (sessions/hooks/endpoint.py). The pokes of a
session fold into one; a daemon thread reads one bounded step (1 MB) per session in turn,
a session with more to read going to the back of the line, so a big transcript never
holds up another. While there is a backlog the thread rests twice as long as each step
took, so catching up on a big file takes a third of a core at most and the server's own
requests keep theirs. The thread ends when nothing is left and starts again on the next
poke.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from django.db import close_old_connections, connection

from core import live
from effort import notify
from effort.services import ReadResult, transcript_read

log = logging.getLogger("relaybay.effort")
REST = 2.0  # seconds of rest per second of reading, while a backlog lasts
REST_MAX = 0.25


class Reader:
    """The queue of sessions whose transcripts have news, and the thread that reads them."""

    def __init__(
        self,
        read: Callable[[int], ReadResult] = lambda sid: transcript_read(session_id=sid),
        told: Callable[[set[int]], None] = notify.tasks_changed,
    ) -> None:
        self._read, self._told = read, told
        self._pending: OrderedDict[int, None] = OrderedDict()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.idle = threading.Event()
        self.idle.set()
        self.steps = 0  # steps read, and responses counted: /api/stats shows them
        self.responses = 0

    def poke(self, session_id: int) -> None:
        """The session's transcript may have grown: read it soon."""
        with self._lock:
            self._pending[session_id] = None
            self.idle.clear()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="relaybay-effort")
                self._thread.daemon = True
                self._thread.start()

    def _next(self) -> int | None:
        with self._lock:
            if not self._pending:
                self._thread = None
                self.idle.set()
                return None
            return self._pending.popitem(last=False)[0]

    def _run(self) -> None:
        try:
            while (session_id := self._next()) is not None:
                self._step(session_id)
        finally:
            connection.close()

    def _step(self, session_id: int) -> None:
        close_old_connections()
        began = time.perf_counter()
        try:
            result = self._read(session_id)
        except Exception:
            log.exception("reading the transcript of session %s failed", session_id)
            return
        if result.more:  # a backlog: rest, so the server's requests get the core
            time.sleep(min((time.perf_counter() - began) * REST, REST_MAX))
        self.steps += 1
        self.responses += result.responses
        if result.task_ids:
            self._told(result.task_ids)
        if result.more:
            with self._lock:
                self._pending.setdefault(session_id, None)


reader = Reader()
live.register_gauge("transcript_steps", lambda: reader.steps)
live.register_gauge("transcript_responses", lambda: reader.responses)
