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
     [--heap-log FILE]
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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import get_json, percentile, private_server, table
from _soak_clients import (
    FLOOR,
    MCP_INTERVAL,
    SLUG,
    board_calls,
    fixture,
    floor_calls,
    hook_calls,
    http_loop,
    mcp_worker,
    session_start,
)
from _soak_parts import (
    LongLived,
    ProcSample,
    Recorder,
    hold_long_lived,
    proc_sample,
    run_loop_thread,
    slope_per_minute,
)

from tests.support.mcp_client import mcp_client, text_of
from tests.support.server import RelaybayServer

SESSIONS = 20
MCP_CLIENTS = 8
SSE_CLIENTS = 50
WAITS = 200
SET_UP_CLIENTS = 4
HOOK_INTERVAL = 1.0  # seconds between two hook events of one session
BOARD_INTERVAL = 1.0
FLOOR_INTERVAL = 0.5  # GET /healthz beside the load: the floor the other rows compare with
FD_MARGIN = 5  # descriptors above the baseline still counted as "back"
PAGE_THREADS = 4  # relaybay_site/pages_asgi.THREADS, not imported: the soak serves any tree
# --- set-up through the real MCP client -------------------------------------------------------


async def set_up(server: RelaybayServer) -> tuple[list[str], list[str], list[str]]:
    """The project; a bound task and an exactly linked Claude Code id per hook session; a
    linked id per waiter; a task per MCP client. Returns (hook ids, waiter ids, MCP keys).
    Four clients share the ~270 calls, so the set-up stays short on a busy machine."""

    async def ok(client: Any, tool: str, **args: object) -> str:
        result = await client.call_tool(tool, args)
        if result.is_error:
            raise RuntimeError(f"{tool}: {text_of(result)}")
        return text_of(result)

    async with mcp_client(server.base_url, server.token) as client:
        await ok(client, "project_upsert", slug=SLUG, name="Soak")
    hook_ids = [str(uuid.uuid4()) for _ in range(SESSIONS)]
    wait_ids = [str(uuid.uuid4()) for _ in range(WAITS)]
    keys = [""] * MCP_CLIENTS

    async def share(part: int) -> None:
        async with mcp_client(server.base_url, server.token) as client:
            for n in range(part, SESSIONS, SET_UP_CLIENTS):
                name = f"soak-agent-{n}"
                text = await ok(client, "task_create", project=SLUG, title=f"Work of {name}")
                await ok(client, "task_bind_session", task=text.split()[1], session=name)
                await ok(
                    client, "project_upsert", slug=SLUG, session=name, hook_session=hook_ids[n]
                )
            for n in range(part, WAITS, SET_UP_CLIENTS):
                name = f"soak-waiter-{n}"
                await ok(
                    client, "project_upsert", slug=SLUG, session=name, hook_session=wait_ids[n]
                )
            for n in range(part, MCP_CLIENTS, SET_UP_CLIENTS):
                title = f"MCP client {n}"
                text = await ok(
                    client, "task_create", project=SLUG, title=title, session=f"mcp-{n}"
                )
                keys[n] = text.split()[1]

    await asyncio.gather(*(share(part) for part in range(SET_UP_CLIENTS)))
    return hook_ids, wait_ids, keys


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
    threads_baseline: int
    threads_after_close: int
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


def start_clients(
    server: RelaybayServer,
    rec: Recorder,
    stop: threading.Event,
    hook_ids: list[str],
    keys: list[str],
) -> list[threading.Thread]:
    """The paced clients, started: hook sessions, the board reader and the floor in threads
    of their own, the MCP clients on one event loop. They run until `stop`."""
    jobs = [
        (HOOK_INTERVAL, n * HOOK_INTERVAL / SESSIONS, hook_calls(agent_id))
        for n, agent_id in enumerate(hook_ids)
    ]
    jobs += [(BOARD_INTERVAL, 0.0, board_calls()), (FLOOR_INTERVAL, 0.1, floor_calls())]
    threads = [threading.Thread(target=http_loop, args=(server, rec, stop, *job)) for job in jobs]

    async def mcp_all() -> None:
        offsets = [n * MCP_INTERVAL / MCP_CLIENTS for n in range(len(keys))]
        await asyncio.gather(
            *(mcp_worker(server, rec, stop, n, key, offsets[n]) for n, key in enumerate(keys))
        )

    for thread in threads:
        thread.start()
    return [*threads, run_loop_thread(mcp_all)]


def watch(
    server: RelaybayServer, rec: Recorder, started: float, seconds: float, period: float
) -> tuple[list[ProcSample], list[ProcSample], int]:
    """Sample the server every 5 s and print a table each period until the time is up.
    Returns every sample, the samples the tables were printed at (the first is the start)
    and the fewest wake waits seen held."""
    pid = server.proc.pid  # type: ignore[union-attr]
    first = proc_sample(pid, started)
    samples, reports, waits_held = [first], [first], WAITS
    next_report = started + period
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
    return samples, reports, waits_held


def print_start(seconds: float, baseline: ProcSample) -> None:
    print(
        f"soak: {SESSIONS} hook sessions (one event / {HOOK_INTERVAL} s), {MCP_CLIENTS} MCP "
        f"clients (one call / {MCP_INTERVAL} s), {SSE_CLIENTS} SSE, {WAITS} wake waits, a "
        f"board reader (one page / {BOARD_INTERVAL} s) for {seconds:.0f} s. Baseline: RSS "
        f"{baseline.rss_mib:.1f} MiB, {baseline.fds} fds, {baseline.threads} threads."
    )


def settled(pid: int, baseline: ProcSample, started: float) -> ProcSample:
    """The server once the clients have closed: polled until its descriptors are back
    within FD_MARGIN of the baseline, for up to 20 s (a leak shows as the last sample)."""
    after = proc_sample(pid, started)
    deadline = time.monotonic() + 20
    while after.fds > baseline.fds + FD_MARGIN and time.monotonic() < deadline:
        time.sleep(0.5)
        after = proc_sample(pid, started)
    return after


HEAPWATCH = Path(__file__).resolve().parent / "heapwatch"


def open_page_threads(server: RelaybayServer) -> None:
    """Pages at once, more than the server keeps threads for, before the baseline: each kept
    page thread keeps its SQLite connection and its descriptors by design
    (relaybay_site/pages_asgi.py), which is not a leak."""

    def ask() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/inbox/badge", headers={"Authorization": f"Bearer {server.token}"})
        conn.getresponse().read()  # the badge reads the database: the thread opens its own
        conn.close()

    askers = [threading.Thread(target=ask) for _ in range(2 * PAGE_THREADS)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()


def run(seconds: float, period: float, heap_log: Path | None = None) -> Summary:
    """The whole soak against a private server; prints as it goes and returns the figures.

    With `heap_log`, the server also appends its heap facts there every 30 s
    (bench/heapwatch/sitecustomize.py)."""
    heapwatch = {"PYTHONPATH": str(HEAPWATCH), "HEAPWATCH_LOG": str(heap_log)} if heap_log else {}
    with private_server(**heapwatch) as server:
        pid = server.proc.pid  # type: ignore[union-attr]
        began = time.monotonic()
        hook_ids, wait_ids, keys = asyncio.run(set_up(server))
        print(f"set-up through MCP: {time.monotonic() - began:.1f} s")
        for agent_id in hook_ids:  # each session has started and is working
            session_start(server, agent_id)
        open_page_threads(server)
        time.sleep(1)
        baseline = proc_sample(pid, time.monotonic())
        print_start(seconds, baseline)
        rec, stop, counts = Recorder(), threading.Event(), LongLived()
        wait_bodies = [json.dumps({**fixture("Stop.first"), "session_id": i}) for i in wait_ids]
        long_lived = run_loop_thread(
            lambda: hold_long_lived(server, rec, stop, SSE_CLIENTS, wait_bodies, counts)
        )
        deadline = time.monotonic() + 20
        while (held := get_json(server, "/api/stats").get("waits", 0)) < WAITS:
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {held} of {WAITS} wake waits are held")
            time.sleep(0.1)
        started, cpu = time.monotonic(), time.process_time()
        clients = start_clients(server, rec, stop, hook_ids, keys)
        samples, reports, waits_held = watch(server, rec, started, seconds, period)
        stop.set()
        elapsed, cpu = time.monotonic() - started, time.process_time() - cpu
        for thread in [*clients, long_lived]:
            thread.join(30)
        after = settled(pid, baseline, started)
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
        threads_baseline=baseline.threads,
        threads_after_close=after.threads,
        sse_events_min=min(counts.sse_events, default=0),
        sse_reconnects=counts.sse_reconnects,
        waits_held=waits_held,
        waits_answered={str(k): v for k, v in counts.waits_answered.items()},
        tracebacks_in_log=log.count("Traceback"),
        bench_cpu_percent=round(cpu / elapsed * 100),
        server_cpu_percent=round((reports[-1].cpu - reports[0].cpu) / elapsed * 100),
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
        f"closed {summary.fds_after_close}; server threads: baseline "
        f"{summary.threads_baseline}, after {summary.threads_after_close}; wake waits held "
        f"(lowest seen) {summary.waits_held}, answered early {summary.waits_answered or 0}; "
        f"SSE: fewest events on one stream {summary.sse_events_min}, reconnects "
        f"{summary.sse_reconnects}"
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
    parser.add_argument(
        "--heap-log", type=Path, help="the server appends its heap facts here every 30 s"
    )
    args = parser.parse_args()
    seconds = args.seconds if args.seconds is not None else args.minutes * 60
    period = args.period or min(60.0, max(5.0, seconds / 3))
    summary = run(seconds, period, args.heap_log.resolve() if args.heap_log else None)
    if args.json:
        args.json.write_text(json.dumps(asdict(summary), indent=2) + "\n")


if __name__ == "__main__":
    main()
