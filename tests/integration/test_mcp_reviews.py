"""The Owner check tools through the real client and server (§1 Review checklist, §3)."""

from __future__ import annotations

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

STEPS = [
    {"title": "Open the shop", "details": "Go to **/**"},
    {"title": "Login with 2FA", "details": "Use the test phone"},
    "Checkout",
]


def test_an_agent_writes_fixes_and_reads_its_owner_check(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "reviews")
        key = await new_task(agent, "reviews", title="Checkout", stage="dev")
        assert "No Owner check yet" in await agent.ok("review_get", task=key)

        text = await agent.ok("review_steps_set", task=key, steps=STEPS, session="worker")
        assert text.startswith(f"Owner check of {key} written.")
        assert "## Owner check — 0 of 3 accepted" in text
        assert "1. [open] Open the shop" in text
        again = await agent.ok(
            "review_steps_set", task=key, steps=["Open the shop", "Login with 2FA", "Checkout"]
        )
        assert again == f"Nothing changed: {key} already has these 3 step(s)."

        text = await agent.ok(
            "review_step_update", task=key, step="#2", details="Use the app", session="worker"
        )
        assert text == f"Step 2 of {key} 'Login with 2FA' is open: the owner looks again."
        text = await agent.err("review_step_update", task=key, step=2, status="accepted")
        assert "the owner accepts or rejects steps on the board" in text
        text = await agent.err("review_step_update", task=key, step=9, status="open")
        assert f"{key} has no step 9: its checklist has 3 step(s)." in text

        full = await agent.ok("review_get", task=key)
        assert full.startswith(f"# Owner check of {key} Checkout (stage dev)")
        assert "   Use the app" in full
        detail = await agent.ok("task_get", task=key)
        assert "## Owner check — 0 of 3 accepted" in detail

        text = await agent.ok("review_steps_set", task=key, steps=[])
        assert text == f"Removed the Owner check of {key}."
        events = await agent.ok("events_since", project="reviews")
        assert "review step 3 'Checkout' removed by" in events

    run(server, scenario)


def test_moving_to_review_without_a_checklist_answers_with_the_hint(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "reviewhint")
        key = await new_task(agent, "reviewhint", stage="dev")
        text = await agent.ok("task_set_stage", task=key, stage="review")
        assert (
            f"Hint: {key} has no Owner check yet: write it with review_steps_set (what the "
            "owner should check by eye), then attach screenshots with attach_file."
        ) in text
        warnings = [line for line in text.splitlines() if line.startswith("Warning")]
        assert not any("Owner check" in line for line in warnings)  # a hint, not a rule

        other = await new_task(agent, "reviewhint", stage="dev")
        await agent.ok("review_steps_set", task=other, steps=["Look at it"])
        text = await agent.ok("task_set_stage", task=other, stage="test")
        assert "Owner check" not in text

    run(server, scenario)
