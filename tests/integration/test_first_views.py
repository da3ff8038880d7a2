"""`serve`'s warm-up opens the board's main pages once, before a person does
(relaybay_site/first_views.py), and only reads: the database is as it was.

A home with a project, a task with a report, a comment and a session is made through the
real MCP client and the board; the server is stopped and the database read whole; a
second start opens the pages (counted in /api/stats) and, stopped again, leaves every
table's rows exactly as they were.
"""

from __future__ import annotations

import json
import sqlite3
import time
import urllib.request
from contextlib import closing
from pathlib import Path

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

# /, the Inbox and its badge, activity, sessions, two settings pages; the project's board,
# sessions, docs, stands and effort; the newest task's page (first_views.paths)
PAGES = 13


def stats(server: RelaybayServer) -> dict:
    request = urllib.request.Request(
        server.base_url + "/api/stats", headers={"Authorization": f"Bearer {server.token}"}
    )
    with urllib.request.urlopen(request, timeout=5) as reply:
        return json.loads(reply.read())


def every_row(home: Path) -> dict[str, list[tuple]]:
    with closing(sqlite3.connect(home / "relaybay.sqlite")) as db:
        tables = [
            name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        return {t: sorted(map(repr, db.execute(f'SELECT * FROM "{t}"'))) for t in tables}


def warmed(server: RelaybayServer, patience_s: float = 60) -> int:
    """pages_warmed once the warm-up has opened every page (it opens them one by one)."""
    deadline = time.monotonic() + patience_s
    while (count := stats(server)["pages_warmed"]) < PAGES and time.monotonic() < deadline:
        time.sleep(0.2)
    return count


def test_the_warm_up_opens_the_main_pages_and_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = RelaybayServer(home=home).start()
    try:

        async def scenario(agent: Agent) -> None:
            await new_project(agent, "warm")
            key = await new_task(agent, "warm", title="Checkout")
            await agent.ok("task_set_stage", task=key, stage="dev", next_step="Build it")
            await agent.ok("report_add", task=key, body="Done · S · the cart works")

        run(first, scenario)
    finally:
        first.stop()
    before = every_row(home)

    second = RelaybayServer(home=home).start()
    try:
        assert warmed(second) == PAGES
    finally:
        second.stop()
    assert every_row(home) == before
