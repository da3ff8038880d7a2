"""Where one MCP `task_set_stage` call spends its time on the server (issue 18).

In-process, no socket: the outer ASGI app (relaybay_site.asgi) driven by httpx2's
ASGITransport with the JSON-RPC body the official client sends, so the figures are the
server's own work. Beside it, in the same run, a bare MCP SDK server (the same
MCPServer class, stateless JSON, one no-op tool) driven the same way: the floor. Then
cProfile over N calls: the event loop (transport, SDK, pydantic, relaybay's call_tool)
and Django's sync thread, where sync_to_async runs the service and its answer (Python
3.12's cProfile sees every thread). Figures are printed, never asserted.

Run: .venv/bin/python bench/mcp_profile.py [--calls 300] [--top 25]
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "Host": "127.0.0.1:8765",
    "MCP-Protocol-Version": "2025-06-18",
}


def body(n: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


async def timed(client: Any, calls: int, tool: str, args: Any) -> list[float]:
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


def stages(key: str) -> Any:
    order = ["dev", "review", "test", "dev"]
    return lambda n: {"task": key, "stage": order[n % 4], "session": "bench"}


async def run(calls: int, top: int) -> None:
    import httpx2
    from asgiref.sync import sync_to_async
    from django.core.management import call_command

    from core.security import current_token
    from relaybay_site.asgi import application
    from tasks import services

    await sync_to_async(call_command)("migrate", verbosity=0)
    await sync_to_async(services.project_upsert)(slug="bench", actor="bench")
    task = await sync_to_async(services.task_create)(
        project="bench", title="Benchmark task", description="x" * 2000, actor="bench"
    )
    key = task.obj.key
    token = await sync_to_async(current_token)()
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}

    bare_server, bare = bare_app()
    product = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=application), base_url="http://127.0.0.1:8765"
    )
    floor = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=bare), base_url="http://127.0.0.1:8765"
    )
    product.headers.update(auth)
    floor.headers.update(HEADERS)
    async with bare_server.session_manager.run(), product, floor:
        await timed(floor, 50, "noop", lambda n: {"task": key})
        await timed(product, 50, "task_set_stage", stages(key))
        rounds: dict[str, list[float]] = {"noop": [], "task_set_stage": [], "task_get": []}
        for _ in range(3):  # interleaved, so load on the machine hits both alike
            rounds["noop"] += await timed(floor, calls // 3, "noop", lambda n: {"task": key})
            rounds["task_set_stage"] += await timed(
                product, calls // 3, "task_set_stage", stages(key)
            )
            rounds["task_get"] += await timed(
                product, calls // 3, "task_get", lambda n: {"task": key}
            )
        base = statistics.median(rounds["noop"]) * 1000
        print(f"in-process, {calls} calls each, load average {os.getloadavg()[0]:.2f}")
        for name, samples in rounds.items():
            p50 = statistics.median(samples) * 1000
            print(f"  {name:<16} p50 {p50:6.2f} ms  ({p50 / base:.1f}× the bare no-op)")

        # Python 3.12's cProfile sits on sys.monitoring, which sees every thread: one
        # profiler covers the event loop and Django's sync thread alike.
        prof = cProfile.Profile()
        prof.enable()
        await timed(product, calls, "task_set_stage", stages(key))
        prof.disable()
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).strip_dirs().sort_stats(order).print_stats(top)
        print(f"\n=== {calls} task_set_stage calls, by {order} ===")
        print("\n".join(out.getvalue().splitlines()[: top + 12]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="relaybay-profile-") as home:
        os.environ["RELAYBAY_HOME"] = home
        os.environ["DJANGO_SETTINGS_MODULE"] = "relaybay_site.settings"
        import django

        django.setup()
        from core import tokens

        tokens.ensure_token(Path(home))
        asyncio.run(run(args.calls, args.top))


if __name__ == "__main__":
    main()
