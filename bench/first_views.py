"""The first view of every page after a start (issue 40: each ≤ 100 ms), at a year of data.

For each page of bench/year.py's list: start `relaybay serve` on the seeded home, wait until
/healthz answers and then `--wait` seconds more (the warm-up thread builds the MCP server
and compiles the pages meanwhile), and time that page as the server's first request over a
new connection; stop the server. That is a page's worst first view: nothing before it
opened a page thread or its database connection. `--rounds` starts per page; the cell is
the median and the worst. Beside it, in one more start, every page in turn (each page's
first view after the others). Prints a table and asserts nothing.

Run: .venv/bin/python bench/first_views.py --home /tmp/year-home [--wait 10] [--rounds 2]
(seed the home first with bench/year.py --home …).
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ms, table
from year import facts, paths

from tests.support.server import RelaybayServer

TARGET_MS = 100.0


def first_get(server: RelaybayServer, path: str) -> float:
    """Seconds for one GET on a new connection; a non-200 answer is an error."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    began = time.perf_counter()
    conn.request("GET", path, headers={"Authorization": f"Bearer {server.token}"})
    response = conn.getresponse()
    response.read()
    elapsed = time.perf_counter() - began
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"GET {path}: {response.status}")
    return elapsed


def started(home: Path, wait: float) -> RelaybayServer:
    server = RelaybayServer(home=home, args=("--quiet-access-log",)).start(timeout=120)
    time.sleep(wait)
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--wait", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    opts = parser.parse_args()
    pages = [(label, path) for label, path in paths(facts(opts.home)) if path != "/healthz"]
    pages.insert(0, ("all boards (/)", "/"))
    alone: dict[str, list[float]] = {label: [] for label, _ in pages}
    for _ in range(opts.rounds):
        for label, path in pages:
            server = started(opts.home, opts.wait)
            try:
                alone[label].append(first_get(server, path))
            finally:
                server.stop()
    server = started(opts.home, opts.wait)
    try:
        in_turn = {label: first_get(server, path) for label, path in pages}
    finally:
        server.stop()
    rows = []
    for label, _ in pages:
        worst = max(alone[label])
        over = worst * 1000 > TARGET_MS or in_turn[label] * 1000 > TARGET_MS
        rows.append(
            (
                label,
                ms(statistics.median(alone[label])),
                ms(worst),
                ms(in_turn[label]),
                "MISSES" if over else "",
            )
        )
    title = (
        f"First views after a start at a year ({opts.rounds} starts a page, "
        f"{opts.wait:.0f} s after /healthz; target ≤ {TARGET_MS:.0f} ms)"
    )
    table(title, ("page", "first, median ms", "first, worst ms", "in turn ms", ""), rows)


if __name__ == "__main__":
    main()
