"""The plan tools through the real client and server (§1 Plan and checkpoints, §3, §6)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration


def test_an_agent_writes_checks_off_and_gets_its_plan_accepted(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "plans")
        key = await new_task(agent, "plans", title="Checkout")
        assert "No plan yet" in await agent.ok("plan_get", task=key)

        steps = [{"title": "Model", "details": "The **order** table"}, "API", "UI"]
        text = await agent.ok(
            "plan_set", task=key, steps=steps, reason="from PLAN.md", session="worker"
        )
        assert text.startswith(f"Plan of {key} written: plan status draft.")
        assert "## Plan — draft · 0 of 3 done" in text
        again = await agent.ok("plan_set", task=key, steps=["Model", "API", "UI"])
        assert again == f"Nothing changed: {key} already has these 3 step(s)."

        text = await agent.err("plan_step_update", task=key, step=1, status="done")
        assert 'done needs conformance "as planned" or "deviation: <why>"' in text
        text = await agent.err(
            "plan_step_update", task=key, step=1, status="done", conformance="ok"
        )
        assert "done needs conformance" in text
        text = await agent.err(
            "plan_step_update", task=key, step=1, status="done", conformance="as planned",
            link="the PR",
        )  # fmt: skip
        assert "(12, #12 or report:12) or an http(s) URL" in text

        added = await agent.ok(
            "report_add", task=key, body="changed · M · model done", session="worker"
        )
        report_id = re.search(r"Added report #(\d+)", added).group(1)
        text = await agent.ok(
            "plan_step_update", task=key, step="#1", status="done", conformance="as planned",
            outcome="table and migration", link=f"#{report_id}", session="worker",
        )  # fmt: skip
        assert text.startswith(f"Step 1 of {key} 'Model' is done.")
        assert f"as planned · table and migration · report:{report_id}" in text
        text = await agent.ok(
            "plan_step_update", task=key, step=2, status="in_progress", session="worker"
        )
        assert text == f"Step 2 of {key} 'API' is in_progress."

        detail = await agent.ok("task_get", task=key)
        assert "## Plan — draft · 1 of 3 done" in detail
        assert "2. [in_progress] API ← now" in detail
        snapshot = await agent.ok("project_snapshot", project="plans")
        assert "plan 1/3 (draft)" in snapshot

        await agent.ok("task_bind_session", task=key, session="worker")
        text = await agent.err("plan_accept", task=key, session="worker")
        assert "bound to your session (worker)" in text
        text = await agent.ok("plan_accept", task=key, session="coordinator")
        assert text.startswith(f"Accepted the plan of {key} as coordinator")
        assert "accepted by coordinator" in await agent.ok("plan_get", task=key)

        text = await agent.ok("plan_set", task=key, steps=["Model", "UI", "API"])
        assert "so it is a draft again" in text
        assert "2. [pending] UI" in text
        events = await agent.ok("events_since", project="plans")
        assert "plan accepted by coordinator" in events
        assert "plan step 1 'Model': pending → done (as planned): table and migration" in events

        text = await agent.ok("plan_set", task=key, steps=[])
        assert text == f"Removed the plan of {key}; plan status none."

    run(server, scenario)


def test_strict_rules_refuse_dev_without_an_accepted_plan_unless_size_s(tmp_path: Path) -> None:
    strict = RelaybayServer(home=tmp_path / "home", env={"RELAYBAY_RULES_MODE": "strict"})
    strict.start()
    try:

        async def scenario(agent: Agent) -> None:
            await new_project(agent, "strictplan")
            key = await new_task(agent, "strictplan", size="M")
            await agent.ok("plan_set", task=key, steps=["One", "Two"])
            text = await agent.err("task_set_stage", task=key, stage="dev")
            assert "The plan is not accepted yet" in text
            assert text.endswith("Nothing changed.")
            await agent.ok("plan_accept", task=key, session="coordinator")
            text = await agent.ok("task_set_stage", task=key, stage="dev")
            assert text.startswith(f"Moved {key} plan → dev")
            assert "Warning" not in text
            assert "Hint" not in text

            small = await new_task(agent, "strictplan", size="S")
            text = await agent.ok("task_set_stage", task=small, stage="dev")
            assert f"Hint: {small} has no plan and no todo yet" in text

        run(strict, scenario)
    finally:
        strict.stop()


def test_warn_mode_moves_a_draft_plan_with_the_draft_warning(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "warnplan")
        key = await new_task(agent, "warnplan")
        await agent.ok("plan_set", task=key, steps=["One"])
        text = await agent.ok("task_set_stage", task=key, stage="dev")
        assert (
            "Warning (rules): moving to dev usually needs an accepted plan (not needed for size "
            "S). The plan is not accepted yet: the owner accepts it on the board, the "
            "coordinator with plan_accept."
        ) in text
        assert "Hint:" not in text

    run(server, scenario)


def test_an_unknown_key_in_a_step_is_refused_naming_it_never_dropped(
    server: RelaybayServer,
) -> None:
    # issue 38: the tool's step model dropped `owner` silently and the plan was written.
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "stepkeys")
        key = await new_task(agent, "stepkeys")
        steps = ["Model", {"title": "API", "owner": "worker-2", "detials": "why"}]
        text = await agent.err("plan_set", task=key, steps=steps)
        assert text.endswith(
            "plan_set: Step 2 has 2 unknown keys: owner, detials; a step takes only title and "
            "details. Did you mean details?"
        )
        assert "No plan yet" in await agent.ok("plan_get", task=key)
        text = await agent.err("review_steps_set", task=key, steps=[{"title": "A", "why": "x"}])
        assert "review_steps_set: Step 1 has 1 unknown key: why; a step takes only title" in text
        assert "No Owner check yet" in await agent.ok("review_get", task=key)

    run(server, scenario)
