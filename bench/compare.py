"""Commits side by side in one sitting: the hook round trip and the MCP writes, each against
a bare MCP SDK no-op measured in the same run.

A change to a write, a hook or an event observer shows its before/after here (the write path
once lost 1.6× without anyone measuring it). Each other commit is checked out into a git
worktree of a temporary folder; each side seeds the demo with its own code and runs its own
`relaybay serve` (daphne) on it, and the rounds alternate the sides (A B C C B A …) so the
drift of a shared machine falls on all. Beside them runs the floor: a bare MCP SDK server
(stateless, JSON answers, one async no-op tool; bench/mcp_calls.py's, under the same daphne)
whose no-op is timed right before each side's writes in each round. Each round times, per
side:

- hook PreToolUse: the captured Claude Code PreToolUse.Bash body naming no stand, one
  keep-alive connection (a new session per round);
- hook deny: the same call as `ssh prod-alias sudo systemctl restart app` (the demo's live
  stand, guard mode block: the guard decides and journals);
- hook PostToolUse: the captured body (coalesced inside the 5 s activity window);
- the bare no-op, then task_create, task_set_stage, task_update, report_add and
  task_bind_session (a new binding of each created task: the answer carries its brief)
  through the official MCP client, one call after another;
- 8 clients at once moving their own tasks (task_set_stage) for --seconds, and 8 clients
  calling the bare no-op as long: calls per second.

Prints each measure's p50 per side (the median of the rounds' p50s) with its ratio to the
bare no-op (the median of the per-round ratios, each against the round's floor: the median
of the no-op's p50s timed before each side, as one bare server serves them all), the
8-client rates with theirs, and head ÷ each other commit (the median of the per-round
ratios); asserts nothing.
Run: .venv/bin/python bench/compare.py --against 9dac613 [--against d3d151d] [--head HEAD]
     [--rounds 6] [--calls 60] [--seconds 3]
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
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))

from _common import daphne_child  # noqa: E402

from tests.support.claude_code import CLAUDE_CODE  # noqa: E402
from tests.support.mcp_client import mcp_client  # noqa: E402
from tests.support.server import RelaybayServer, clean_env  # noqa: E402

HOOK_BODIES = CLAUDE_CODE / "hooks"
STAGES = ("dev", "review", "test", "plan")
WRITES = ("task_create", "task_set_stage", "task_update", "report_add", "task_bind_session")
CLIENTS = 8
BARE = "bare no-op"
MOVERS = f"{CLIENTS} clients, task_set_stage calls/s"
BARE_RATE = f"{CLIENTS} clients, bare no-op calls/s"


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


async def _noop_times(bare: Any, calls: int) -> list[float]:
    """Seconds per call of the bare SDK server's no-op, through the same official client."""
    times = []
    async with mcp_client(bare.base_url, "none") as client:
        for _ in range(calls):
            started = time.perf_counter()
            await client.call_tool("noop", {"task": "x"})
            times.append(time.perf_counter() - started)
    return times


async def _tool_times(server: RelaybayServer, calls: int) -> dict[str, list[float]]:
    """Seconds per call of each write tool, through one official client."""
    found: dict[str, list[float]] = {}
    round_id = uuid.uuid4().hex[:6]
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
        for key in keys:
            await timed("task_bind_session", {"task": key, "session": f"bench-{round_id}"})
    return found


async def _rate(
    base_url: str, token: str, call: Callable[[Any, int, int], Any], secs: float
) -> tuple[float, list[str]]:
    """Calls per second of CLIENTS clients calling at once for `secs`, and their errors."""
    deadline = time.perf_counter() + secs
    errors: list[str] = []

    async def worker(n: int) -> int:
        count = 0
        async with mcp_client(base_url, token) as client:
            while time.perf_counter() < deadline:
                result = await call(client, n, count)
                if result.is_error:
                    errors.append("\n".join(getattr(b, "text", "") for b in result.content))
                count += 1
        return count

    started = time.perf_counter()
    counts = await asyncio.gather(*(worker(n) for n in range(CLIENTS)))
    return sum(counts) / (time.perf_counter() - started), errors


async def _movers(server: RelaybayServer, secs: float) -> tuple[float, list[str]]:
    """CLIENTS clients, each moving a task of its own (made first) through the stages."""
    async with mcp_client(server.base_url, server.token) as client:
        keys = []
        for n in range(CLIENTS):
            made = await client.call_tool("task_create", {"project": "acme-shop", "title": f"M{n}"})
            keys.append(made.content[0].text.split()[1])

    def move(client: Any, n: int, count: int) -> Any:
        args = {"task": keys[n], "stage": STAGES[count % len(STAGES)], "session": f"m{n}"}
        return client.call_tool("task_set_stage", args)

    return await _rate(server.base_url, server.token, move, secs)


def one_round(server: RelaybayServer, bare: Any, calls: int, secs: float) -> dict[str, float]:
    """Every measure of one side, once: p50s in ms, rates in calls/s, and the ratios to the
    bare no-op timed right before (`<measure> ÷ bare`)."""
    sid = str(uuid.uuid4())
    found: dict[str, float] = {}
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
        found[name] = statistics.median(run()) * 1000
    bare_p50 = statistics.median(asyncio.run(_noop_times(bare, calls))) * 1000
    found[BARE] = bare_p50
    for tool, times in asyncio.run(_tool_times(server, calls)).items():
        found[tool] = statistics.median(times) * 1000
        found[f"{tool} ÷ bare"] = found[tool] / bare_p50
    rate, errors = asyncio.run(_movers(server, secs))
    noop = lambda client, _n, _c: client.call_tool("noop", {"task": "x"})  # noqa: E731
    bare_rate, _ = asyncio.run(_rate(bare.base_url, "none", noop, secs))
    found[MOVERS], found[BARE_RATE] = rate, bare_rate
    found[f"{MOVERS} ÷ bare"] = rate / bare_rate
    found["errors"] = len(errors)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--against", required=True, action="append", help="a commit to compare HEAD's tree with"
    )
    parser.add_argument(
        "--head",
        help="a commit to measure as head (default: this working tree, uncommitted changes "
        "and all; name HEAD to leave out what others are editing in the same checkout)",
    )
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=3.0)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="relaybay-compare-") as tmp, ExitStack() as stack:
        sides = {"head": ROOT}
        if opts.head:
            sides["head"] = checkout(opts.head, Path(tmp) / "head")
            stack.callback(forget, sides["head"])
        for n, commit in enumerate(opts.against):
            sides[commit] = checkout(commit, Path(tmp) / f"other-{n}")
            stack.callback(forget, sides[commit])
        servers: dict[str, RelaybayServer] = {}
        for n, (side, code) in enumerate(sides.items()):
            servers[side] = serve(code, Path(tmp) / f"home-{n}")
            stack.callback(servers[side].stop)
        bare = stack.enter_context(daphne_child(ROOT / "bench" / "mcp_calls.py", "--bare-mcp"))
        rounds: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
        order = list(sides)
        asyncio.run(_noop_times(bare, opts.calls))  # warm: the first side's floor is no colder
        for r in range(opts.rounds):
            for side in order if r % 2 == 0 else reversed(order):
                rounds[side].append(one_round(servers[side], bare, opts.calls, opts.seconds))
            pool_the_floor(rounds, r)
    report(rounds, opts)


def pool_the_floor(rounds: dict[str, list[dict[str, float]]], r: int) -> None:
    """Each side's ratios in round r against the floor of the whole round (the median of the
    bare no-op's p50s timed before each side): one bare server serves every side, and one
    side's timing of it drifted up to 1.3× from the other's in a sitting."""
    floor = statistics.median(rounds[side][r][BARE] for side in rounds)
    for side in rounds:
        found = rounds[side][r]
        for tool in WRITES:
            found[f"{tool} ÷ bare"] = found[tool] / floor


def report(rounds: dict[str, list[dict[str, float]]], opts: argparse.Namespace) -> None:
    """One table: per side the p50 (or rate) and its ratio to the bare no-op; head ÷ each."""
    sides, others = list(rounds), list(rounds)[1:]
    med = lambda side, key: statistics.median(r[key] for r in rounds[side])  # noqa: E731
    print(
        f"{opts.rounds} rounds × {opts.calls} calls per measure, {CLIENTS} clients × "
        f"{opts.seconds:g} s, sides alternating; the bare no-op timed before each side's writes, "
        "each round's ratios against the median of its no-op timings"
    )
    head = "| measure | " + " | ".join(f"{s} p50 ms (÷ bare)" for s in sides)
    head += "".join(f" | head ÷ {o}" for o in others) + " |"
    print(head)
    print("|---|" + "---:|" * (len(sides) + len(others)))
    names = [m for m in rounds["head"][0] if "÷" not in m and m not in (BARE_RATE, "errors")]
    for measure in names:
        cells = []
        for side in sides:
            cell = f"{med(side, measure):.{0 if measure == MOVERS else 2}f}"
            if f"{measure} ÷ bare" in rounds[side][0]:
                cell += f" ({med(side, f'{measure} ÷ bare'):.2f}×)"
            cells.append(cell)
        for other in others:
            pairs = zip(rounds["head"], rounds[other], strict=True)
            cells.append(f"{statistics.median(h[measure] / o[measure] for h, o in pairs):.2f}×")
        print(f"| {measure} | " + " | ".join(cells) + " |")
    rates = " · ".join(f"{s} {med(s, BARE_RATE):.0f}" for s in sides)
    errors = " · ".join(f"{s} {sum(r['errors'] for r in rounds[s]):.0f}" for s in sides)
    print(f"\n{BARE_RATE} (measured after each side's movers): {rates}")
    print(f"task_set_stage errors from the {CLIENTS} clients, all rounds: {errors}")


if __name__ == "__main__":
    main()
