"""Working rules over MCP (§6): warn and strict mode, the layers, the ignored override and
the server instructions built from the global rules — through the real client and server."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.support.server import RelaybayServer, clean_env

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


def test_warn_mode_moves_with_warnings_that_also_reach_the_event_log(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "warny")
        key = await new_task(agent, "warny", size="S")
        text = await agent.ok("task_update", task=key, stage="done", session="tester")
        assert text.splitlines() == [
            f"Moved {key} plan → done (version 2).",
            "Warning (rules): only the owner moves a task to done",
            "Warning (rules): moving to done usually needs progress",
        ]
        events = await agent.ok("events_since", project="warny")
        assert f"task.stage_changed {key} — plan → done (2 rule warning(s)) (tester)" in events

    run(server, scenario)


def test_strict_mode_refuses_a_move_that_misses_a_rule_and_changes_nothing(
    tmp_path: Path,
) -> None:
    strict = RelaybayServer(home=tmp_path / "home", env={"RELAYBAY_RULES_MODE": "strict"})
    strict.start()
    try:

        async def scenario(agent: Agent) -> None:
            await new_project(agent, "strict")
            key = await new_task(agent, "strict", next_step="look")
            text = await agent.err("task_set_stage", task=key, stage="dev", next_step="code")
            assert "Rules: moving to dev usually needs an accepted plan" in text
            assert text.endswith("Nothing changed.")
            text = await agent.err("task_patch", task=key, fields={"stage": "done"})
            assert (
                "Rules: only the owner moves a task to done; moving to done usually needs "
                "progress. Nothing changed." in text
            )
            detail = await agent.ok("task_get", task=key)
            assert "- Stage: plan" in detail
            assert "- Next step: look\n" in detail  # the refused write kept nothing
            assert "version 1" in detail
            # size S spares the plan, so the same move passes in strict mode too.
            text = await agent.ok("task_update", task=key, size="S", stage="dev")
            assert text.startswith(f"Moved {key} plan → dev; updated size")
            rules = await agent.ok("rules_get")
            assert "(mode strict)" in rules

        run(strict, scenario)
    finally:
        strict.stop()


CONFIG_RULES = """
[rules]
guidance = "Config guidance: keep commits small."

[rules.report_format]
first_line = "state | size | gist"
states = ["changed", "verified", "blocked"]

[rules.stage_requirements]
review = [{kind = "field_present", field = "branch"}]
test = []
"""


def set_project_rules(home: Path, project: str, body: str) -> None:
    """Insert a project override through the real service, in a process of its own.

    §6 has no tool for it; going through tasks.services.set_project_rules (not sqlite3 into
    tasks_projectrules) keeps the one write path and its project.updated event, and the
    server reads the row on every call, so no restart is needed.
    """
    code = textwrap.dedent(
        f"""
        import django
        django.setup()
        from tasks import services
        services.set_project_rules(project={project!r}, body={body!r}, actor="owner")
        """
    )
    env = clean_env(RELAYBAY_HOME=str(home), DJANGO_SETTINGS_MODULE="relaybay_site.settings")
    subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, check=True, capture_output=True, text=True
    )


def test_rules_layers_merge_and_a_broken_project_override_is_ignored_with_a_note(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(CONFIG_RULES)
    layered = RelaybayServer(home=home).start()
    try:

        async def setup(agent: Agent) -> None:
            await new_project(agent, "good")
            await new_project(agent, "bad")

        run(layered, setup)
        set_project_rules(
            home,
            "good",
            '{"guidance": "Project guidance: ask before migrations.",'
            ' "stage_requirements": {"done": []}, "owner_only_stages": []}',
        )
        set_project_rules(home, "bad", '{"stage_requirements": {"shipping": []}}')
        global_hash = layered.healthz()["rules_hash"]

        async def scenario(agent: Agent) -> None:
            instructions = agent.client.instructions
            assert "first line is `state | size | gist`" in instructions
            assert "(states: changed, verified, blocked; sizes: S, M, L)" in instructions
            assert len(re.findall(r"^\d+\. ", instructions, re.M)) == 11
            assert "memory_search finds what earlier sessions recorded" in instructions
            assert "Only the owner moves a task to done." in instructions

            rules = await agent.ok("rules_get")
            assert rules.startswith(f"# Working rules {global_hash} (mode warn)")
            assert "- First line: `state | size | gist`" in rules
            assert "- to review: branch filled in" in rules
            assert "- to test:" not in rules  # [] dropped the built-in requirement
            assert "- to dev: an accepted plan" in rules  # untouched built-in layer
            assert "Config guidance: keep commits small." in rules
            assert "Read project_snapshot first" not in rules  # config replaced it

            good = await agent.ok("rules_get", project="good")
            assert "Config guidance: keep commits small.\n\nProject guidance" in good
            assert "- to done:" not in good  # neither progress nor owner-only
            good_line = (await agent.ok("project_snapshot", project="good")).splitlines()[0]
            assert good_line.startswith("Rules ")
            assert global_hash not in good_line  # the override changes the hash
            assert good_line.endswith("(read relaybay://rules/good)")

            bad = await agent.ok("rules_get", project="bad")
            assert bad.startswith(f"# Working rules for bad {global_hash} (mode warn)")
            assert "Note: project override ignored: stage_requirements.shipping: unknown stage" in (
                bad
            )
            bad_line = (await agent.ok("project_snapshot", project="bad")).splitlines()[0]
            assert bad_line.startswith(f"Rules {global_hash}: accepted plan before dev")
            assert "· project override ignored: stage_requirements.shipping" in bad_line
            assert await agent.read("relaybay://rules/bad") == bad

            key = await new_task(agent, "good", size="S")
            text = await agent.ok("task_set_stage", task=key, stage="review")
            assert "Warning (rules): moving to review usually needs branch" in text
            text = await agent.ok("task_set_stage", task=key, stage="done")
            assert "Warning (rules)" not in text  # the project dropped the done requirement
            text = await agent.ok(
                "report_add", task=key, body="verified | M | works\n\nall good", session="x"
            )
            assert "[verified · M]" in text  # the configured separator parses

        run(layered, scenario)
        # Read four times above, logged once (§6).
        assert layered.log().count("stage_requirements.shipping: unknown stage") == 1
    finally:
        layered.stop()


# --- field semantics ---------------------------------------------------------------------------


def test_the_server_instructions_are_the_eleven_point_working_contract(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        text = agent.client.instructions
        points = re.findall(r"^(\d+)\. (.*)$", text, re.M)
        assert [int(n) for n, _ in points] == list(range(1, 12))
        joined = " ".join(p for _, p in points)
        for needle in [
            "project_snapshot",
            "session_title",
            "hook_session",
            "local_",
            "next_step, waiting_on and progress",
            "`state · size · gist`",
            "states: inspected, changed, verified, committed, pushed, blocked",
            "waiting_on to who decides",
            "task_patch",
            "Warning (rules)",
            "comment_ack",
            "comment_add",
            "environments_get",
            "environment_propose",
            "never paste secrets",
            "review_steps_set",
            "attach_file",
            "plan_set",
            "PLAN.md",
            "plan_step_update",
            "`as planned` or `deviation: why`",
        ]:
            assert needle in joined, needle

    run(server, scenario)
