"""MCP tool-call latency and throughput through the real client (docs/architecture.md §10).

Starts a real `relaybay serve` on a free port with a throwaway data folder and, beside it,
a bare MCP SDK server (the same MCPServer class, stateless JSON, one no-op tool) under the
same daphne, then measures in the same run:
- the floors: GET /healthz over one keep-alive connection, and the bare server's no-op
  tool through the same official mcp client (one client, then 8 concurrent ones);
- task_get, task_update, task_set_stage and task_create through that client;
- tool calls per second from 8 concurrent clients (half task_get, half task_update), and
  from 8 concurrent clients moving tasks (task_set_stage).
Figures are printed, never asserted. Targets: task_get p50 ≤ 3× /healthz; task_set_stage
p50 ≤ 2× the bare no-op (issue 18); 8 writers with 0 "database is locked" and 0 lost
versions.

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
from _common import daphne_child, serve_under_daphne

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


# --- the bare MCP SDK server (a child process: `mcp_calls.py --bare-mcp PORT`) -----------


def bare_mcp_app() -> Any:
    """bench/mcp_profile.py's bare SDK server (no Host check: any free port); its session
    manager starts with the first request (daphne sends no lifespan)."""
    from mcp.server.transport_security import TransportSecuritySettings
    from mcp_profile import bare_app

    open_door = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    server, app = bare_app(open_door)
    running: list[asyncio.Task[None]] = []

    async def run_manager(started: asyncio.Event) -> None:
        async with server.session_manager.run():
            started.set()
            await asyncio.Event().wait()

    async def asgi(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if not running:
            started = asyncio.Event()
            running.append(asyncio.get_running_loop().create_task(run_manager(started)))
            await started.wait()
        await app(scope, receive, send)

    return asgi


async def bare_floor(bare: Any, calls: int, seconds: float) -> dict[str, Any]:
    """The bare no-op through the same client: one client, then 8 at once."""
    async with mcp_client(bare.base_url, "none") as client:
        await timed_calls(client, 20, "noop", {"task": "x"})
        single = await timed_calls(client, calls, "noop", {"task": "x"})
    deadline = time.perf_counter() + seconds

    async def worker() -> int:
        count = 0
        async with mcp_client(bare.base_url, "none") as client:
            while time.perf_counter() < deadline:
                await client.call_tool("noop", {"task": "x"})
                count += 1
        return count

    started = time.perf_counter()
    counts = await asyncio.gather(*(worker() for _ in range(CLIENTS)))
    return {"single": single, "rate": sum(counts) / (time.perf_counter() - started)}


async def moves(server: RelaybayServer, keys: list[str], calls: int, seconds: float) -> Any:
    """task_set_stage and task_create from one client, then 8 clients moving their tasks."""
    order = ["dev", "review", "test", "dev"]
    async with mcp_client(server.base_url, server.token) as client:
        stage = await timed_calls(
            client,
            calls,
            "task_set_stage",
            lambda i: {"task": keys[0], "stage": order[i % 4], "session": "bench"},
        )
        create = await timed_calls(
            client,
            min(calls, 100),
            "task_create",
            lambda i: {"project": "bench", "title": f"Created {i}", "session": "bench"},
        )
    errors: list[str] = []
    deadline = time.perf_counter() + seconds

    async def worker(n: int) -> int:
        count = 0
        async with mcp_client(server.base_url, server.token) as client:
            while time.perf_counter() < deadline:
                args = {"task": keys[n], "stage": order[count % 4], "session": f"m{n}"}
                result = await client.call_tool("task_set_stage", args)
                if result.is_error:
                    errors.append(text_of(result))
                count += 1
        return count

    started = time.perf_counter()
    counts = await asyncio.gather(*(worker(n) for n in range(CLIENTS)))
    rate = sum(counts) / (time.perf_counter() - started)
    return {"task_set_stage": stage, "task_create": create, "rate": rate, "errors": errors}


async def setup(server: RelaybayServer) -> tuple[str, list[str]]:
    async with mcp_client(server.base_url, server.token) as client:
        await client.call_tool("project_upsert", {"slug": "bench", "name": "Bench"})
        result = await client.call_tool(
            "task_create",
            {"project": "bench", "title": "Benchmark task", "description": "x" * 2000},
        )
        key = text_of(result).split()[1]
        movers = []
        for n in range(CLIENTS):
            made = await client.call_tool(
                "task_create", {"project": "bench", "title": f"Mover {n}", "size": "S"}
            )
            movers.append(text_of(made).split()[1])
        for i in range(5):
            await client.call_tool(
                "report_add", {"task": key, "body": f"changed · M · report {i}\n\n" + "y" * 500}
            )
        return key, movers


async def main_async(server: RelaybayServer, bare: Any, calls: int, seconds: float) -> None:
    key, movers = await setup(server)
    bare_figures = await bare_floor(bare, calls, seconds)
    bare_p50 = statistics.median(bare_figures["single"]) * 1000
    floor_samples = await floor(server, calls)
    floor_p50 = statistics.median(floor_samples) * 1000
    single = await single_client(server, key, calls)
    conc = await concurrent(server, key, seconds)
    moved = await moves(server, movers, calls, seconds)
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
    print()
    print(line("bare SDK no-op (floor)", bare_figures["single"]))
    print(line("task_set_stage", moved["task_set_stage"], bare_p50).replace("floor", "bare"))
    print(line("task_create", moved["task_create"], bare_p50).replace("floor", "bare"))
    ratio = statistics.median(moved["task_set_stage"]) * 1000 / bare_p50
    verdict = "meets" if ratio <= 2 else "MISSES"
    print(f"task_set_stage p50 {ratio:.2f}× the bare no-op: {verdict} the ≤ 2× target")
    print(
        f"{CLIENTS} clients: task_set_stage {moved['rate']:.0f} calls/s "
        f"({len(moved['errors'])} errors); bare no-op {bare_figures['rate']:.0f} calls/s"
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
            with daphne_child(Path(__file__).resolve(), "--bare-mcp") as bare:
                asyncio.run(main_async(server, bare, args.calls, args.seconds))
        finally:
            server.stop()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--bare-mcp":
        serve_under_daphne(bare_mcp_app(), int(sys.argv[2]))
    else:
        main()
