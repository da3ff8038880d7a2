"""Where each MCP write spends its time on the server, in-process (issues 18 and 40).

No socket: the outer ASGI app (relaybay_site.asgi) driven by httpx2's ASGITransport with the
JSON-RPC body the official client sends, so the figures are the server's own work. Beside
it, in the same run, a bare MCP SDK server (the same MCPServer class, stateless JSON, one
no-op tool) driven the same way: the floor. Every write tool (task_create, task_set_stage,
task_update, report_add, task_bind_session: each call a real change) and task_get are timed
in interleaved rounds with the no-op, then each is profiled with cProfile over both threads
(the event loop and Django's sync thread, where sync_to_async runs the service and its
answer; Python 3.12's cProfile sees every thread), and the seams that run on every write are
read out of the profile per call: the service and its answer, the event's observers (the
time tally, the search index), the write door, the database's last line, the live message
and its publish, the caller's resolution, the bind answer's brief, SQLite's statements and
its commit. A seam's figure is its cumulative time under the profiler (~2× its real cost):
compare seams with each other and with the same figure of another tree, not with the p50s.
Figures are printed, never asserted. Copy this file into another checkout (a worktree of an
older commit) to profile that tree's code the same way.

Run: .venv/bin/python bench/mcp_profile.py [--calls 300] [--tools task_set_stage,task_get]
     [--top 25] (the top-N functions of each profile; 0 prints the seams only)
     [--streams 50] (live streams listening, as /events holds them: the SSE fan-out)
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "Host": "127.0.0.1:8765",
    "MCP-Protocol-Version": "2025-06-18",
}
MOVES = ("dev", "review", "test")  # each call moves: no call is a no-op
BOUND = 50  # tasks task_bind_session binds in turn
WRITES = ("task_create", "task_set_stage", "task_update", "report_add", "task_bind_session")

# (label, file suffix, function name): what runs on every write, read out of the profile.
# A name in braces is a C function (cProfile files it under "~").
SEAMS: tuple[tuple[str, str, str], ...] = (
    ("service + answer (sync thread)", "core/mcp.py", "run"),
    ("  caller resolution", "tasks/extensions.py", "caller_in"),
    ("  the write door", "tasks/extensions.py", "refuse_secrets"),
    ("  record_event", "tasks/events.py", "record_event"),
    ("    observer: effort time tally", "effort/services.py", "track_time"),
    ("    observer: search index", "memory/search.py", "observe"),
    ("    live message", "tasks/events.py", "to_message"),
    ("  the last line (no_secrets)", "core/no_secrets.py", "check_write"),
    ("  the bind answer's brief", "sessions/brief.py", "brief"),
    ("  SQLite statements", "~", "{CheckedCursor.execute}"),
    ("  SQLite commit", "~", "{commit}"),
    ("live publish (after commit)", "core/live.py", "publish"),
    ("  SSE fan-out (on the loop)", "core/live.py", "_deliver"),
    ("effort live notice", "effort/notify.py", "tasks_changed"),
)


def body(n: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


async def timed(client: Any, calls: int, tool: str, args: Callable[[int], Any]) -> list[float]:
    samples = []
    for n in range(calls):
        started = time.perf_counter()
        reply = await client.post("/mcp", json=body(n, tool, args(n)))
        samples.append(time.perf_counter() - started)
        data = reply.json()
        if reply.status_code != 200 or data.get("result", {}).get("isError"):
            raise RuntimeError(f"{tool}: {reply.status_code} {reply.text[:300]}")
    return samples


def bare_app(security: Any = None) -> tuple[Any, Any]:
    """The SDK's MCPServer with one no-op tool, as relaybay builds its own (stateless JSON);
    `security` is its transport security (default: the Host this in-process driver sends).
    bench/mcp_calls.py serves the same under daphne."""
    from mcp.server.mcpserver import MCPServer

    from core.mcp import transport_security

    server = MCPServer(name="bare", subscriptions=False)

    @server.tool(structured_output=False)
    async def noop(task: str = "") -> str:
        """Does nothing."""
        return "ok"

    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        transport_security=security or transport_security(["127.0.0.1"], 8765),
    )
    return server, app


class Arguments:
    """Each tool's arguments for its n-th call; a counter per tool, so every call changes
    something whichever round it falls in."""

    def __init__(self, key: str, bound: list[str]) -> None:
        self.key, self.bound = key, bound
        self.count: dict[str, int] = {}

    def __call__(self, tool: str) -> Callable[[int], dict[str, Any]]:
        def args(_n: int) -> dict[str, Any]:
            n = self.count[tool] = self.count.get(tool, -1) + 1
            key = self.key
            return {
                "noop": lambda: {"task": key},
                "task_get": lambda: {"task": key},
                "task_create": lambda: {"project": "bench", "title": f"Created {n}"},
                "task_set_stage": lambda: {"task": key, "stage": MOVES[n % 3], "session": "b"},
                "task_update": lambda: {"task": key, "progress": f"step {n}", "session": "b"},
                "report_add": lambda: {"task": key, "body": f"Did thing {n}.", "session": "b"},
                "task_bind_session": lambda: {
                    "task": self.bound[n % len(self.bound)],
                    "session": f"s{n // len(self.bound) % 2}",
                },
            }[tool]()

        return args


def seams(prof: cProfile.Profile, calls: int) -> list[tuple[str, float, int]]:
    """(label, ms per call, calls per call ×100) of each seam found in the profile."""
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    found = []
    for label, suffix, name in SEAMS:
        ms, count = 0.0, 0
        for (filename, _line, func), (_cc, nc, _tt, ct, _callers) in stats.items():
            if name.startswith("{"):
                hit = filename == "~" and name.strip("{}") in func
            else:
                hit = func == name and filename.replace(os.sep, "/").endswith(suffix)
            if hit:
                ms, count = ms + ct, count + nc
        if count:
            found.append((label, ms * 1000 / calls, round(count * 100 / calls)))
    return found


async def setup() -> tuple[str, list[str], str]:
    """The bench project, a busy task, BOUND tasks to bind in turn (a new binding each
    call, none rebound more than a few times); the token."""
    from asgiref.sync import sync_to_async
    from django.core.management import call_command

    from core.security import current_token
    from tasks import services

    await sync_to_async(call_command)("migrate", verbosity=0)
    await sync_to_async(services.project_upsert)(slug="bench", actor="bench")
    made = [
        await sync_to_async(services.task_create)(
            project="bench", title=f"Task {n}", description="x" * 2000, actor="bench"
        )
        for n in range(BOUND + 1)
    ]
    token = await sync_to_async(current_token)()
    return made[0].obj.key, [m.obj.key for m in made[1:]], token


async def listeners(count: int) -> list[asyncio.Task[None]]:
    """`count` live streams' queues on this loop (what /events holds), each drained as the
    stream would be: a write's publish after commit fans out to them."""
    from core.live import bus

    async def drain() -> None:
        sub = bus.subscribe(None)
        try:
            while True:
                await sub.queue.get()
        finally:
            bus.unsubscribe(sub)

    return [asyncio.get_running_loop().create_task(drain()) for _ in range(count)]


async def run(calls: int, tools: list[str], top: int, streams: int) -> None:
    import httpx2

    from relaybay_site.asgi import application

    key, bound, token = await setup()
    drains = await listeners(streams)
    args = Arguments(key, bound)
    bare_server, bare = bare_app()
    product = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=application), base_url="http://127.0.0.1:8765"
    )
    floor = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=bare), base_url="http://127.0.0.1:8765"
    )
    product.headers.update({**HEADERS, "Authorization": f"Bearer {token}"})
    floor.headers.update(HEADERS)
    async with bare_server.session_manager.run(), product, floor:
        await timed(floor, 50, "noop", args("noop"))
        for tool in tools:
            await timed(product, 20, tool, args(tool))
        rounds: dict[str, list[float]] = {"noop": [], **{tool: [] for tool in tools}}
        cpu = dict.fromkeys(rounds, 0.0)
        for _ in range(3):  # interleaved, so load on the machine hits every tool alike
            for tool in rounds:
                client = floor if tool == "noop" else product
                started = time.process_time()
                rounds[tool] += await timed(client, calls // 3, tool, args(tool))
                cpu[tool] += time.process_time() - started
        base = statistics.median(rounds["noop"]) * 1000
        base_cpu = cpu["noop"] / len(rounds["noop"]) * 1000
        print(f"in-process, {calls} calls each, load average {os.getloadavg()[0]:.2f}")
        print("  (CPU: the process's CPU time per call, both threads and the in-process client)")
        for name, samples in rounds.items():
            p50, used = statistics.median(samples) * 1000, cpu[name] / len(samples) * 1000
            print(
                f"  {name:<18} p50 {p50:6.2f} ms  ({p50 / base:.1f}× the bare no-op)  "
                f"CPU {used:5.2f} ms ({used / base_cpu:.1f}×)"
            )

        profiles = {}
        for tool in tools:
            prof = cProfile.Profile()
            prof.enable()
            await timed(product, calls, tool, args(tool))
            prof.disable()
            profiles[tool] = prof
    for drain in drains:
        drain.cancel()
    print_seams(profiles, calls)
    for tool, prof in profiles.items() if top else ():
        for order in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(prof, stream=out).strip_dirs().sort_stats(order).print_stats(top)
            print(f"\n=== {calls} {tool} calls, by {order} ===")
            print("\n".join(out.getvalue().splitlines()[: top + 12]))


def print_seams(profiles: dict[str, cProfile.Profile], calls: int) -> None:
    """One table: the seams' ms per call under the profiler, a column per tool."""
    per_tool = {
        tool: {label: (ms, n) for label, ms, n in seams(p, calls)} for tool, p in profiles.items()
    }
    print(f"\nSeams, cumulative ms per call under cProfile ({calls} calls; ×N = calls per write)")
    print("| seam | " + " | ".join(per_tool) + " |")
    print("|---|" + "---:|" * len(per_tool))
    for label, _suffix, _name in SEAMS:
        cells = []
        for found in per_tool.values():
            ms, n = found.get(label, (0.0, 0))
            cells.append(f"{ms:.2f} (×{n / 100:g})" if n else "–")
        if any(c != "–" for c in cells):
            print(f"| {label} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--tools", default=",".join((*WRITES, "task_get")))
    parser.add_argument("--top", type=int, default=0)
    parser.add_argument("--streams", type=int, default=50, help="live streams listening")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="relaybay-profile-") as home:
        os.environ["RELAYBAY_HOME"] = home
        os.environ["DJANGO_SETTINGS_MODULE"] = "relaybay_site.settings"
        import django

        django.setup()
        from core import tokens

        tokens.ensure_token(Path(home))
        asyncio.run(run(opts.calls, opts.tools.split(","), opts.top, opts.streams))


if __name__ == "__main__":
    main()
