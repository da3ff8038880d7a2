"""The issue's "done means" for the memory, through the real client and a real `relaybay
serve` (§3, §8): an agent writes a document, a decision that supersedes another and a note,
and finds all of them with memory_search by other forms of their words, in English and
Russian; superseded items stay out unless asked, and a project's search covers global and
role notes but not another project's items."""

from __future__ import annotations

import re

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

AGENT = {"session": "memory-agent"}


def hits(answer: str) -> list[str]:
    """The hit lines of a memory_search answer, as "<kind> <ref>"."""
    return [m.group(1) for m in re.finditer(r"^- (\w+ [\w-]+) \[", answer, re.M)]


def decision_id(answer: str) -> int:
    found = re.search(r"decision #(\d+)", answer)
    assert found, answer
    return int(found.group(1))


def test_an_agent_finds_documents_decisions_and_notes_by_stem(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "mem-shop")
        await new_project(agent, "mem-other")
        await agent.ok(
            "doc_update",
            project="mem-shop",
            name="runbook",
            title="Runbook",
            text="# Runbook\n\n## Release\n\nThe deployment runs from CI after the tests.\n",
            base_version=0,
            **AGENT,
        )
        old = decision_id(
            await agent.ok(
                "decision_add", project="mem-shop", text="Deployments happen by hand.", **AGENT
            )
        )
        new = decision_id(
            await agent.ok(
                "decision_add",
                project="mem-shop",
                text="Deployments run from CI only.",
                supersedes=old,
                **AGENT,
            )
        )
        await agent.ok(
            "memory_add",
            scope="project",
            project="mem-shop",
            kind="project",
            title="Развёртывание на тест",
            body="Развёртывание идёт ночью, после восстановления копии.",
            op="add",
            **AGENT,
        )
        await agent.ok(
            "memory_add",
            scope="global",
            kind="feedback",
            title="Deployment windows",
            body="Never deploy on Fridays.",
            op="add",
            **AGENT,
        )
        await agent.ok(
            "decision_add", project="mem-other", text="Deployment of mem-other is manual.", **AGENT
        )

        english = await agent.ok("memory_search", query="deploying", project="mem-shop")
        found = hits(english)
        assert "document runbook" in found
        assert f"decision {new}" in found
        assert f"decision {old}" not in found  # superseded: left out unless asked
        assert any(h.startswith("memory ") for h in found)  # the global note
        assert "mem-other" not in english
        assert "The deployment runs from CI after the tests." in english  # the line of the hit

        with_old = await agent.ok(
            "memory_search", query="deploying", project="mem-shop", include_superseded=True
        )
        assert f"decision {old} [mem-shop] Deployments happen by hand. (superseded)" in with_old

        russian = await agent.ok("memory_search", query="развёртывания", project="mem-shop")
        assert "Развёртывание на тест" in russian
        assert len(hits(russian)) == 1

        everywhere = await agent.ok("memory_search", query="deploying")
        assert "[mem-other]" in everywhere

        nothing = await agent.ok("memory_search", query="deploying zebra", project="mem-shop")
        assert "0 hit(s)" in nothing  # every word is required

    run(server, scenario)


def test_search_with_an_unknown_project_says_what_to_call(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        error = await agent.err("memory_search", query="deploying", project="no-such-project")
        assert "project_list" in error

    run(server, scenario)


def test_a_report_is_found_by_the_next_call_after_its_answer(server: RelaybayServer) -> None:
    """report_add's search row is written after its answer (memory/search.py): the agent's
    very next call finds it."""

    async def scenario(agent: Agent) -> None:
        await new_project(agent, "mem-later")
        for n in range(5):
            key = await new_task(agent, "mem-later", title=f"Ledger {n}")
            await agent.ok(
                "report_add",
                task=key,
                body=f"changed | M | reconciled the ledgerwork{n}\n\nall good",
                **AGENT,
            )
            found = await agent.ok("memory_search", query=f"ledgerwork{n}", project="mem-later")
            assert [hit.split()[0] for hit in hits(found)] == ["report"], found

    run(server, scenario)
