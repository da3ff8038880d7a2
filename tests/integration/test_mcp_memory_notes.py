"""memory_add, memory_update and memory_get through the real client and a real
`relaybay serve` (§3, §8 Memory notes): the dedupe flow end to end — candidates and nothing
written, force_new next to a strong match, update with a stale base_version, supersede —
and reads that count."""

from __future__ import annotations

import re

import pytest

from tests.integration.mcp_agent import Agent, new_project, run
from tests.support import tokens
from tests.support.server import RelaybayServer, read_only_db

pytestmark = pytest.mark.integration

GHP = tokens.github()


def note_rows(server: RelaybayServer) -> list[tuple]:
    with read_only_db(server.home) as db:
        return db.execute(
            "SELECT id, title, version, superseded_by_id, valid_to IS NOT NULL, read_count "
            "FROM memory_memorynote ORDER BY id"
        ).fetchall()


def added(answer: str) -> int:
    found = re.match(r"Added memory note #(\d+) v1 ", answer)
    assert found, answer
    return int(found.group(1))


def test_the_memory_tools_are_listed_as_writes(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        tools = {t.name: t for t in (await agent.client.list_tools()).tools}
        for name in ("memory_add", "memory_update", "memory_get"):
            assert tools[name].annotations.read_only_hint is False
        assert set(tools["memory_add"].input_schema["required"]) == {
            "scope",
            "title",
            "body",
            "kind",
        }

    run(server, scenario)


def test_the_dedupe_flow_end_to_end(server: RelaybayServer) -> None:
    base = {"scope": "project", "project": "notes-shop", "kind": "feedback", "session": "worker"}

    async def scenario(agent: Agent) -> None:
        await new_project(agent, "notes-shop")
        first = added(
            await agent.ok(
                "memory_add",
                title="SQLite WAL mode",
                body="Keep WAL on.",
                tags="db, SQLite",
                **base,
            )
        )
        before = note_rows(server)
        answer = await agent.ok("memory_add", title="WAL mode for SQLite", body="Keep it.", **base)
        assert answer.startswith(
            "Nothing written: 1 current project notes-shop note shares a title word:"
        )
        assert f'- #{first} "SQLite WAL mode" · v1 · feedback · similarity 1.00 (strong match)' in (
            answer
        )
        assert note_rows(server) == before, "candidates must write nothing"

        refused = await agent.err(
            "memory_add", title="WAL mode for SQLite", body="Keep it.", op="add", **base
        )
        assert f"Note #{first}" in refused
        assert "force_new=true" in refused
        assert note_rows(server) == before
        forced = added(
            await agent.ok(
                "memory_add",
                title="WAL mode for SQLite",
                body="Both stay.",
                op="add",
                force_new=True,
                **base,
            )
        )

        answer = await agent.ok(
            "memory_add",
            title="SQLite WAL mode",
            body="Keep WAL on; checkpoint nightly.",
            op="update",
            target=first,
            base_version=1,
            **base,
        )
        assert answer.startswith(f"Updated memory note #{first} to version 2 (body)")
        stale = await agent.err(
            "memory_update", note=first, base_version=1, body="Turn WAL off.", session="other"
        )
        assert f"Note #{first} is at version 2, not 1" in stale
        assert "checkpoint nightly" in stale
        assert "base_version=2" in stale

        answer = await agent.ok(
            "memory_add",
            title="WAL mode for SQLite, one rule",
            body="Replaces the forced one.",
            op="supersede",
            target=forced,
            **base,
        )
        newer = added(answer)
        assert f"It supersedes #{forced}" in answer
        refused = await agent.err("memory_update", note=forced, base_version=1, body="x")
        assert f"superseded by #{newer}" in refused

        answer = await agent.ok(
            "memory_add", title="WAL", body="-", op="noop", target=first, **base
        )
        assert answer.startswith("Nothing written (op=noop).")

        refused = await agent.err(
            "memory_add", title="Push access", body=f"push with {GHP}", op="add", **base
        )
        assert "Refused: body" in refused
        assert "github-token" in refused
        assert GHP not in refused

        text = await agent.ok("memory_get", note=forced, session="reader")
        assert text.startswith(f"# Memory note #{forced}: WAL mode for SQLite\n")
        assert f"Superseded by #{newer}" in text
        text = await agent.ok("memory_get", note=first)
        assert "project notes-shop · feedback · version 2 · by worker" in text
        assert "tags: db, sqlite" in text
        assert "read 1 time" in text
        assert text.endswith("Keep WAL on; checkpoint nightly.")

    run(server, scenario)
    rows = {r[0]: r[1:] for r in note_rows(server)}
    assert len(rows) == 3
    first, forced, newer = sorted(rows)
    assert rows[first][1] == 2
    assert rows[forced][2:4] == (newer, 1)
    assert rows[first][4] == 1


def test_scope_errors_say_what_to_pass(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        text = await agent.err("memory_add", scope="project", title="t", body="b", kind="user")
        assert "scope=project needs project" in text
        text = await agent.err("memory_add", scope="role", title="t", body="b", kind="user")
        assert "scope=role needs role" in text
        text = await agent.err("memory_get", note=424242)
        assert "No memory note #424242" in text

    run(server, scenario)
