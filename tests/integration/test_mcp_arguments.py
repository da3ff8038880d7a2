"""Argument errors (§5) and the advertised capabilities (§3), through the real client.

A tool called without a required argument, with a wrongly typed one or with an unknown one
answers relaybay's own sentence: the parameter, what it expects and which tool lists valid
values — never pydantic's text or its URL.
"""

from __future__ import annotations

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.support.mcp_client import mcp_client, run_async
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration


def plain(text: str) -> str:
    assert "validation error" not in text
    assert "pydantic" not in text
    assert "http" not in text
    assert "Arguments" not in text  # pydantic's model name, e.g. project_snapshotArguments
    return text


def test_a_missing_argument_names_it_and_the_tool_that_lists_its_values(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        text = plain(await agent.err("project_snapshot"))
        assert text.startswith("project_snapshot: argument project is missing; it expects text")
        assert "project_list lists the valid values." in text
        text = plain(await agent.err("task_get"))
        assert "task_get: argument task is missing; it expects text" in text
        assert "task_list lists the valid values." in text
        text = plain(await agent.err("task_set_stage", task="x-1"))
        assert "task_set_stage: argument stage is missing" in text
        assert text.endswith("Nothing changed.")

    run(server, scenario)


def test_a_wrongly_typed_argument_says_what_it_expects(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "typed")
        text = plain(await agent.err("task_list", project="typed", include_done="maybe"))
        assert "task_list: argument include_done has the wrong type or value; it expects " in text
        assert "true or false" in text
        text = plain(await agent.err("events_since", after_id="soon"))
        assert "events_since: argument after_id has the wrong type or value" in text
        assert "a whole number" in text
        text = plain(await agent.err("project_snapshot", project=["typed"]))
        assert "project_list lists the valid values." in text

    run(server, scenario)


def test_an_unknown_argument_is_refused_naming_the_nearest_valid_one(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "unknown")
        key = await new_task(agent, "unknown")
        text = plain(await agent.err("task_update", task=key, next_stpe="write tests"))
        assert text.startswith(
            'task_update: unknown parameter "next_stpe" — did you mean "next_step"? '
            "Valid: task (required), expected_version, title,"
        )
        assert text.endswith("Nothing changed.")
        assert await agent.version(key) == 1
        text = plain(await agent.err("task_update", task=key, zzz="write tests"))
        assert text.startswith('task_update: unknown parameter "zzz". Valid: task (required)')
        text = plain(await agent.err("project_list", verbose=True))
        assert 'project_list: unknown parameter "verbose". Valid: none' in text

    run(server, scenario)


def test_every_text_parameter_shows_its_limit_and_a_longer_value_is_refused_by_name(
    server: RelaybayServer,
) -> None:
    """A 100,000-character query reached SQLite and answered "internal error"."""

    async def scenario(agent: Agent) -> None:
        await new_project(agent, "limits")
        key = await new_task(agent, "limits")
        tools = {t.name: t.input_schema for t in (await agent.client.list_tools()).tools}
        assert tools["task_list"]["properties"]["query"]["maxLength"] == 200
        assert tools["task_update"]["properties"]["description"]["maxLength"] == 20_000
        assert tools["project_upsert"]["properties"]["session"]["maxLength"] == 100
        assert tools["policy_get"]["properties"]["environment"]["maxLength"] == 1_000  # default
        text = plain(await agent.err("task_list", project="limits", query="x" * 100_000))
        assert text.startswith("task_list: query is 100000 characters long; the limit is 200.")
        text = plain(await agent.err("task_update", task=key, description="d" * 20_001))
        assert "task_update: description is 20001 characters long; the limit is 20000" in text
        await agent.ok("task_update", task=key, description="d" * 20_000, session="tester")
        assert await agent.version(key) == 2

    run(server, scenario)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_server_advertises_no_prompts(server: RelaybayServer, mode: str) -> None:
    """§3 "No MCP prompts yet": no prompts capability at all (the SDK advertised one with an
    empty list), over both the discover and the initialize handshake."""

    async def main() -> None:
        async with mcp_client(server.base_url, server.token, mode=mode) as client:
            capabilities = client.server_capabilities
            assert capabilities.prompts is None
            assert capabilities.tools is not None
            assert capabilities.resources is not None

    run_async(main())
