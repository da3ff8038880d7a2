"""A write that finds SQLite's write lock taken waits off the event loop (core/on_loop.py),
and what an on-loop write leaves for after its answer is done by the server.

The MCP writes run on the loop's own thread while the lock is free. Here another
connection holds the lock, as a hook or a page writing would: the move must not hold the
loop while it waits (/healthz keeps answering), and once the lock is free it is written
once, with its usual answer. Through the real `relaybay serve` and MCP client.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
import urllib.request
from pathlib import Path

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


TIME_KINDS = ("task.created", "task.stage_changed", "task.updated")


def tally(home: Path, key: str) -> tuple[str, int, int] | None:
    """The task's kept stage and last stepped event, and its newest time event."""
    with sqlite3.connect(f"file:{home / 'relaybay.sqlite'}?mode=ro", uri=True) as db:
        return db.execute(
            "SELECT e.stage, e.event_id, (SELECT max(v.id) FROM tasks_event v WHERE "
            "v.task_id = t.id AND v.kind IN (?, ?, ?)) FROM tasks_task t "
            "JOIN agent_sessions_taskeffort e ON e.task_id = t.id WHERE t.key = ?",
            (*TIME_KINDS, key),
        ).fetchone()


def stepped(home: Path, key: str, stage: str) -> tuple[str, int, int] | None:
    """The tally once the server has taken its steps (it takes them after the answer, on
    the loop's next turns): polled, a few seconds at most."""
    deadline = time.monotonic() + 5
    found = tally(home, key)
    while time.monotonic() < deadline and not (
        found and found[0] == stage and found[1] == found[2]
    ):
        time.sleep(0.05)
        found = tally(home, key)
    return found


def test_the_steps_a_move_left_are_taken_after_its_answer(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> str:
        await new_project(agent, "later")
        key = await new_task(agent, "later")
        await agent.ok("task_set_stage", task=key, stage="dev")
        await agent.ok("task_set_stage", task=key, stage="review")
        return key

    key = run(server, scenario)
    stage, as_of, newest = stepped(server.home, key, "review")
    assert (stage, as_of) == ("review", newest)


def test_a_start_takes_the_steps_a_stop_left(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = RelaybayServer(home=home).start()
    try:
        key = run(first, lambda agent: _moved(agent))
        assert stepped(home, key, "dev")[0] == "dev"
    finally:
        first.stop()
    with sqlite3.connect(home / "relaybay.sqlite") as db:  # as if it stopped before the step
        db.execute(
            "UPDATE agent_sessions_taskeffort SET stage = 'plan', event_id = event_id - 1 "
            "WHERE task_id = (SELECT id FROM tasks_task WHERE key = ?)",
            (key,),
        )
    second = RelaybayServer(home=home).start()
    try:
        stage, as_of, newest = stepped(home, key, "dev")
    finally:
        second.stop()
    assert (stage, as_of) == ("dev", newest)


async def _moved(agent: Agent) -> str:
    await new_project(agent, "stopped")
    key = await new_task(agent, "stopped")
    await agent.ok("task_set_stage", task=key, stage="dev")
    return key
