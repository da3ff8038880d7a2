"""Generated from the server's own tool list and schemas: a made-up secret in every string
parameter and at every depth of every JSON parameter of every tool, then the whole data
folder (database, WAL, log, policy file, attachments) searched for it, lowercased too
(issue 28, §9.9). A new tool fails here until it has its valid arguments below."""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.integration.secret_probes import found_in_folder, new_secret, placements
from tests.reviews.images import png
from tests.support.mcp_client import text_of
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

ME = {"session": "agent-one"}


async def number(agent: Agent, tool: str, **args: Any) -> int:
    return int(re.search(r"#(\d+)", await agent.ok(tool, **args)).group(1))


async def a_task(agent: Agent, n: int, **fields: Any) -> str:
    return await new_task(agent, "shop", f"Task for call {n}", **fields)


async def a_note(agent: Agent, n: int) -> int:
    return await number(
        agent,
        "memory_add",
        scope="project",
        project="shop",
        title=f"Fact {n} of the shop q{n}",
        body="Ask first.",
        kind="project",
        op="add",
        force_new=True,
        **ME,
    )


def image(n: int) -> str:
    return base64.b64encode(png(shade=n, width=3 + n % 7)).decode()


# Valid arguments of every tool, built fresh for call n (a new task, note, … where a call
# changes what it writes to); the test places a secret into each of them in turn.
async def valid_arguments(agent: Agent, tool: str, n: int) -> dict[str, Any]:
    match tool:
        case "attach_file":
            return {
                "task": await a_task(agent, n),
                "content_base64": image(n),
                "caption": "c",
                **ME,
            }
        case "attachment_caption":
            key = await a_task(agent, n)
            found = await number(agent, "attach_file", task=key, content_base64=image(n), **ME)
            return {"attachment": found, "caption": "A new caption", **ME}
        case "block_get":
            return {"project": "shop", "label": "style"}
        case "block_set":
            return {"label": f"style-{n}", "body": "Short.", "base_version": 0, "project": "shop"}
        case "comment_ack":
            return {"task": await a_task(agent, n), **ME}
        case "plan_accept":
            key = await a_task(agent, n)
            await agent.ok("plan_set", task=key, steps=["Write it"], **ME)
            return {"task": key, **ME}
        case "comment_add":
            return {"task": await a_task(agent, n), "body": "Done, see the report.", **ME}
        case "comments_list":
            return {"project": "shop", "task": "shop-1"}
        case "decision_add":
            return {"project": "shop", "text": "Use SQLite", "source_text": "the call", **ME}
        case "decision_list":
            return {"project": "shop", "query": "sqlite"}
        case "doc_get" | "doc_history":
            return {"project": "shop", "name": "runbook"}
        case "doc_list" | "environments_get" | "project_snapshot" | "rules_get":
            return {"project": "shop"}
        case "doc_update":
            return {
                "project": "shop",
                "name": f"guide-{n}",
                "text": "# Guide",
                "base_version": 0,
                "title": "Guide",
                "kind": "runbook",
                "reason": "first",
                **ME,
            }
        case "environment_propose":
            change = {
                "environment": "live",
                "kind": "live",
                "notes": "the shop",
                "level": "read",
                "overrides": {"db": "read"},
                "access": [{"kind": "other", "fields": {"host": "db.internal"}}],
            }
            return {"project": "shop", "change": change, "reason": "the deploy", **ME}
        case "events_since":
            return {"project": "shop"}
        case "memory_add":
            return {
                "scope": "project",
                "project": "shop",
                "title": f"Deploys go through pipeline {n}",
                "body": "Never by hand.",
                "kind": "project",
                "tags": ["deploy", "ci"],
                "source": "message:chat-1",
                "source_text": "the chat",
                "op": "add",
                "force_new": True,
                **ME,
            }
        case "memory_get":
            return {"note": await a_note(agent, n), **ME}
        case "memory_search":
            return {"query": "pipeline", "project": "shop", "kinds": ["note"]}
        case "memory_update":
            note = await a_note(agent, n)
            return {"note": note, "base_version": 1, "body": "New.", "tags": ["x"], **ME}
        case "plan_get" | "review_get" | "task_get":
            return {"task": "shop-1"}
        case "plan_set":
            steps = [{"title": "Write it", "details": "why"}, "Test it"]
            return {"task": await a_task(agent, n), "steps": steps, "reason": "first", **ME}
        case "plan_step_update":
            key = await a_task(agent, n)
            await agent.ok("plan_set", task=key, steps=["Write it"], **ME)
            return {"task": key, "step": 1, "status": "blocked", "outcome": "waiting", **ME}
        case "policy_get":
            return {"project": "shop"}
        case "policy_propose":
            patch = {
                "description": "tighter",
                "guard": {"mode": "block", "patterns": [{"id": "x-deploy", "change": "deploy"}]},
                "secrets": {"allow": ["x-[a-z]+"]},
            }
            return {"scope": "shop", "patch": patch, "reason": "tighten it", **ME}
        case "project_list":
            return {}
        case "project_upsert":
            return {"slug": "shop", "name": "Shop", "description": "The shop", **ME}
        case "report_add":
            key = await a_task(agent, n)
            return {"task": key, "body": "changed · S · did it", "progress": "half", **ME}
        case "review_step_update":
            key = await a_task(agent, n)
            await agent.ok("review_steps_set", task=key, steps=["Look"], **ME)
            return {"task": key, "step": 1, "details": "look closer", **ME}
        case "review_steps_set":
            steps = [{"title": "Look", "details": "x"}]
            return {"task": await a_task(agent, n), "steps": steps, **ME}
        case "task_bind_session":
            return {"task": await a_task(agent, n), "session_title": "Agent one", **ME}
        case "task_create":
            return {"project": "shop", "title": "New task", "next_step": "start", **ME}
        case "task_list":
            return {"project": "shop", "query": "task"}
        case "task_patch":
            key = await a_task(agent, n)
            fields = {"title": "Renamed", "progress": "half"}
            return {"task": key, "fields": fields, "expected_version": 1, **ME}
        case "task_set_stage":
            return {"task": await a_task(agent, n), "stage": "dev", "note": "going", **ME}
        case "task_unbind_session":
            return {"task": await a_task(agent, n), "reason": "done here", **ME}
        case "task_update":
            return {"task": await a_task(agent, n), "title": "Renamed", "branch": "main", **ME}
    raise AssertionError(f"{tool} has no valid arguments in this test: add them")


def takes_text(schema: dict[str, Any]) -> bool:
    options = [schema, *schema.get("anyOf", ())]
    return any(o.get("type") == "string" for o in options)


async def seed(agent: Agent) -> None:
    await new_project(agent, "shop", repo_path="/tmp/shop")
    key = await new_task(agent, "shop", "The first task")
    await agent.ok("plan_set", task=key, steps=["One", "Two"], **ME)
    await agent.ok("review_steps_set", task=key, steps=["Look"], **ME)
    await agent.ok(
        "doc_update", project="shop", name="runbook", text="# R", base_version=0, title="R", **ME
    )
    await agent.ok("block_set", project="shop", label="style", body="Short.", base_version=0)


def test_no_tool_stores_a_secret_at_any_depth_of_any_parameter(
    fresh_server: RelaybayServer,
) -> None:
    placed: list[tuple[str, str, str]] = []  # (tool, where, secret)
    echoed: list[str] = []

    async def scenario(agent: Agent) -> None:
        await seed(agent)
        tools = (await agent.client.list_tools()).tools
        n = 0
        for tool in tools:
            properties = tool.input_schema.get("properties", {})
            base = await valid_arguments(agent, tool.name, n)
            names = [p for p in properties if takes_text(properties[p])]
            names += [p for p, v in base.items() if isinstance(v, dict | list) and p not in names]
            for name in names:
                given = base.get(name, "text")
                for where, value, secret in placements(given):
                    n += 1
                    args = await valid_arguments(agent, tool.name, n) | {name: value}
                    result = await agent.client.call_tool(tool.name, args)
                    placed.append((tool.name, f"{name}{where}", secret))
                    if result.is_error and secret in text_of(result):
                        echoed.append(f"{tool.name} {name}{where}")

    run(fresh_server, scenario)
    fresh_server.stop()  # the log complete, the database at rest
    found = found_in_folder(fresh_server.home, [secret for _, _, secret in placed])
    leaks = [f"{tool} {where}: {found[s]}" for tool, where, s in placed if s in found]
    assert leaks == []
    assert echoed == []
    assert len(placed) > 250  # every tool, every text parameter, every depth


def test_every_tool_has_valid_arguments_here(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> list[str]:
        await seed(agent)
        missing = []
        for tool in (await agent.client.list_tools()).tools:
            try:
                args = await valid_arguments(agent, tool.name, 10_000)
            except AssertionError:
                missing.append(tool.name)
                continue
            result = await agent.client.call_tool(tool.name, args)
            assert not result.is_error, f"{tool.name}: {text_of(result)}"
        return missing

    assert run(server, scenario) == []


def test_a_secret_placed_anywhere_is_found_by_the_search(tmp_path: Any) -> None:
    """The search this module relies on finds a secret in any file, lowercased too."""
    secret = new_secret()
    (tmp_path / "attachments").mkdir()
    (tmp_path / "attachments" / "x.log").write_bytes(b"..." + secret.lower().encode() + b"...")
    assert found_in_folder(tmp_path, [secret, new_secret()]) == {secret: ["attachments/x.log"]}
