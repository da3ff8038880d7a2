"""The server's RSS through the bad-input corpus, peak and not only the end (issue 40).

Starts a real `relaybay serve` (throwaway data folder), samples /proc/<pid>/status VmRSS
every 10 ms in a thread, and makes the calls `tests/integration/test_bad_input_corpus.py`
makes (every tool × every bad argument, four at a time, through the official client).
Prints the baseline (after start and tools/list, before the corpus), the peak with the
calls in flight at that moment, and the RSS at the end. Target (docs/architecture.md §10):
RSS ≤ 150 MiB, peak included. Prints figures, asserts nothing.
Run: .venv/bin/python bench/rss_corpus.py [--rounds N] [--code DIR]
     (--code: serve another checkout's code, e.g. `git worktree add DIR <commit>`)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT

from tests.integration.mcp_agent import Agent, new_project, new_task
from tests.integration.test_bad_input_corpus import cases
from tests.support.mcp_client import mcp_client
from tests.support.server import RelaybayServer

SAMPLE_SECONDS = 0.01


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Sampler:
    """VmRSS of `pid` every 10 ms in a daemon thread: (monotonic time, MiB) pairs."""

    def __init__(self, pid: int) -> None:
        self.pid, self.samples = pid, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append((time.monotonic(), rss_mib(self.pid)))
            time.sleep(SAMPLE_SECONDS)

    def between(self, start: float, end: float) -> list[float]:
        return [mib for at, mib in self.samples if start <= at <= end]


async def corpus(base_url: str, token: str, slug: str, spans: list) -> int:
    """Every call of the corpus's first test, four at a time; (label, start, end) per call."""
    async with mcp_client(base_url, token) as client:
        agent = Agent(client)
        await new_project(agent, slug)
        key = await new_task(agent, slug)
        tools = (await client.list_tools()).tools
        calls = [(tool.name, *case) for tool in tools for case in cases(tool, key)]
        gate = asyncio.Semaphore(4)

        async def call(tool: str, what: str, args: dict[str, Any], _names: Any) -> None:
            async with gate:
                start = time.monotonic()
                try:
                    await client.call_tool(tool, args)
                finally:
                    spans.append((f"{tool}: {what}", start, time.monotonic()))

        await asyncio.gather(*(call(*c) for c in calls))
        return len(calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="corpus runs on one server")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout to serve")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="relaybay-bench-") as tmp:
        server = RelaybayServer(home=Path(tmp) / "home", cwd=args.code.resolve()).start()
        try:
            measure(server, args.rounds)
        finally:
            server.stop()


def measure(server: RelaybayServer, rounds: int) -> None:
    """The corpus `rounds` times on one server, sampled all along."""
    assert server.proc is not None
    with Sampler(server.proc.pid) as sampler:
        time.sleep(1.0)
        for n in range(rounds):
            quiet = time.monotonic()
            time.sleep(1.0)
            baseline = statistics.median(sampler.between(quiet, time.monotonic()))
            spans: list[tuple[str, float, float]] = []
            start = time.monotonic()
            count = asyncio.run(corpus(server.base_url, server.token, f"rss{n}", spans))
            end = time.monotonic()
            time.sleep(1.0)
            during = [(at, mib) for at, mib in sampler.samples if start <= at <= end]
            peak_at, peak = max(during, key=lambda s: s[1])
            after = statistics.median(sampler.between(end + 0.5, end + 1.0))
            print(
                f"round {n + 1}: {count} calls in {end - start:.1f} s, {len(during)} samples; "
                f"baseline {baseline:.1f} MiB, peak {peak:.1f} MiB, after {after:.1f} MiB"
            )
            busy = [label for label, s, e in spans if s - 0.05 <= peak_at <= e + 0.05]
            print(f"  in flight at the peak: {', '.join(busy[:6]) or '-'}")
            rest = [mib for at, mib in during if abs(at - peak_at) > 0.5]
            if rest:
                print(f"  highest more than 0.5 s from the peak: {max(rest):.1f} MiB")


if __name__ == "__main__":
    main()
