"""A write that finds SQLite's write lock taken waits off the event loop (core/on_loop.py).

The MCP writes run on the loop's own thread while the lock is free. Here another
connection holds the lock, as a hook or a page writing would: the move must not hold the
loop while it waits (/healthz keeps answering), and once the lock is free it is written
once, with its usual answer. Through the real `relaybay serve` and MCP client.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import urllib.request

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration


def healthz(server: RelaybayServer) -> dict:
    """/healthz with a short patience: a loop held by a waiting write would not answer."""
    with urllib.request.urlopen(server.base_url + "/healthz", timeout=2) as reply:
        return json.loads(reply.read())


def stage_events(server: RelaybayServer, key: str) -> int:
    with sqlite3.connect(f"file:{server.home / 'relaybay.sqlite'}?mode=ro", uri=True) as db:
        (count,) = db.execute(
            "SELECT count(*) FROM tasks_event e JOIN tasks_task t ON t.id = e.task_id "
            "WHERE t.key = ? AND e.kind = 'task.stage_changed'",
            (key,),
        ).fetchone()
    return count


def test_a_move_waits_for_a_held_lock_without_holding_the_loop(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "held")
        key = await new_task(agent, "held")
        version = await agent.version(key)
        holder = sqlite3.connect(server.home / "relaybay.sqlite", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # the write lock, as another writer holds it
        try:
            move = asyncio.create_task(
                agent.ok("task_set_stage", task=key, stage="dev", next_step="Build it")
            )
            for _ in range(3):  # the move has reached the server and waits meanwhile
                await asyncio.sleep(0.15)
                assert (await asyncio.to_thread(healthz, server))["status"] == "ok"
            assert not move.done(), "nothing can be written while the lock is held"
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        answer = await move
        assert answer.startswith(
            f"Moved {key} plan → dev; updated next_step (version {version + 1})."
        )
        assert await agent.version(key) == version + 1
        assert stage_events(server, key) == 1  # written once, not once per attempt
        # the loop's connection came out of the refused attempt whole: the next move is its
        assert (await agent.ok("task_set_stage", task=key, stage="review")).startswith(
            f"Moved {key} dev → review"
        )
        assert stage_events(server, key) == 2

    run(server, scenario)
