"""Two commits side by side in one sitting: the hook round trip and the MCP writes.

A change to a write, a hook or an event observer shows its before/after here (the write path
once lost 1.6× without anyone measuring it). The other commit is checked out into a git
worktree of a temporary folder; each side seeds the demo with its own code and runs its own
`relaybay serve` (daphne) on it, and the rounds alternate the sides (A B B A …) so the drift
of a shared machine falls on both. Each round times, per side:

- hook PreToolUse: the captured Claude Code PreToolUse.Bash body naming no stand, one
  keep-alive connection (a new session per round);
- hook deny: the same call as `ssh prod-alias sudo systemctl restart app` (the demo's live
  stand, guard mode block: the guard decides and journals);
- hook PostToolUse: the captured body (coalesced inside the 5 s activity window);
- task_create, task_set_stage, task_update, report_add: through the official MCP client.

Prints each measure's p50 per side (median of the rounds' p50s) and the head ÷ other ratio
(median of the per-round ratios), and asserts nothing.
Run: .venv/bin/python bench/compare.py --against 9dac613 [--rounds 6] [--calls 60]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.claude_code import CLAUDE_CODE  # noqa: E402
from tests.support.mcp_client import mcp_client  # noqa: E402
from tests.support.server import RelaybayServer, clean_env  # noqa: E402

HOOK_BODIES = CLAUDE_CODE / "hooks"
STAGES = ("dev", "review", "test", "plan")


def checkout(commit: str, folder: Path) -> Path:
    """The commit's tree in a worktree of `folder` (removed again by `forget`)."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder), commit],
        check=True,
        capture_output=True,
    )
    return folder


def forget(folder: Path) -> None:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)],
        check=False,
        capture_output=True,
    )


def serve(code: Path, home: Path) -> RelaybayServer:
    """The demo seeded and served by the code of `code`."""
    subprocess.run(
        [sys.executable, "-m", "relaybay", "demo", "--home", str(home)],
        cwd=code,
        env=clean_env(),
        check=True,
        capture_output=True,
    )
    return RelaybayServer(home=home, cwd=code, seed=False).start(timeout=60)


def hook_times(server: RelaybayServer, body: dict[str, Any], calls: int) -> list[float]:
    """Seconds per POST /hooks/claude-code over one keep-alive connection."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {server.token}"}
    data = json.dumps(body)
    times = []
    try:
        for _ in range(calls):
            started = time.perf_counter()
            conn.request("POST", "/hooks/claude-code", body=data, headers=headers)
            conn.getresponse().read()
            times.append(time.perf_counter() - started)
    finally:
        conn.close()
    return times


def hook_body(name: str, **changes: Any) -> dict[str, Any]:
    return {**json.loads((HOOK_BODIES / f"{name}.json").read_text()), **changes}


async def _tool_times(server: RelaybayServer, calls: int) -> dict[str, list[float]]:
    """Seconds per call of each write tool, through one official client."""
    found: dict[str, list[float]] = {}
    async with mcp_client(server.base_url, server.token) as client:

        async def timed(tool: str, args: dict[str, Any]) -> str:
            started = time.perf_counter()
            result = await client.call_tool(tool, args)
            found.setdefault(tool, []).append(time.perf_counter() - started)
            text = "\n".join(getattr(b, "text", "") for b in result.content)
            if result.is_error:
                raise RuntimeError(f"{tool}: {text}")
            return text

        keys = []
        for i in range(calls):
            made = await timed("task_create", {"project": "acme-shop", "title": f"Bench {i}"})
            keys.append(made.split()[1])
        for i, key in enumerate(keys):
            await timed("task_set_stage", {"task": key, "stage": STAGES[i % len(STAGES)]})
        for i, key in enumerate(keys):
            await timed("task_update", {"task": key, "progress": f"step {i}"})
        for key in keys:
            await timed("report_add", {"task": key, "body": "Did the thing.", "session": "b"})
    return found


def one_round(server: RelaybayServer, calls: int) -> dict[str, float]:
    """The p50 (ms) of every measure on one side, once."""
    sid = str(uuid.uuid4())
    p50: dict[str, float] = {}
    measures: dict[str, Callable[[], list[float]]] = {
        "hook PreToolUse": lambda: hook_times(
            server, hook_body("PreToolUse.Bash", session_id=sid), calls
        ),
        "hook deny": lambda: hook_times(
            server,
            hook_body(
                "PreToolUse.Bash",
                session_id=sid,
                tool_input={"command": "ssh prod-alias sudo systemctl restart app"},
            ),
            calls,
        ),
        "hook PostToolUse": lambda: hook_times(
            server, hook_body("PostToolUse.Bash", session_id=sid), calls
        ),
    }
    for name, run in measures.items():
        p50[name] = statistics.median(run()) * 1000
    for tool, times in asyncio.run(_tool_times(server, calls)).items():
        p50[tool] = statistics.median(times) * 1000
    return p50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="the commit to compare HEAD's tree with")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--calls", type=int, default=60)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="relaybay-compare-") as tmp:
        other = checkout(opts.against, Path(tmp) / "other")
        try:
            sides = {
                "head": serve(ROOT, Path(tmp) / "home-head"),
                opts.against: serve(other, Path(tmp) / "home-other"),
            }
            try:
                rounds: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
                order = list(sides)
                for r in range(opts.rounds):
                    for side in order if r % 2 == 0 else reversed(order):
                        rounds[side].append(one_round(sides[side], opts.calls))
            finally:
                for server in sides.values():
                    server.stop()
        finally:
            forget(other)
    report(rounds, opts.against, opts.rounds, opts.calls)


def report(rounds: dict[str, list[dict[str, float]]], against: str, n: int, calls: int) -> None:
    head, other = rounds["head"], rounds[against]
    print(f"{n} rounds × {calls} calls per measure, sides alternating (A B B A …)")
    print(f"| measure | {against} p50 ms | head p50 ms | head ÷ {against} |")
    print("|---|---:|---:|---:|")
    for measure in head[0]:
        a = statistics.median(r[measure] for r in other)
        b = statistics.median(r[measure] for r in head)
        ratio = statistics.median(h[measure] / o[measure] for h, o in zip(head, other, strict=True))
        print(f"| {measure} | {a:.2f} | {b:.2f} | {ratio:.2f}× |")


if __name__ == "__main__":
    main()
