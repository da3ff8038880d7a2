"""The document and block tools through the real client and a real `relaybay serve` (§3,
§8): write a document, rewrite one section with optimistic locking and see the current
text when stale, the history and a diff, the resource, block_set / block_get, and bad
inputs answered as tool errors that change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.mcp_agent import Agent, new_project, run
from tests.support import tokens
from tests.support.server import RelaybayServer, read_only_db

pytestmark = pytest.mark.integration

RUNBOOK = "# Runbook\n\nHow we ship.\n\n## Deploy\n\nmake deploy\n\n## Rollback\n\nmake undo\n"
TABLES = ("memory_document", "memory_documentversion", "memory_memoryblock", "tasks_event")


def rows(server: RelaybayServer) -> dict[str, list[tuple[Any, ...]]]:
    with read_only_db(server.home) as db:
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in TABLES}


def test_the_memory_tools_are_listed_with_their_annotations(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        tools = {t.name: t for t in (await agent.client.list_tools()).tools}
        for name in ("doc_list", "doc_get", "doc_history", "block_get"):
            assert tools[name].annotations.read_only_hint is True, name
        for name in ("doc_update", "block_set"):
            assert tools[name].annotations.read_only_hint is False, name
        assert set(tools["doc_update"].input_schema["required"]) == {
            "project",
            "name",
            "text",
            "base_version",
        }

    run(server, scenario)


def test_a_document_written_updated_by_section_with_locking_history_and_resource(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "doc-shop")
        answer = await agent.ok(
            "doc_update",
            project="doc-shop",
            name="runbook",
            title="Runbook",
            kind="runbook",
            text=RUNBOOK,
            base_version=0,
            session="writer",
        )
        assert answer.startswith("Created document runbook: now version 1.")
        text = await agent.ok("doc_get", project="doc-shop", name="runbook")
        assert text.startswith("# Runbook\ndoc-shop/runbook · runbook · version 1 ·")
        assert "Sections: runbook, deploy, rollback" in text
        assert text.endswith(RUNBOOK)
        answer = await agent.ok(
            "doc_update",
            project="doc-shop",
            name="runbook",
            section="deploy",
            text="make release\n",
            base_version=1,
            reason="new target",
            session="writer",
        )
        assert answer.startswith("Updated document runbook (section deploy): now version 2.")
        section = await agent.ok("doc_get", project="doc-shop", name="runbook", section="deploy")
        assert section.endswith("\n\n## Deploy\nmake release\n")

        # Another agent still holds version 1: refused, with the current section to merge.
        before = rows(server)
        stale = await agent.err(
            "doc_update",
            project="doc-shop",
            name="runbook",
            section="deploy",
            text="make ship\n",
            base_version=1,
            session="other",
        )
        assert "Conflict: runbook is at version 2, not 1." in stale
        assert "## Deploy\nmake release\n" in stale
        assert "make undo" not in stale
        assert rows(server) == before

        history = await agent.ok("doc_history", project="doc-shop", name="runbook")
        assert "# History of runbook (2 versions, newest first)" in history
        assert "- v2 · " in history
        assert "by writer · section deploy · new target" in history
        diff = await agent.ok(
            "doc_history", project="doc-shop", name="runbook", from_version=1, to_version=2
        )
        assert "--- runbook v1\n+++ runbook v2" in diff
        assert "-make deploy\n-\n+make release" in diff

        old = await agent.ok("doc_get", project="doc-shop", name="runbook", version=1)
        assert "version 1 (current: v2)" in old
        resource = await agent.read("relaybay://doc/doc-shop/runbook")
        assert resource == RUNBOOK.replace("\nmake deploy\n\n", "make release\n")
        listing = await agent.ok("doc_list", project="doc-shop")
        assert "- runbook (runbook): Runbook · v2 · updated" in listing
        events = await agent.ok("events_since", project="doc-shop")
        assert "document runbook v2 (section deploy): new target" in events

    run(server, scenario)


def test_bad_document_inputs_are_tool_errors_that_change_nothing(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "bad-doc-shop")
        await agent.ok(
            "doc_update",
            project="bad-doc-shop",
            name="spec",
            title="Spec",
            text="# Spec\n\n## Scope\n\nAll.\n",
            base_version=0,
            session="writer",
        )
        before = rows(server)
        refused = [
            ({"name": "spec", "text": "x", "base_version": 1, "section": "nope"}, "scope"),
            ({"name": "Bad Name!", "text": "x", "base_version": 0, "title": "t"}, "lowercase"),
            ({"name": "new-doc", "text": "x", "base_version": 0}, "title is required"),
            ({"name": "spec", "text": "x", "base_version": 0}, "already exists at version 1"),
            (
                {"name": "spec", "text": f"key {tokens.aws_key_id()}", "base_version": 1},
                "Refused: text looks like it contains a secret value",
            ),
        ]
        for args, says in refused:
            text = await agent.err("doc_update", project="bad-doc-shop", session="w", **args)
            assert says in text, text
            assert tokens.aws_key_id() not in text
            assert rows(server) == before, f"{args} changed the database when refused"
        text = await agent.err("doc_get", project="bad-doc-shop", name="missing")
        assert "doc_list" in text
        text = await agent.err("doc_get", project="nope", name="spec")
        assert "project_list" in text

    run(server, scenario)


def test_block_set_and_block_get(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "block-shop")
        answer = await agent.ok(
            "block_set",
            label="style",
            body="Short answers.",
            base_version=0,
            project="block-shop",
            description="How to answer",
            session="writer",
        )
        assert (
            answer
            == "Created project block-shop block style: now version 1 (14 of 2000 characters)."
        )
        text = await agent.ok("block_get", label="style", project="block-shop")
        assert text.startswith("# Block style (project block-shop)\nversion 1 · 14 of 2000")
        assert text.endswith("Short answers.")
        listing = await agent.ok("block_get", project="block-shop")
        assert "- style (project block-shop) · v1 · 14/2000: How to answer" in listing

        before = rows(server)
        stale = await agent.err(
            "block_set", label="style", body="x", base_version=0, project="block-shop"
        )
        assert "already exists at version 1" in stale
        assert "Short answers." in stale
        over = await agent.err(
            "block_set", label="style", body="x" * 2001, base_version=1, project="block-shop"
        )
        assert "2001 characters; the limit is 2000" in over
        text = await agent.err("block_get", label="missing")
        assert "block_set" in text
        assert rows(server) == before

    run(server, scenario)
