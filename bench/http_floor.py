"""The server's own floor and the live fan-out (issue 2; targets in docs/architecture.md §10).

1. GET /healthz (public) and GET /api/stats (Bearer, an authenticated no-op) over
   keep-alive, from 1 client and from 20 concurrent clients (threads, one connection each),
   and the same GET against a bare ASGI app (a constant JSON answer) under the same daphne
   with relaybay's HTTP factory and an access log line per request, started in the same run:
   the real limit, which /healthz p50 should stay within 2× of (issue 18).
2. SSE fan-out: 50 subscribers on /events, then task_create calls through the real MCP
   client; write → receive per subscriber (the clock starts when the tool call is sent).

Prints a table and asserts nothing. Run: .venv/bin/python bench/http_floor.py
"""

from __future__ import annotations

import asyncio
import http.client
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    SseSubscribers,
    daphne_child,
    get_json,
    ms,
    percentile,
    private_server,
    serve_under_daphne,
    table,
)

from tests.support.mcp_client import mcp_client, text_of
from tests.support.server import RelaybayServer

SINGLE_REQUESTS = 1000
CONCURRENT_CLIENTS = 20
CONCURRENT_REQUESTS = 150  # per client
WARMUP = 20
SUBSCRIBERS = 50
WRITES = 40
WRITE_GAP = 0.05  # seconds between writes, so each fan-out is measured on its own
FANOUT_P99_TARGET_MS = 50.0
FLOOR_RATIO_TARGET = 2.0


# --- the bare ASGI app (run in a child process: `http_floor.py --bare PORT`) ---------------


async def bare_app(scope: dict, receive: object, send: object) -> None:
    """The least an ASGI app can do: one constant JSON answer, no framework."""
    if scope["type"] != "http":
        return
    body = b'{"status": "ok"}'
    headers = [(b"content-type", b"application/json"), (b"content-length", b"16")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})  # type: ignore[operator]
    await send({"type": "http.response.body", "body": body})  # type: ignore[operator]


def bare_server() -> Any:
    """The bare app on a free port under the same daphne, in a child process."""
    return daphne_child(Path(__file__), "--bare")


# --- the HTTP floor ----------------------------------------------------------------------


def client_run(
    server: RelaybayServer, path: str, headers: dict[str, str], count: int, start: threading.Event
) -> tuple[list[float], int]:
    """`count` timed GETs on one keep-alive connection; returns latencies and reconnects."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    latencies, sockets = [], set()
    for n in range(WARMUP + count):
        if n == WARMUP:
            start.wait()
        began = time.perf_counter()
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        response.read()
        took = time.perf_counter() - began
        if response.status != 200:
            raise RuntimeError(f"GET {path} answered {response.status}")
        sockets.add(id(conn.sock))
        if n >= WARMUP:
            latencies.append(took)
    conn.close()
    return latencies, len(sockets) - 1


def floor(
    server: RelaybayServer, path: str, headers: dict[str, str], clients: int, count: int
) -> tuple[list[float], float, int]:
    """Latencies of all clients together, requests per second and reconnections."""
    results: list[tuple[list[float], int]] = [([], 0)] * clients
    start = threading.Event()

    def work(i: int) -> None:
        results[i] = client_run(server, path, headers, count, start)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    time.sleep(0.2)  # let every client finish its warm-up
    began = time.perf_counter()
    start.set()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    latencies = [x for lat, _ in results for x in lat]
    return latencies, len(latencies) / elapsed, sum(r for _, r in results)


def http_floor(server: RelaybayServer, bare: object) -> dict[str, float]:
    bearer = {"Authorization": f"Bearer {server.token}"}
    rows, medians = [], {}
    for label, target, path, headers in (
        ("bare ASGI app, same daphne", bare, "/", {}),
        ("GET /healthz", server, "/healthz", {}),
        ("GET /api/stats (Bearer)", server, "/api/stats", bearer),
    ):
        for clients, count in ((1, SINGLE_REQUESTS), (CONCURRENT_CLIENTS, CONCURRENT_REQUESTS)):
            latencies, rate, reconnects = floor(target, path, headers, clients, count)  # type: ignore[arg-type]
            p50, p99 = statistics.median(latencies), percentile(latencies, 99)
            medians[f"{path} x{clients}"] = p50
            medians[f"{path} x{clients} rate"] = rate
            rows.append(
                (
                    label,
                    str(clients),
                    str(len(latencies)),
                    ms(p50),
                    ms(p99),
                    f"{rate:7.0f}",
                    str(reconnects),
                )
            )
    table(
        "HTTP floor over keep-alive (ms)",
        ("request", "clients", "requests", "p50", "p99", "req/s", "reconnects"),
        rows,
    )
    return medians


# --- SSE fan-out -----------------------------------------------------------------------------


async def write_tasks(server: RelaybayServer, slug: str) -> list[tuple[str, float, float]] | None:
    """task_create WRITES times; returns (task key, sent at, answered at) per write."""
    async with mcp_client(server.base_url, server.token) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        if not {"project_upsert", "task_create"} <= tools:
            return None
        await client.call_tool("project_upsert", {"slug": slug, "name": "Bench"})
        await asyncio.sleep(0.3)
        writes = []
        for n in range(1, WRITES + 1):
            sent = time.perf_counter()
            result = await client.call_tool(
                "task_create", {"project": slug, "title": f"Fan-out {n}"}
            )
            answered = time.perf_counter()
            if result.is_error:
                raise RuntimeError(text_of(result))
            writes.append((f"{slug}-{n}", sent, answered))
            await asyncio.sleep(WRITE_GAP)
        await asyncio.sleep(0.5)  # the last deliveries
        return writes


def summary_row(label: str, samples: list[float]) -> tuple[str, ...]:
    return (
        label,
        str(len(samples)),
        ms(statistics.median(samples)),
        ms(percentile(samples, 95)),
        ms(percentile(samples, 99)),
    )


def fanout(server: RelaybayServer, slug: str = "bench") -> None:
    """A fresh project per run: its task keys are <slug>-1 … <slug>-WRITES."""
    with SseSubscribers(server, SUBSCRIBERS, f"?project={slug}") as subs:
        stats = get_json(server, "/api/stats")
        writes = asyncio.run(write_tasks(server, slug))
    if writes is None:
        print("\nSSE fan-out: skipped, the MCP tools project_upsert / task_create are missing.")
        return
    latencies, after_answer, slowest, missing = [], [], {}, 0
    for received in subs.received:
        seen = {data["key"]: at for data, at in received if data.get("kind") == "task.created"}
        for key, sent, answered in writes:
            if key not in seen:
                missing += 1
                continue
            latencies.append(seen[key] - sent)
            after_answer.append(seen[key] - answered)
            slowest[key] = max(slowest.get(key, 0.0), seen[key] - sent)
    if not latencies:
        print(f"\nSSE fan-out: no event reached a subscriber ({missing} missing).")
        return
    calls = [answered - sent for _, sent, answered in writes]
    rows = [
        summary_row("write → each subscriber", latencies),
        summary_row("write → last of the 50", list(slowest.values())),
        summary_row("task_create round trip", calls),
        summary_row("answer → receive (<0: before)", after_answer),
    ]
    table(
        f"SSE fan-out: {stats['subscribers']} subscribers, {len(writes)} task_create writes "
        "through the MCP client (ms)",
        ("measure", "samples", "p50", "p95", "p99"),
        rows,
    )
    p99 = percentile(latencies, 99) * 1000
    verdict = "meets" if p99 <= FANOUT_P99_TARGET_MS else "MISSES"
    print(f"missing deliveries: {missing}")
    print(
        f"target (§10): write → 50 SSE subscribers p99 ≤ {FANOUT_P99_TARGET_MS:.0f} ms: "
        f"{p99:.1f} ms, {verdict} it  (§5 measured earlier: median 10–15 ms, p95 12–21 ms)"
    )


def main() -> None:
    began = time.perf_counter()
    with private_server() as server, bare_server() as bare:
        print(f"relaybay serve on {server.base_url} (daphne, access log on, temp data folder)")
        print(f"bare ASGI app on 127.0.0.1:{bare.port} (same daphne and HTTP factory)")  # type: ignore[attr-defined]
        medians = http_floor(server, bare)
        healthz, floor_ = medians["/healthz x1"], medians["/ x1"]
        ratio = healthz / floor_
        rate, bare_rate = medians["/healthz x20 rate"], medians["/ x20 rate"]
        verdict = "meets" if ratio <= FLOOR_RATIO_TARGET else "MISSES"
        print(
            f"\n/healthz p50 from 1 client: {ratio:.2f}× the bare ASGI app "
            f"({healthz * 1000:.2f} ms vs {floor_ * 1000:.2f} ms), {verdict} the "
            f"≤ {FLOOR_RATIO_TARGET:.0f}× target (§10). 20 clients: /healthz "
            f"{rate:.0f} req/s, bare {bare_rate:.0f} req/s ({rate / bare_rate:.2f}×)."
        )
        print(
            f"\nfloor = GET /healthz p50 from 1 client: {healthz * 1000:.2f} ms. "
            f"Authenticated no-op: {medians['/api/stats x1'] / healthz:.2f}× the floor. "
            "§10 ratios: hook PostToolUse p99 ≤ 2× floor, MCP task_get p50 ≤ 3× floor "
            "(measured by their own benchmarks)."
        )
        fanout(server)
    print(f"\ntotal {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--bare":
        serve_under_daphne(bare_app, int(sys.argv[2]))
    else:
        main()
