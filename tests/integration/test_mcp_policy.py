"""policy_get and policy_propose through the real client and a real `relaybay serve`
(§3, §7): the listing and annotations, the effective policy with a source on every line,
policy.json and an owner's decision picked up without a restart, and proposals that change
nothing — a refused one not even who was seen (§2 one transaction per write)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.integration.mcp_agent import Agent, new_project, run
from tests.support.server import RelaybayServer, read_only_db, run_django

pytestmark = pytest.mark.integration

TABLES = (
    "agent_sessions_session",
    "agent_sessions_sessionalias",
    "tasks_event",
    "policy_policyproposal",
    "policy_policylayer",
)


def rows(server: RelaybayServer) -> dict[str, list[tuple[Any, ...]]]:
    with read_only_db(server.home) as db:
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in TABLES}


def proposals(server: RelaybayServer) -> list[tuple[Any, ...]]:
    with read_only_db(server.home) as db:
        found = db.execute(
            "SELECT id, scope, patch, status, proposed_by FROM policy_policyproposal ORDER BY id"
        ).fetchall()
    return [(n, scope, json.loads(patch), *rest) for n, scope, patch, *rest in found]


def proposal_number(answer: str) -> int:
    found = re.match(r"Proposed policy change #(\d+) for \S+; nothing changed yet\.", answer)
    assert found, answer
    return int(found.group(1))


def owner_accepts(server: RelaybayServer, proposal: int) -> None:
    """The owner accepts on Settings → Policy: the same service, from a process of its own
    on the server's data folder (the page is not built yet; the server is not restarted)."""
    run_django(
        server.home,
        f"""
        from policy import services
        services.policy_proposal_accept(proposal={proposal}, actor="owner")
        """,
    )


def test_the_policy_tools_are_listed_and_policy_get_is_read_only(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        tools = {t.name: t for t in (await agent.client.list_tools()).tools}
        assert tools["policy_get"].annotations.read_only_hint is True
        assert tools["policy_propose"].annotations.read_only_hint is False
        assert set(tools["policy_propose"].input_schema["required"]) == {
            "scope",
            "patch",
            "reason",
        }

    run(server, scenario)


def test_policy_get_without_arguments_is_the_global_policy_with_sources(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        text = await agent.ok("policy_get")
        assert text.startswith("# Policy: global\n")
        assert "Layers, a later one winning: preset:default\n" in text
        assert '- guard.mode = "warn" (preset:default)' in text
        assert '- levels.live.default = "read" (preset:default)' in text
        assert "- secrets.disable = [] (preset:default)" in text
        text = await agent.err("policy_get", project="nope")
        assert "Unknown project in the scope." in text
        assert "project_list" in text

    run(server, scenario)


def test_a_proposal_changes_nothing_and_a_refused_one_not_even_who_was_seen(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "policy-shop")
        answer = await agent.ok(
            "policy_propose",
            scope="policy-shop",
            patch={"guard": {"mode": "block"}},
            reason="prod is close",
            session="worker",
        )
        first = proposal_number(answer)
        assert "for policy-shop; nothing changed yet" in answer
        assert "widens" not in answer
        # Models sometimes send the patch as a JSON string.
        answer = await agent.ok(
            "policy_propose",
            scope="policy-shop",
            patch=json.dumps({"levels": {"test": {"db": "ask"}}}),
            reason="keep test databases careful",
            session="worker",
        )
        assert proposal_number(answer) == first + 1
        text = await agent.ok("policy_get", project="policy-shop")
        assert text.startswith("# Policy: policy-shop\n")
        assert '- guard.mode = "warn" (preset:default)' in text, "a proposal changed the policy"
        assert proposals(server)[-2:] == [
            (first, "policy-shop", {"guard": {"mode": "block"}}, "pending", "worker"),
            (first + 1, "policy-shop", {"levels": {"test": {"db": "ask"}}}, "pending", "worker"),
        ]
        assert rows(server)["policy_policylayer"] == []
        events = await agent.ok("events_since", project="policy-shop")
        assert f"policy proposal #{first} for policy-shop: prod is close" in events

        before = rows(server)
        refused = [
            (
                {"scope": "policy-shop", "patch": {"guard": {"mode": "loud"}}},
                "guard.mode: 'loud' is not one of ['off', 'log', 'warn', 'block']",
            ),
            ({"scope": "nope", "patch": {"guard": {"mode": "block"}}}, "project_list"),
            ({"scope": "policy-shop", "patch": {"preset": "strict"}}, "preset: only the global"),
            ({"scope": "policy-shop", "patch": {}}, "patch must be a non-empty JSON object"),
        ]
        for n, (args, says) in enumerate(refused):
            who = {"session": f"newcomer-{n}", "hook_session": f"cc-{n}"}
            text = await agent.err("policy_propose", reason="try", **args, **who)
            assert says in text, text
            assert rows(server) == before, f"{args} changed the database when refused"

        answer = await agent.ok(
            "policy_propose",
            scope="policy-shop",
            patch={"levels": {"live": {"default": "full"}}},
            reason="deploy from the agent",
            session="worker",
        )
        proposal_number(answer)
        assert (
            "It widens agents' access on live (levels.live.default rises from read to full), "
            "so the owner confirms it a second time when accepting."
        ) in answer
        events = await agent.ok("events_since", project="policy-shop")
        assert "deploy from the agent (widens live)" in events

    run(server, scenario)


def test_policy_json_and_an_accepted_proposal_count_without_a_restart(
    fresh_server: RelaybayServer,
) -> None:
    server = fresh_server

    async def before_the_file(agent: Agent) -> int:
        await new_project(agent, "acme")
        assert '- guard.mode = "warn" (preset:default)' in await agent.ok("policy_get")
        answer = await agent.ok(
            "policy_propose",
            scope="acme",
            patch={"levels": {"live": {"db": "none"}}},
            reason="no database writes on prod",
            session="worker",
        )
        return proposal_number(answer)

    proposal = run(server, before_the_file)
    (server.home / "policy.json").write_text(
        json.dumps({"guard": {"mode": "block", "disable": ["git-push"]}})
    )
    owner_accepts(server, proposal)

    async def after(agent: Agent) -> None:
        text = await agent.ok("policy_get", project="acme")
        assert "Layers, a later one winning: preset:default → global → project:acme" in text
        assert '- guard.mode = "block" (global)' in text
        assert '- guard.disable = ["git-push"] (global)' in text
        assert '- levels.live.db = "none" (project:acme)' in text
        assert '- levels.live.default = "read" (preset:default)' in text
        events = await agent.ok("events_since", project="acme")
        assert f"policy proposal #{proposal} for acme accepted" in events
        assert f"policy of acme changed (proposal #{proposal})" in events

    run(server, after)
