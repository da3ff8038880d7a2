"""task_bind_session / task_unbind_session through the real MCP client against `relaybay serve`."""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.support.mcp_client import mcp_client, text_of
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

DESKTOP = "local_1b4e28ba-2fa1-11d2-883f-0016d3cca427"
OTHER_DESKTOP = "local_9f0c7a52-3c1e-4b7a-8d6e-2f4b1c0a9e77"
AGENT_ID = "430009dd-5530-4fbd-8d18-5c78bdf50673"
_slugs = itertools.count(1)


class Agent:
    def __init__(self, client: Any) -> None:
        self.client = client

    async def ok(self, tool: str, **args: Any) -> str:
        result = await self.client.call_tool(tool, args)
        text = text_of(result)
        assert not result.is_error, f"{tool} failed: {text}"
        return text

    async def err(self, tool: str, **args: Any) -> str:
        result = await self.client.call_tool(tool, args)
        text = text_of(result)
        assert result.is_error, f"{tool} should have failed: {text}"
        assert "Traceback" not in text
        assert "internal error" not in text
        return text

    async def new_task(self, title: str = "Fix login") -> str:
        slug = f"sess-{next(_slugs)}"
        await self.ok("project_upsert", slug=slug)
        text = await self.ok("task_create", project=slug, title=title)
        return re.search(r"Created (\S+) ", text).group(1)


def run(server: RelaybayServer, scenario: Callable[[Agent], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with mcp_client(server.base_url, server.token) as client:
            return await scenario(Agent(client))

    try:
        # A thread of its own: Playwright's sync API (tests/browser) keeps an event loop
        # running in the main thread for the rest of the session, and asyncio.run refuses
        # to start under a running loop.
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, main()).result()
    except BaseExceptionGroup as group:  # the client's task groups wrap a failed assert
        exc: BaseException = group
        while isinstance(exc, BaseExceptionGroup):
            exc = exc.exceptions[0]
        raise exc from None


def test_the_session_tools_are_markdown_write_tools(server):
    async def scenario(agent: Agent) -> None:
        tools = {t.name: t for t in (await agent.client.list_tools()).tools}
        for name in ("task_bind_session", "task_unbind_session"):
            tool = tools[name]
            assert tool.annotations.read_only_hint is False
            assert tool.annotations.destructive_hint is False
            assert tool.annotations.open_world_hint is False
            assert tool.output_schema is None
            assert "session" in tool.input_schema["properties"]
        assert tools["task_bind_session"].input_schema["required"] == ["task", "session"]
        assert tools["task_unbind_session"].input_schema["required"] == ["task"]

    run(server, scenario)


def test_binding_a_desktop_session_shows_in_task_get_and_task_lists(server):
    async def scenario(agent: Agent) -> None:
        key = await agent.new_task()
        text = await agent.ok(
            "task_bind_session", task=key, session=DESKTOP, session_title="Fix login"
        )
        bound, where = text.split("\n\n")  # a new binding: the task's resume brief follows
        assert bound == f"Bound {key} to session {DESKTOP} (Fix login)."
        assert where.startswith("relaybay resume brief: ")
        assert f"\n## {key} Fix login\n- Stage: plan" in where

        detail = await agent.ok("task_get", task=key)
        assert "## Session" in detail
        assert f"{DESKTOP} (Fix login) · desktop · no hook status · no activity yet" in detail
        assert f"Open in desktop: claude://resume?session={DESKTOP}" in detail
        assert re.search(rf"- {DESKTOP} \(Fix login\): since .* \(current\)", detail)

        slug = key.rsplit("-", 1)[0]
        listing = await agent.ok("task_list", project=slug)
        assert f"· session {DESKTOP}" in listing
        snapshot = await agent.ok("project_snapshot", project=slug)
        assert f"· session {DESKTOP}" in snapshot

        again = await agent.ok("task_bind_session", task=key, session=DESKTOP)
        assert again == f"{key} is already bound to session {DESKTOP} (Fix login); nothing changed."

        moved = await agent.ok("task_bind_session", task=key, session=OTHER_DESKTOP)
        assert moved.split("\n\n")[0] == (
            f"Bound {key} to session {OTHER_DESKTOP}. It was bound to {DESKTOP}."
        )
        detail = await agent.ok("task_get", task=key)
        assert f"(rebound to {OTHER_DESKTOP})" in detail

    run(server, scenario)


def test_a_plain_name_becomes_the_alias_of_the_bound_desktop_session(server):
    async def scenario(agent: Agent) -> None:
        key = await agent.new_task()
        desktop = "local_0a8d8e6c-2b1f-4d7e-9c3a-5e6f7a8b9c0d"
        await agent.ok("task_bind_session", task=key, session=desktop, session_title="Work")

        text = await agent.ok("task_bind_session", task=key, session="carol")
        assert (
            text == f"carol is now an alias of session {desktop} (Work); {key} stays bound to it."
        )

        # From then on the name resolves to the desktop session, also on other writes.
        again = await agent.ok("task_bind_session", task=key, session="carol")
        assert again == f"{key} is already bound to session {desktop} (Work); nothing changed."
        events = await agent.ok("events_since", after_id=0, project=key.rsplit("-", 1)[0])
        assert f"carol is now an alias of {desktop}" in events

    run(server, scenario)


def test_no_alias_is_made_when_a_named_session_of_that_name_exists(server):
    async def scenario(agent: Agent) -> None:
        key = await agent.new_task()
        desktop = "local_11111111-2222-4333-8444-555555555555"
        # A write naming "dave" creates the named session through the caller resolver.
        await agent.ok("task_update", task=key, priority="high", session="dave")
        await agent.ok("task_bind_session", task=key, session=desktop)

        text = await agent.ok("task_bind_session", task=key, session="dave")
        assert text.startswith(
            f"Warning: {key} is bound to desktop session {desktop}; 'dave' was not made its "
            "alias because a session named dave already exists. Nothing changed."
        )
        detail = await agent.ok("task_get", task=key)
        assert f"{desktop} · desktop" in detail

    run(server, scenario)


def test_hook_session_is_linked_by_a_write_and_never_by_bind(server):
    async def scenario(agent: Agent) -> None:
        key = await agent.new_task()
        text = await agent.ok("task_bind_session", task=key, session="erin", hook_session=AGENT_ID)
        assert text.split("\n\n")[0].splitlines() == [
            f"Bound {key} to session erin.",
            "Note: task_bind_session does not link hook_session (it may bind another session). "
            "Pass hook_session with session on a write of your own session instead, e.g. "
            "task_update or report_add.",
        ]

        linked = await agent.ok(
            "task_update", task=key, priority="low", session="erin", hook_session=AGENT_ID
        )
        assert "belongs to another session" not in linked

        refused = await agent.ok(
            "task_update", task=key, priority="high", session="frank", hook_session=AGENT_ID
        )
        assert (
            f"Warning: hook_session {AGENT_ID} belongs to another session (erin); not relinked."
            in refused.splitlines()
        )

    run(server, scenario)


def test_unbinding_keeps_the_history(server):
    async def scenario(agent: Agent) -> None:
        key = await agent.new_task()
        await agent.ok("task_bind_session", task=key, session="gina")

        text = await agent.ok("task_unbind_session", task=key, session="gina", reason="done here")
        assert text == f"Unbound {key} from session gina."
        detail = await agent.ok("task_get", task=key)
        assert "None bound. Bind one with task_bind_session." in detail
        assert "(done here)" in detail

        again = await agent.ok("task_unbind_session", task=key)
        assert again == f"{key} has no bound session; nothing changed."

        events = await agent.ok("events_since", after_id=0, project=key.rsplit("-", 1)[0])
        assert "unbound from gina (done here)" in events

    run(server, scenario)


def test_the_session_tools_fail_with_what_to_do(server):
    async def scenario(agent: Agent) -> None:
        key = await agent.new_task()
        unknown = await agent.err("task_bind_session", task="nope-404", session="x")
        assert "Unknown task nope-404. Call task_list to see the keys." in unknown

        bad_id = await agent.err("task_bind_session", task=key, session="local_abc")
        assert "must be local_ followed by a UUID" in bad_id

        too_long = await agent.err("task_bind_session", task=key, session="n" * 101)
        assert "at most 100 characters" in too_long

        no_session = await agent.err("task_bind_session", task=key, session="-")
        assert "Pass the session to bind" in no_session

        bad_hook = await agent.err(
            "task_unbind_session", task=key, session="x", hook_session="not an id"
        )
        assert "Your relaybay hook session" in bad_hook

    run(server, scenario)
