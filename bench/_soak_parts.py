"""The parts of bench/soak.py that do not depend on what it sends: the recorder of
latencies and failures, the paced schedule, the long-lived clients (SSE streams and held
wake-up waits, on one event loop) and the server as /proc sees it.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.support.server import RelaybayServer

# --- what the clients report ------------------------------------------------------------------


class Recorder:
    """Latencies, errors and 5xx per endpoint, per period and in total (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.period: dict[str, list[float]] = defaultdict(list)
        self.total: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.period_errors: dict[str, int] = defaultdict(int)
        self.server_errors: dict[str, int] = defaultdict(int)
        self.period_server_errors: dict[str, int] = defaultdict(int)
        self.samples_of_errors: list[str] = []

    def ok(self, endpoint: str, seconds: float) -> None:
        with self._lock:
            self.period[endpoint].append(seconds)
            self.total[endpoint].append(seconds)

    def error(self, endpoint: str, what: str, status: int = 0) -> None:
        with self._lock:
            self.errors[endpoint] += 1
            self.period_errors[endpoint] += 1
            if status >= 500:
                self.server_errors[endpoint] += 1
                self.period_server_errors[endpoint] += 1
            if len(self.samples_of_errors) < 20:
                self.samples_of_errors.append(f"{endpoint}: {what}"[:300])

    def status(self, endpoint: str, seconds: float, status: int, expected: tuple[int, ...]) -> None:
        if status in expected:
            self.ok(endpoint, seconds)
        else:
            self.error(endpoint, f"answered {status}", status)

    def take_period(self) -> tuple[dict[str, list[float]], dict[str, int], dict[str, int]]:
        with self._lock:
            taken = (dict(self.period), dict(self.period_errors), dict(self.period_server_errors))
            self.period = defaultdict(list)
            self.period_errors = defaultdict(int)
            self.period_server_errors = defaultdict(int)
        return taken


def paced(stop: threading.Event, interval: float, offset: float) -> Iterator[None]:
    """Yield at start + offset + k × interval until `stop` (a schedule, not a sleep after)."""
    due = time.monotonic() + offset
    while not stop.is_set():
        delay = due - time.monotonic()
        if delay > 0 and stop.wait(delay):
            return
        due = max(due + interval, time.monotonic() - interval)  # never a burst to catch up
        yield


# --- long-lived requests: SSE streams and held wake-up waits ---------------------------------


@dataclass
class LongLived:
    """Counters of the streams and waits, read by the report (one loop writes them)."""

    sse_events: list[int] = field(default_factory=list)
    sse_reconnects: int = 0
    waits_answered: dict[int, int] = field(default_factory=lambda: defaultdict(int))


async def sse_client(
    server: RelaybayServer, rec: Recorder, stop: asyncio.Event, n: int, counts: LongLived
) -> None:
    last_id = ""
    while not stop.is_set():
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        resume = f"Last-Event-ID: {last_id}\r\n" if last_id else ""
        writer.write(
            f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Authorization: Bearer {server.token}\r\n{resume}\r\n".encode()
        )
        try:
            status_line = await reader.readline()
            status = int(status_line.split()[1]) if status_line.count(b" ") >= 2 else 0
            if status != 200:
                rec.error("sse /events", f"answered {status_line!r}", status)
            else:
                while line := await reader.readline():
                    if line.startswith(b"id: "):
                        last_id = line[4:].strip().decode()
                        counts.sse_events[n] += 1
                if not stop.is_set():
                    rec.error("sse /events", "the server ended a stream")
        except (OSError, ValueError) as exc:
            if not stop.is_set():
                rec.error("sse /events", repr(exc))
        finally:
            writer.close()
        if not stop.is_set():
            counts.sse_reconnects += 1
            await asyncio.sleep(1)


async def wait_client(
    server: RelaybayServer, rec: Recorder, stop: asyncio.Event, body: str, counts: LongLived
) -> None:
    while not stop.is_set():
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            f"POST /hooks/claude-code/wait HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Authorization: Bearer {server.token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
        )
        try:
            status_line = await reader.readline()
        except OSError as exc:
            status_line = b""
            if not stop.is_set():
                rec.error("wake wait", repr(exc))
        finally:
            writer.close()
        if stop.is_set():
            return
        status = int(status_line.split()[1]) if status_line.count(b" ") >= 2 else 0
        counts.waits_answered[status] += 1
        if status not in (200, 204):
            rec.error("wake wait", f"answered {status_line!r}", status)
        await asyncio.sleep(1)


async def hold_long_lived(
    server: RelaybayServer,
    rec: Recorder,
    stop: threading.Event,
    streams: int,
    wait_bodies: list[str],
    counts: LongLived,
) -> None:
    """`streams` SSE clients and one held wait per body until `stop`."""
    done = asyncio.Event()
    counts.sse_events = [0] * streams
    tasks = [asyncio.create_task(sse_client(server, rec, done, n, counts)) for n in range(streams)]
    tasks += [asyncio.create_task(wait_client(server, rec, done, b, counts)) for b in wait_bodies]
    while not stop.is_set():
        await asyncio.sleep(0.2)
    done.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def run_loop_thread(coro_factory: Any) -> threading.Thread:
    thread = threading.Thread(target=lambda: asyncio.run(coro_factory()), daemon=True)
    thread.start()
    return thread


# --- the server as /proc sees it ------------------------------------------------------------


@dataclass
class ProcSample:
    at: float
    rss_mib: float
    fds: int
    threads: int
    cpu: float  # user + system seconds so far


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_sample(pid: int, started: float) -> ProcSample:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss_kib = int(fields["VmRSS"].split()[0])
    return ProcSample(
        at=time.monotonic() - started,
        rss_mib=rss_kib / 1024,
        fds=len(os.listdir(f"/proc/{pid}/fd")),
        threads=int(fields["Threads"]),
        cpu=cpu_seconds(pid),
    )


def slope_per_minute(samples: list[ProcSample]) -> float:
    """Least-squares slope of RSS in MiB per minute (0 with fewer than two samples)."""
    if len(samples) < 2:
        return 0.0
    xs, ys = [s.at / 60 for s in samples], [s.rss_mib for s in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0
