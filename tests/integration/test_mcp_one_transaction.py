"""One transaction per write (§2): a refused MCP write changes nothing — not even who was
seen. The caller (`session`, `hook_session`) is resolved inside the service's transaction,
so a strict-rules refusal or a stale expected_version leaves the session table and the
event log exactly as they were. Through the real `relaybay serve` and MCP client."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

TABLES = ("agent_sessions_session", "agent_sessions_sessionalias", "tasks_event", "tasks_task")


def rows(server: RelaybayServer) -> dict[str, list[tuple[Any, ...]]]:
    uri = f"file:{server.home / 'relaybay.sqlite'}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True, timeout=5)) as db:
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in TABLES}


def test_refused_writes_leave_sessions_and_the_event_log_unchanged(tmp_path: Path) -> None:
    strict = RelaybayServer(home=tmp_path / "home", env={"RELAYBAY_RULES_MODE": "strict"})
    strict.start()
    try:

        async def scenario(agent: Agent) -> None:
            await new_project(agent, "refused")
            key = await new_task(agent, "refused", next_step="look")
            before = rows(strict)
            assert before["agent_sessions_session"], "the setup calls made session tester"

            # strict rules: a move to dev without a plan is refused
            for who in ("tester", "newcomer"):
                text = await agent.err(
                    "task_set_stage", task=key, stage="dev", session=who, hook_session="cc-1"
                )
                assert text.endswith("Nothing changed.")
                assert rows(strict) == before

            # a stale expected_version is refused
            for who in ("tester", "another-newcomer"):
                text = await agent.err(
                    "task_update", task=key, expected_version=7, progress="x", session=who
                )
                assert "is at version 1, not 7" in text
                assert rows(strict) == before

            # the same caller on an accepted write is seen, in that write's transaction
            await agent.ok("task_update", task=key, progress="x", session="newcomer")
            after = rows(strict)
            names = [r for r in after["agent_sessions_session"] if "newcomer" in r]
            assert names, "an accepted write creates its session"
            assert len(after["tasks_event"]) > len(before["tasks_event"])

        run(strict, scenario)
    finally:
        strict.stop()


# A write tool of each other group with an argument its service refuses. Every call names
# a new session and a hook_session: a refused write may write neither.
REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("comment_add", {"body": " "}, "body is empty"),
    ("comment_add", {"body": "hi", "in_reply_to": 999}, "is not on"),
    ("comment_ack", {"comment_ids": [999]}, "Unknown comment #999"),
    ("plan_set", {"steps": [{"title": " "}]}, "has no title"),
    ("plan_step_update", {"step": 4, "status": "done"}, "has no plan yet"),
    ("plan_accept", {}, "has no plan to accept"),
    ("review_steps_set", {"steps": [{"title": " "}]}, "has no title"),
    ("review_step_update", {"step": 4, "status": "open"}, "has no Owner check yet"),
    ("attach_file", {"content_base64": "aGVsbG8="}, "is not a PNG"),
    ("task_unbind_session", {"reason": "x" * 300}, "reason is at most"),  # the service: 200
]


def test_refused_writes_of_every_group_leave_sessions_and_the_event_log_unchanged(
    tmp_path: Path,
) -> None:
    server = RelaybayServer(home=tmp_path / "home")
    server.start()
    try:

        async def scenario(agent: Agent) -> None:
            await new_project(agent, "groups")
            key = await new_task(agent, "groups")
            before = rows(server)
            for n, (tool, args, says) in enumerate(REFUSED):
                who = {"session": f"newcomer-{n}", "hook_session": f"cc-{n}"}
                text = await agent.err(tool, task=key, **args, **who)
                assert says in text, f"{tool}: {text}"
                assert rows(server) == before, f"{tool} changed the database when refused"
            text = await agent.err(
                "attachment_caption", attachment=999, caption="x", session="newcomer-x"
            )
            assert "No attachment #999" in text
            assert rows(server) == before, "attachment_caption changed the database when refused"

        run(server, scenario)
    finally:
        server.stop()
