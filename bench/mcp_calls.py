"""MCP tool-call latency and throughput through the real client (docs/architecture.md §10).

Starts a real `relaybay serve` on a free port with a throwaway data folder, then measures in
the same run:
- the floor: GET /healthz over one keep-alive connection (the same httpx2 client stack);
- task_get and task_update through the official mcp client over Streamable HTTP;
- tool calls per second from 8 concurrent clients (half task_get, half task_update).
Figures are printed, never asserted. Targets: task_get p50 ≤ 3× the floor; 8 writers with
0 "database is locked" and 0 lost versions.

Run: .venv/bin/python bench/mcp_calls.py [--calls 300] [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx2

from tests.support.mcp_client import mcp_client, text_of
from tests.support.server import RelaybayServer

CLIENTS = 8


def pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def line(name: str, samples: list[float], floor: float | None = None) -> str:
    p50, p99 = statistics.median(samples) * 1000, pct(samples, 99) * 1000
    ratio = f"  ({p50 / floor:.1f}× floor p50)" if floor else ""
    return f"{name:<24} n={len(samples):<5} p50 {p50:7.2f} ms  p99 {p99:7.2f} ms{ratio}"


async def floor(server: RelaybayServer, calls: int) -> list[float]:
    samples = []
    async with httpx2.AsyncClient(base_url=server.base_url) as http:
        for _ in range(20):
            await http.get("/healthz")
        for _ in range(calls):
            started = time.perf_counter()
            response = await http.get("/healthz")
            samples.append(time.perf_counter() - started)
            assert response.status_code == 200
    return samples


async def timed_calls(client: Any, calls: int, tool: str, args: Any) -> list[float]:
    samples = []
    for i in range(calls):
        started = time.perf_counter()
        result = await client.call_tool(tool, args(i) if callable(args) else args)
        samples.append(time.perf_counter() - started)
        if result.is_error:
            raise RuntimeError(f"{tool}: {text_of(result)}")
    return samples


async def single_client(server: RelaybayServer, key: str, calls: int) -> dict[str, list[float]]:
    async with mcp_client(server.base_url, server.token) as client:
        await timed_calls(client, 20, "task_get", {"task": key})  # warm up
        gets = await timed_calls(client, calls, "task_get", {"task": key})
        updates = await timed_calls(
            client,
            calls,
            "task_update",
            lambda i: {"task": key, "progress": f"bench write {i}", "session": "bench"},
        )
    return {"task_get": gets, "task_update": updates}


async def concurrent(server: RelaybayServer, key: str, seconds: float) -> dict[str, Any]:
    versions: list[int] = []
    errors: list[str] = []
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def worker(n: int) -> int:
        count = 0
        async with mcp_client(server.base_url, server.token) as client:
            while time.perf_counter() < deadline:
                write = count % 2 == 1
                args = (
                    {"task": key, "description": f"c{n} {count}", "session": f"c{n}"}
                    if write
                    else {"task": key}
                )
                started = time.perf_counter()
                result = await client.call_tool("task_update" if write else "task_get", args)
                latencies.append(time.perf_counter() - started)
                text = text_of(result)
                if result.is_error:
                    errors.append(text)
                elif write:
                    versions.append(int(re.search(r"\(version (\d+)\)", text).group(1)))
                count += 1
        return count

    started, cpu = time.perf_counter(), time.process_time()
    counts = await asyncio.gather(*(worker(n) for n in range(CLIENTS)))
    elapsed = time.perf_counter() - started
    return {
        "client_cpu": time.process_time() - cpu,
        "calls": sum(counts),
        "elapsed": elapsed,
        "latencies": latencies,
        "versions": versions,
        "errors": errors,
    }


async def setup(server: RelaybayServer) -> str:
    async with mcp_client(server.base_url, server.token) as client:
        await client.call_tool("project_upsert", {"slug": "bench", "name": "Bench"})
        result = await client.call_tool(
            "task_create",
            {"project": "bench", "title": "Benchmark task", "description": "x" * 2000},
        )
        key = text_of(result).split()[1]
        for i in range(5):
            await client.call_tool(
                "report_add", {"task": key, "body": f"changed · M · report {i}\n\n" + "y" * 500}
            )
        return key


async def main_async(server: RelaybayServer, calls: int, seconds: float) -> None:
    key = await setup(server)
    floor_samples = await floor(server, calls)
    floor_p50 = statistics.median(floor_samples) * 1000
    single = await single_client(server, key, calls)
    conc = await concurrent(server, key, seconds)
    floor_after = await floor(server, calls)

    print(f"relaybay MCP bench — {calls} sequential calls per tool, {CLIENTS} clients × {seconds}s")
    print(line("/healthz floor (before)", floor_samples))
    print(line("/healthz floor (after)", floor_after))
    print(line("task_get", single["task_get"], floor_p50))
    print(line("task_update", single["task_update"], floor_p50))
    print(line(f"{CLIENTS} clients, any call", conc["latencies"], floor_p50))
    rate = conc["calls"] / conc["elapsed"]
    versions = sorted(conc["versions"])
    duplicates = len(versions) - len(set(versions))
    gaps = (versions[-1] - versions[0] + 1 - len(set(versions))) if versions else 0
    locked = sum("locked" in e for e in conc["errors"])
    print(
        f"{CLIENTS} concurrent clients: {conc['calls']} calls in {conc['elapsed']:.2f}s = "
        f"{rate:.0f} calls/s; {len(versions)} writes, {duplicates} duplicate versions, "
        f"{gaps} version gaps, {len(conc['errors'])} errors ({locked} 'database is locked')"
    )
    busy = conc["client_cpu"] / conc["elapsed"] * 100
    print(f"bench (client) process CPU during the concurrent run: {busy:.0f}% of one core")
    print(f"server log 'database is locked': {server.log().count('database is locked')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="relaybay-bench-") as home:
        server = RelaybayServer(home=Path(home), args=("--quiet-access-log",)).start()
        try:
            asyncio.run(main_async(server, args.calls, args.seconds))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
