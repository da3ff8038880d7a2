"""A year of use (issue 33): every page, fragment and MCP read tool at 20,000 tasks, a million
events and 50,000 memory items, and how long `relaybay serve` takes to answer /healthz.

1. Seed a data folder once (bench/_year_seed.py, in a child process with the server's
   settings; with --home DIR it is kept and reused, and an interrupted seeding continues):
   10 projects × 2,000 tasks through the services (done ones closed over the year), three
   stands, 500 sessions with bindings, one task with 2,000 events, 50,000 memory items
   (documents with versions, decisions and notes with supersede chains) with their search
   index, and the log topped up to 1,000,000 events of the usual mix (bench/_year_bulk.py).
2. Time the start: `relaybay serve` spawned until /healthz answers (polled every 10 ms),
   three times.
3. Start a server and time GET requests over one keep-alive connection as
   bench/board_render.py does (the /healthz floor in the same run, the server's CPU time
   per request from /proc, the body's size): the board, Activity with every filter, the
   Inbox, Sessions, the busy task's page and dialog, Docs & rules and its search, Stands &
   access, Settings → Policy and Storage, the Effort page, its region and its CSV.
4. Time every MCP read tool through the official client against a bare MCP SDK server's
   no-op tool under the same daphne, started in the same run (bench/mcp_calls.py's), each
   tool call paired with a no-op call right before it.
5. Print the database's size, the event count and bytes per event.

Targets (issue 33): each page p95 ≤ 100 ms and ≤ 300 KiB; each read tool p95 ≤ 3× the bare
no-op's p95; /healthz ≤ 1.5 s after the start. Prints tables and asserts nothing.
Run: .venv/bin/python bench/year.py [N] --home /tmp/relaybay-year (N requests a row,
default 40; the first seeding takes 15–30 minutes on a 2-CPU machine).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import closing
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import daphne_child, kept_home, ms, percentile, seed_in_child, table
from board_render import cpu_seconds, timed

from tests.support.mcp_client import mcp_client, text_of
from tests.support.server import RelaybayServer, clean_env

HERE = Path(__file__).resolve().parent
REQUESTS = 40
TARGET_MS = 100.0
BOUND_KIB = 300
TOOL_RATIO = 3.0
START_TARGET_S = 1.5


def seed(home: Path) -> None:
    """Seed `home` in a child with the server's settings (see the module doc)."""
    seed_in_child(__file__, home)


def facts(home: Path) -> dict[str, Any]:
    """What the paths need, read from the database directly (read-only)."""
    uri = f"file:{home / 'relaybay.sqlite'}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as db:
        one = lambda sql, *a: db.execute(sql, a).fetchone()  # noqa: E731
        newest = one("SELECT max(id) FROM tasks_event")[0]
        busy = one(
            "SELECT t.key FROM tasks_task t JOIN tasks_event e ON e.task_id = t.id "
            "GROUP BY t.id ORDER BY count(*) DESC LIMIT 1"
        )[0]
        doc = one(
            "SELECT d.name FROM memory_document d JOIN tasks_project p ON p.id = d.project_id "
            "WHERE p.slug = 'year-0' ORDER BY d.id LIMIT 1"
        )[0]
        events = one("SELECT count(*) FROM tasks_event")[0]
        busy_events = one(
            "SELECT count(*) FROM tasks_event WHERE task_id = "
            "(SELECT id FROM tasks_task WHERE key = ?)",
            busy,
        )[0]
        try:
            event_bytes = one("SELECT sum(pgsize) FROM dbstat WHERE name LIKE '%event%'")[0]
        except sqlite3.Error:
            event_bytes = None
        # Pages a migration's dropped index freed: kept in the file, reused by new rows.
        free = one("PRAGMA freelist_count")[0] * one("PRAGMA page_size")[0]
    size = sum(p.stat().st_size for p in home.glob("relaybay.sqlite*") if p.suffix != ".shm")
    return {
        "newest": newest,
        "busy": busy,
        "busy_events": busy_events,
        "doc": doc,
        "events": events,
        "size": size,
        "event_bytes": event_bytes,
        "free": free,
    }


def paths(f: dict[str, Any]) -> list[tuple[str, str]]:
    p, key, old = "year-0", f["busy"], f["newest"] // 50
    status = "session.status_changed"
    return [
        ("floor: /healthz", "/healthz"),
        ("board page 1", f"/p/{p}"),
        ("board page 2", f"/p/{p}?page=2"),
        ("board search", f"/p/{p}?q=checkout"),
        ("board page 2, archived", f"/p/{p}?page=2&archived=1"),
        ("board columns fragment", f"/p/{p}/board/columns"),
        ("board column after Show more", f"/p/{p}/board/column/plan?shown_plan=100"),
        ("card fragment", f"/p/{p}/card/{key}"),
        ("activity", "/activity"),
        ("activity ?project", f"/activity?project={p}"),
        ("activity ?project (quiet one)", "/activity?project=year-9"),
        ("activity ?kind", "/activity?kind=report.added"),
        ("activity ?project&kind", f"/activity?project={p}&kind=report.added"),
        ("activity ?kind=rare", "/activity?kind=document.updated"),
        ("activity ?project&kind=rare", "/activity?project=year-9&kind=live.action"),
        ("activity ?kind=status (hidden)", f"/activity?kind={status}"),
        ("activity ?project&kind=status", f"/activity?project={p}&kind={status}"),
        ("activity paged far back", f"/activity?before={old}"),
        ("activity ?project paged far back", f"/activity?project={p}&before={old}"),
        ("activity rows, live after", f"/activity/rows?after={f['newest'] - 30}"),
        ("activity rows ?project, Load more", f"/activity/rows?project={p}&before={old}"),
        ("activity live-actions block", f"/activity/live-actions?project={p}"),
        ("inbox", "/inbox"),
        ("inbox groups fragment", "/inbox/groups"),
        ("inbox badge", "/inbox/badge"),
        ("inbox group after Show more", "/inbox/group/waiting-on-you?shown_waiting-on-you=100"),
        ("sessions", "/sessions"),
        ("project sessions", f"/p/{p}/sessions"),
        (f"task page ({f['busy_events']} events)", f"/t/{key}"),
        ("task dialog", f"/p/{p}/t/{key}/dialog"),
        ("task comments thread", f"/p/{p}/t/{key}/comments/thread"),
        ("docs & rules", f"/p/{p}/docs"),
        ("docs & rules search", f"/p/{p}/docs?q=deploy+cache"),
        ("docs lists fragment", f"/p/{p}/docs/_lists"),
        ("a document", f"/p/{p}/docs/{f['doc']}"),
        ("stands & access", f"/p/{p}/environments"),
        ("settings → policy", "/settings/policy"),
        ("settings → storage", "/settings/storage"),
        ("effort", f"/p/{p}/effort"),
        ("effort, all time by agent time", f"/p/{p}/effort?range=all&sort=agent"),
        ("effort, done, all time", f"/p/{p}/effort?stage=done&range=all"),
        ("effort region (live refresh)", f"/p/{p}/effort/region"),
        ("effort.csv, all time (a download)", f"/p/{p}/effort.csv?range=all"),
        ("projects", "/"),
    ]


def time_pages(server: RelaybayServer, f: dict[str, Any], count: int) -> list[tuple]:
    rows = []
    for label, path in paths(f):
        try:
            samples, size, cpu = timed(server, path, count)
        except RuntimeError as exc:  # a page this version has not got (404)
            rows.append((label, "—", "—", "—", "—", str(exc).rsplit(":", 1)[-1].strip()))
            continue
        p95 = percentile(samples, 95) * 1000
        # A download (the CSV) is every row by design: its size is not a page's bound.
        bounded = "download" not in label
        over = p95 > TARGET_MS or (bounded and size / 1024 > BOUND_KIB)
        rows.append(
            (
                label,
                ms(statistics.median(samples)),
                ms(percentile(samples, 95)),
                "   n/a" if cpu is None else ms(cpu),
                f"{size / 1024:6.0f}",
                "MISSES" if over and not label.startswith("floor") else "",
            )
        )
    return rows


TOOLS = [
    ("events_since", lambda f: {"after_id": f["newest"] - 100}),
    ("events_since ?project", lambda f: {"after_id": f["newest"] - 5000, "project": "year-9"}),
    ("events_since ?project, from 0", lambda f: {"after_id": 0, "project": "year-9"}),
    ("task_list ?query", lambda f: {"project": "year-0", "query": "checkout"}),
    ("task_list", lambda f: {"project": "year-0"}),
    ("task_get", lambda f: {"task": f["busy"]}),
    ("project_snapshot", lambda f: {"project": "year-0"}),
    ("memory_search", lambda f: {"query": "deploy cache", "project": "year-0"}),
    ("memory_search everywhere", lambda f: {"query": "rollback schema"}),
    ("decision_list", lambda f: {"project": "year-0"}),
    ("decision_list ?query", lambda f: {"project": "year-0", "query": "backup"}),
    ("doc_list", lambda f: {"project": "year-0"}),
    ("comments_list ?task", lambda f: {"task": f["busy"]}),
    ("comments_list ?project", lambda f: {"project": "year-0"}),
]


async def one_call(client: Any, tool: str, args: dict) -> tuple[float, str]:
    began = time.perf_counter()
    result = await client.call_tool(tool, args)
    elapsed = time.perf_counter() - began
    if result.is_error:
        raise RuntimeError(f"{tool}: {text_of(result)[:200]}")
    return elapsed, text_of(result)


async def paired_times(
    bare: Any, client: Any, tool: str, args: dict, count: int
) -> tuple[list[float], list[float], int]:
    """Each call of the tool right after a call of the bare no-op: a load that comes and goes
    while the tools run (another process on a 2-CPU machine) meets the floor and the tool
    alike, as bench/mcp_profile.py interleaves its rounds. The first five pairs warm up."""
    floor, samples, size = [], [], 0
    for n in range(count + 5):
        bare_took, _ = await one_call(bare, "noop", {"task": "x"})
        took, text = await one_call(client, tool, args)
        if n >= 5:
            floor.append(bare_took)
            samples.append(took)
            size = len(text.encode())
    return floor, samples, size


async def time_tools(server: RelaybayServer, bare: Any, f: dict, count: int) -> list[tuple]:
    rows, floors = [], []
    async with (
        mcp_client(bare.base_url, "none") as floor_client,
        mcp_client(server.base_url, server.token) as client,
    ):
        for label, args in TOOLS:
            tool = label.split()[0].rstrip(",")
            cpu_start = cpu_seconds(server.proc.pid)
            floor, samples, size = await paired_times(floor_client, client, tool, args(f), count)
            cpu_end = cpu_seconds(server.proc.pid)
            cpu = None if cpu_start is None else (cpu_end - cpu_start) / (count + 5)
            floors += floor
            ratio = percentile(samples, 95) / percentile(floor, 95)
            rows.append(
                (
                    label,
                    ms(statistics.median(samples)),
                    ms(percentile(samples, 95)),
                    "   n/a" if cpu is None else ms(cpu),
                    f"{size / 1024:6.1f}",
                    ms(percentile(floor, 95)),
                    f"{ratio:.1f}×",
                    "MISSES" if ratio > TOOL_RATIO else "",
                )
            )
    p50, p95 = ms(statistics.median(floors)), ms(percentile(floors, 95))
    return [("floor: bare SDK no-op (all pairs)", p50, p95, "", "", p95, "1.0×", ""), *rows]


def compile_bytecode() -> None:
    """`make bytecode`: an installed relaybay has its bytecode, so its start compiles nothing
    (where PYTHONDONTWRITEBYTECODE is set, a checkout would compile ~200 modules each time)."""
    packages = "relaybay core relaybay_site tasks plans reviews sessions environments policy memory"
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "-j", "0", *packages.split()],
        cwd=HERE.parent,
        check=True,
    )


def start_seconds(home: Path) -> float:
    """From spawning `relaybay serve` on `home` to its first /healthz 200, polled every 10 ms."""
    server = RelaybayServer(home=home, args=("--quiet-access-log",))
    env = clean_env(RELAYBAY_HOME=str(home))
    began = time.perf_counter()
    server.proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "relaybay",
            "serve",
            "--port",
            str(server.port),
            "--quiet-access-log",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        while time.perf_counter() - began < 120:
            try:
                with urllib.request.urlopen(server.base_url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return time.perf_counter() - began
            except OSError:
                time.sleep(0.01)
        raise RuntimeError("relaybay serve did not answer /healthz in 120 s")
    finally:
        server.stop()


def main(argv: list[str]) -> None:
    keep, count = kept_home(argv, REQUESTS)
    with tempfile.TemporaryDirectory(prefix="relaybay-bench-year-") as tmp:
        home = keep or Path(tmp) / "home"
        home.mkdir(parents=True, exist_ok=True)
        seed(home)
        compile_bytecode()
        starts = [start_seconds(home) for _ in range(3)]
        f = facts(home)
        server = RelaybayServer(home=home, args=("--quiet-access-log",)).start(timeout=120)
        try:
            pages = time_pages(server, f, count)
            with daphne_child(HERE / "mcp_calls.py", "--bare-mcp") as bare:
                tools = asyncio.run(time_tools(server, bare, f, count))
        finally:
            server.stop()
        report(f, starts, pages, tools, count)


def report(f: dict, starts: list[float], pages: list, tools: list, count: int) -> None:
    load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    table(
        f"A year of use: pages and fragments ({count} requests each, one keep-alive "
        f"connection; {load})",
        ("request", "median ms", "p95 ms", "server CPU ms/req", "KiB", ""),
        pages,
    )
    table(
        f"MCP read tools through the official client ({count} calls each, each right after "
        "a call of the bare no-op)",
        (
            "tool",
            "median ms",
            "p95 ms",
            "server CPU ms/call",
            "KiB",
            "paired bare p95 ms",
            "p95 / bare p95",
            "",
        ),
        tools,
    )
    events, size = f["events"], f["size"]
    per_event = f"{f['event_bytes'] / events:.0f} B" if f["event_bytes"] else "n/a"
    free = f", of which {f['free'] / 2**20:.0f} MiB free pages" if f["free"] else ""
    print(
        f"\nDatabase: {size / 2**20:.0f} MiB{free} for {events:,} events ({size / events:.0f} B "
        f"per event, all tables; the log and its indexes alone {per_event} per event)."
    )
    verdict = "meets" if max(starts) <= START_TARGET_S else "MISSES"
    print(
        "Start to /healthz: "
        + ", ".join(f"{s:.2f} s" for s in starts)
        + f" — {verdict} the {START_TARGET_S} s target."
    )


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--seed":
        sys.path.insert(0, str(HERE.parent))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "relaybay_site.settings")
        from _year_seed import seed as seed_child

        seed_child(Path(sys.argv[2]))
    else:
        main(sys.argv[1:])
