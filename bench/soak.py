"""Mixed soak: every kind of client at once for minutes, watching the server (issue 18).

One real `relaybay serve` (throwaway data folder) carries, all at the same time:
- 20 simulated Claude Code sessions, each on a keep-alive connection, posting the captured
  hook bodies (tests/fixtures/claude-code-2.1.332/hooks) in the order a turn sends them:
  UserPromptSubmit, PreToolUse / PostToolUse (Bash, an MCP tool, TaskCreate, TaskUpdate),
  Stop. Each session is exactly linked and bound to a task, as in bench/hooks.py;
- 8 MCP clients (the official client) writing and reading their own tasks: task_update,
  task_get, report_add, task_list, task_set_stage, now and then a task_create;
- 50 SSE clients on /events, reconnecting with Last-Event-ID if a stream ends;
- 200 held wake-up waits (POST /hooks/claude-code/wait), re-opened if one is answered;
- one board reader fetching the board page and its columns fragment (Bearer sign-in,
  as bench/board_render.py does);
- a floor: GET /healthz twice a second on a connection of its own, so every row's p50 is
  also printed as a ratio to the floor under the same load.
Every request is paced (a schedule per client, so a slow answer does not lower the offered
load). Each period (a minute by default) prints per endpoint: requests, rate, p50, p99,
errors and 5xx; and the server's RSS, open file descriptors and threads from /proc/<pid>.
At the end every client closes and the server's descriptors must come back to the
baseline measured before the load. Prints figures, asserts nothing; `--json FILE` also
writes the summary (tests/integration/test_soak_smoke.py reads it).

Targets (docs/architecture.md §10): RSS ≤ 150 MiB and flat after the first minute,
descriptors back to baseline, 0 errors, 0 5xx.
Run: .venv/bin/python bench/soak.py [--minutes 10 | --seconds N] [--period S] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import statistics
import sys
import threading
import time
import uuid
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import get_json, percentile, private_server, table

from tests.support.claude_code import CLAUDE_CODE
from tests.support.mcp_client import mcp_client, text_of
from tests.support.server import RelaybayServer

SLUG = "soak"
SESSIONS = 20
MCP_CLIENTS = 8
SSE_CLIENTS = 50
WAITS = 200
HOOK_INTERVAL = 1.0  # seconds between two hook events of one session
MCP_INTERVAL = 0.5  # seconds between two tool calls of one client
BOARD_INTERVAL = 1.0
FLOOR_INTERVAL = 0.5  # GET /healthz beside the load: the floor the other rows compare with
FLOOR = "floor GET /healthz"
FD_MARGIN = 5  # descriptors above the baseline still counted as "back"
FIXTURES = CLAUDE_CODE / "hooks"
TURN = (
    "UserPromptSubmit.print",
    "PreToolUse.Bash",
    "PostToolUse.Bash",
    "PreToolUse.mcp",
    "PostToolUse.mcp.unstructured",
    "PostToolUse.TaskCreate",
    "PostToolUse.TaskUpdate",
    "PreToolUse.Bash",
    "PostToolUse.Bash",
    "Stop.first",
)


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())


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


def paced(stop: threading.Event, interval: float, offset: float) -> Any:
    """Yield at start + offset + k × interval until `stop` (a schedule, not a sleep after)."""
    due = time.monotonic() + offset
    while not stop.is_set():
        delay = due - time.monotonic()
        if delay > 0 and stop.wait(delay):
            return
        due = max(due + interval, time.monotonic() - interval)  # never a burst to catch up
        yield


# --- set-up through the real MCP client -------------------------------------------------------


async def set_up(server: RelaybayServer) -> tuple[list[str], list[str], list[str]]:
    """The project; a bound task and an exactly linked Claude Code id per hook session; a
    linked id per waiter; a task per MCP client. Returns (hook ids, waiter ids, MCP keys)."""
    async with mcp_client(server.base_url, server.token) as client:

        async def ok(tool: str, **args: object) -> str:
            result = await client.call_tool(tool, args)
            if result.is_error:
                raise RuntimeError(f"{tool}: {text_of(result)}")
            return text_of(result)

        await ok("project_upsert", slug=SLUG, name="Soak")
        hook_ids, wait_ids, keys = [], [], []
        for n in range(SESSIONS):
            name, cc_id = f"soak-agent-{n}", str(uuid.uuid4())
            key = (await ok("task_create", project=SLUG, title=f"Work of {name}")).split()[1]
            await ok("task_bind_session", task=key, session=name)
            await ok("project_upsert", slug=SLUG, session=name, hook_session=cc_id)
            hook_ids.append(cc_id)
        for n in range(WAITS):
            cc_id = str(uuid.uuid4())
            await ok("project_upsert", slug=SLUG, session=f"soak-waiter-{n}", hook_session=cc_id)
            wait_ids.append(cc_id)
        for n in range(MCP_CLIENTS):
            text = await ok(
                "task_create", project=SLUG, title=f"MCP client {n}", session=f"mcp-{n}"
            )
            keys.append(text.split()[1])
    return hook_ids, wait_ids, keys


# --- HTTP clients in threads: hook sessions and the board reader -----------------------------


def request(
    conn: http.client.HTTPConnection, method: str, path: str, token: str, body: bytes | None
) -> int:
    headers = {"Authorization": f"Bearer {token}"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    return response.status


def http_loop(
    server: RelaybayServer,
    rec: Recorder,
    stop: threading.Event,
    interval: float,
    offset: float,
    calls: list[tuple[str, str, str, bytes | None, tuple[int, ...]]],
) -> None:
    """Send `calls` (endpoint, method, path, body, expected statuses) in a loop, paced, on
    one keep-alive connection; a broken connection is an error and is opened again."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    n = 0
    for _ in paced(stop, interval, offset):
        endpoint, method, path, body, expected = calls[n % len(calls)]
        n += 1
        began = time.perf_counter()
        try:
            status = request(conn, method, path, server.token, body)
        except (OSError, http.client.HTTPException) as exc:
            rec.error(endpoint, repr(exc))
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            continue
        rec.status(endpoint, time.perf_counter() - began, status, expected)
    conn.close()


def hook_calls(cc_id: str) -> list[tuple[str, str, str, bytes | None, tuple[int, ...]]]:
    calls = []
    for name in TURN:
        body = {**fixture(name), "session_id": cc_id}
        endpoint = f"hook {body['hook_event_name']}"
        calls.append(
            (endpoint, "POST", "/hooks/claude-code", json.dumps(body).encode(), (200, 204))
        )
    return calls


def floor_calls() -> list[tuple[str, str, str, bytes | None, tuple[int, ...]]]:
    return [(FLOOR, "GET", "/healthz", None, (200,))]


def board_calls() -> list[tuple[str, str, str, bytes | None, tuple[int, ...]]]:
    return [
        ("board page", "GET", f"/p/{SLUG}", None, (200,)),
        ("board columns", "GET", f"/p/{SLUG}/board/columns", None, (200,)),
    ]


def session_start(server: RelaybayServer, cc_id: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    body = {**fixture("SessionStart.startup.print"), "session_id": cc_id}
    request(conn, "POST", "/hooks/claude-code", server.token, json.dumps(body).encode())
    conn.close()


# --- MCP clients on an event loop of their own ------------------------------------------------


async def mcp_worker(
    server: RelaybayServer, rec: Recorder, stop: threading.Event, n: int, key: str, offset: float
) -> None:
    """One MCP client working on its own task; a failed call is an error, never fatal."""
    stages = ("dev", "review", "test", "plan")
    await asyncio.sleep(offset)
    async with mcp_client(server.base_url, server.token) as client:
        due, i = time.monotonic(), 0
        while not stop.is_set():
            i += 1
            step = i % 10
            if i % 100 == 0:
                tool, args = "task_create", {"project": SLUG, "title": f"c{n} task {i}"}
            elif step in (0, 1, 2, 3):
                tool, args = "task_update", {"task": key, "progress": f"c{n} write {i}"}
            elif step in (4, 5):
                tool, args = "task_get", {"task": key}
            elif step == 6:
                tool, args = "report_add", {"task": key, "body": f"changed · S · soak {n}/{i}"}
            elif step == 7:
                tool, args = "task_list", {"project": SLUG}
            elif step == 8:
                stage = stages[(i // 10) % len(stages)]
                tool, args = (
                    "task_set_stage",
                    {"task": key, "stage": stage, "next_step": "go on", "waiting_on": "agent"},
                )
            else:
                tool, args = "events_since", {"project": SLUG, "limit": 20}
            if tool not in ("task_get", "task_list", "events_since"):
                args["session"] = f"mcp-{n}"
            began = time.perf_counter()
            try:
                result = await client.call_tool(tool, args)
            except Exception as exc:  # the soak counts every failure; it never stops on one
                rec.error(f"mcp {tool}", repr(exc))
            else:
                if result.is_error:
                    rec.error(f"mcp {tool}", text_of(result))
                else:
                    rec.ok(f"mcp {tool}", time.perf_counter() - began)
            due = max(due + MCP_INTERVAL, time.monotonic() - MCP_INTERVAL)
            await asyncio.sleep(max(0.0, due - time.monotonic()))


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
    server: RelaybayServer, rec: Recorder, stop: asyncio.Event, cc_id: str, counts: LongLived
) -> None:
    body = json.dumps({**fixture("Stop.first"), "session_id": cc_id})
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
    wait_ids: list[str],
    counts: LongLived,
) -> None:
    done = asyncio.Event()
    counts.sse_events = [0] * SSE_CLIENTS
    tasks = [
        asyncio.create_task(sse_client(server, rec, done, n, counts)) for n in range(SSE_CLIENTS)
    ]
    tasks += [asyncio.create_task(wait_client(server, rec, done, i, counts)) for i in wait_ids]
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


# --- the run ----------------------------------------------------------------------------------


@dataclass
class Summary:
    """What a soak run measured; written as JSON with --json."""

    seconds: float
    load_average: list[float]
    endpoints: dict[str, dict[str, float]]
    errors: int
    server_errors: int
    error_samples: list[str]
    rss_mib: list[tuple[float, float]]
    rss_slope_after_first_minute: float
    fds_baseline: int
    fds_loaded_max: int
    fds_after_close: int
    sse_events_min: int
    sse_reconnects: int
    waits_held: int
    waits_answered: dict[str, int]
    tracebacks_in_log: int
    bench_cpu_percent: float
    server_cpu_percent: float


def endpoint_rows(
    samples: dict[str, list[float]], errors: dict[str, int], fivexx: dict[str, int], secs: float
) -> list[tuple[str, ...]]:
    rows = []
    floor = samples.get(FLOOR)
    floor_p50 = statistics.median(floor) if floor else 0.0
    for name in sorted(set(samples) | set(errors)):
        got = samples.get(name, [])
        p50 = statistics.median(got) if got else 0.0
        rows.append(
            (
                name,
                str(len(got)),
                f"{len(got) / secs:6.1f}",
                f"{p50 * 1000:7.1f}" if got else "-",
                f"{percentile(got, 99) * 1000:7.1f}" if got else "-",
                f"{p50 / floor_p50:5.1f}x" if got and floor_p50 else "-",
                str(errors.get(name, 0)),
                str(fivexx.get(name, 0)),
            )
        )
    return rows


HEADER = ("endpoint", "n", "per s", "p50 ms", "p99 ms", "p50/floor", "errors", "5xx")


def report_period(
    server: RelaybayServer, rec: Recorder, previous: ProcSample, sample: ProcSample
) -> None:
    samples, errors, fivexx = rec.take_period()
    try:
        stats = get_json(server, "/api/stats")
    except (OSError, ValueError) as exc:
        stats = {"error": repr(exc)}
    busy = (sample.cpu - previous.cpu) / max(0.001, sample.at - previous.at) * 100
    table(
        f"[{sample.at:6.0f} s] server: RSS {sample.rss_mib:.1f} MiB, {sample.fds} fds, "
        f"{sample.threads} threads, CPU {busy:.0f}% of one core; /api/stats {stats}; "
        f"load average {os.getloadavg()[0]:.2f}",
        HEADER,
        endpoint_rows(samples, errors, fivexx, sample.at - previous.at),
    )
    sys.stdout.flush()


def run(seconds: float, period: float) -> Summary:
    """The whole soak against a private server; prints as it goes and returns the figures."""
    with private_server() as server:
        pid = server.proc.pid  # type: ignore[union-attr]
        hook_ids, wait_ids, keys = asyncio.run(set_up(server))
        for cc_id in hook_ids:  # each session has started and is working
            session_start(server, cc_id)
        time.sleep(1)
        baseline = proc_sample(pid, time.monotonic())
        print(
            f"soak: {SESSIONS} hook sessions (one event / {HOOK_INTERVAL} s), {MCP_CLIENTS} MCP "
            f"clients (one call / {MCP_INTERVAL} s), {SSE_CLIENTS} SSE, {WAITS} wake waits, a "
            f"board reader (one page / {BOARD_INTERVAL} s) for {seconds:.0f} s. Baseline: RSS "
            f"{baseline.rss_mib:.1f} MiB, {baseline.fds} fds, {baseline.threads} threads."
        )
        rec, stop, counts = Recorder(), threading.Event(), LongLived()
        long_lived = run_loop_thread(lambda: hold_long_lived(server, rec, stop, wait_ids, counts))
        deadline = time.monotonic() + 20
        while (held := get_json(server, "/api/stats").get("waits", 0)) < WAITS:
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {held} of {WAITS} wake waits are held")
            time.sleep(0.1)
        started = time.monotonic()
        threads = [
            threading.Thread(
                target=http_loop,
                args=(server, rec, stop, HOOK_INTERVAL, n * HOOK_INTERVAL / SESSIONS, calls),
            )
            for n, calls in enumerate(hook_calls(cc_id) for cc_id in hook_ids)
        ]
        threads.append(
            threading.Thread(
                target=http_loop, args=(server, rec, stop, BOARD_INTERVAL, 0.0, board_calls())
            )
        )
        threads.append(
            threading.Thread(
                target=http_loop, args=(server, rec, stop, FLOOR_INTERVAL, 0.1, floor_calls())
            )
        )

        async def mcp_all() -> None:
            await asyncio.gather(
                *(
                    mcp_worker(server, rec, stop, n, key, n * MCP_INTERVAL / MCP_CLIENTS)
                    for n, key in enumerate(keys)
                )
            )

        mcp_thread = run_loop_thread(mcp_all)
        for thread in threads:
            thread.start()
        first = proc_sample(pid, started)
        samples, reports, waits_held = [first], [first], WAITS
        next_report, cpu = started + period, time.process_time()
        while (now := time.monotonic()) < started + seconds:
            samples.append(proc_sample(pid, started))
            if now >= next_report:
                report_period(server, rec, reports[-1], samples[-1])
                reports.append(samples[-1])
                waits_held = min(waits_held, get_json(server, "/api/stats").get("waits", 0))
                next_report += period
            time.sleep(min(5.0, max(0.1, started + seconds - now)))
        samples.append(proc_sample(pid, started))
        report_period(server, rec, reports[-1], samples[-1])
        reports.append(samples[-1])
        stop.set()
        elapsed, cpu = time.monotonic() - started, time.process_time() - cpu
        for thread in [*threads, mcp_thread, long_lived]:
            thread.join(30)
        after = proc_sample(pid, started)
        deadline = time.monotonic() + 20
        while after.fds > baseline.fds + FD_MARGIN and time.monotonic() < deadline:
            time.sleep(0.5)
            after = proc_sample(pid, started)
        log = server.log()
    later = [s for s in samples if s.at >= 60] or samples
    summary = Summary(
        seconds=round(elapsed, 1),
        load_average=[round(x, 2) for x in os.getloadavg()],
        endpoints={
            name: {
                "n": len(got),
                "per_s": round(len(got) / elapsed, 2),
                "p50_ms": round(statistics.median(got) * 1000, 2),
                "p99_ms": round(percentile(got, 99) * 1000, 2),
            }
            for name, got in rec.total.items()
            if got
        },
        errors=sum(rec.errors.values()),
        server_errors=sum(rec.server_errors.values()),
        error_samples=rec.samples_of_errors,
        rss_mib=[(round(s.at), round(s.rss_mib, 1)) for s in reports[1:]],
        rss_slope_after_first_minute=round(slope_per_minute(later), 2),
        fds_baseline=baseline.fds,
        fds_loaded_max=max(s.fds for s in samples),
        fds_after_close=after.fds,
        sse_events_min=min(counts.sse_events, default=0),
        sse_reconnects=counts.sse_reconnects,
        waits_held=waits_held,
        waits_answered={str(k): v for k, v in counts.waits_answered.items()},
        tracebacks_in_log=log.count("Traceback"),
        bench_cpu_percent=round(cpu / elapsed * 100),
        server_cpu_percent=round((reports[-1].cpu - first.cpu) / elapsed * 100),
    )
    print_summary(summary, rec, samples)
    return summary


def print_summary(summary: Summary, rec: Recorder, samples: list[ProcSample]) -> None:
    table(
        f"Soak total: {summary.seconds:.0f} s, load average {summary.load_average}",
        HEADER,
        endpoint_rows(rec.total, rec.errors, rec.server_errors, summary.seconds),
    )
    print("\nRSS MiB over time: " + ", ".join(f"{at}s {mib}" for at, mib in summary.rss_mib))
    rss = [s.rss_mib for s in samples]
    print(
        f"RSS min {min(rss):.1f} / max {max(rss):.1f} MiB, slope "
        f"{'after the first minute' if samples[-1].at > 90 else 'over the run'} "
        f"{summary.rss_slope_after_first_minute:+.2f} MiB/min; fds: baseline "
        f"{summary.fds_baseline}, max under load {summary.fds_loaded_max}, after the clients "
        f"closed {summary.fds_after_close}; wake waits held (lowest seen) {summary.waits_held},"
        f" answered early {summary.waits_answered or 0}; SSE: fewest events on one stream "
        f"{summary.sse_events_min}, reconnects {summary.sse_reconnects}"
    )
    print(
        f"errors {summary.errors}, 5xx {summary.server_errors}, tracebacks in the server log "
        f"{summary.tracebacks_in_log}; CPU: the server {summary.server_cpu_percent}%, the "
        f"soak's own clients {summary.bench_cpu_percent}% of one core"
    )
    for line in summary.error_samples:
        print("  " + line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--minutes", type=float, default=10.0)
    length.add_argument("--seconds", type=float)
    parser.add_argument("--period", type=float, help="seconds between tables (default 60)")
    parser.add_argument("--json", type=Path, help="also write the summary to this file")
    args = parser.parse_args()
    seconds = args.seconds if args.seconds is not None else args.minutes * 60
    period = args.period or min(60.0, max(5.0, seconds / 3))
    summary = run(seconds, period)
    if args.json:
        args.json.write_text(json.dumps(asdict(summary), indent=2) + "\n")


if __name__ == "__main__":
    main()
