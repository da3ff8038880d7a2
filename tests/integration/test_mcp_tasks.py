"""The tasks tools through the real MCP client against a real `relaybay serve` (§1, §3).

Every call goes over Streamable HTTP exactly as Claude Code would make it, so these tests
also pin the markdown the model reads. The module server is shared: each test uses its own
project slug so the tests do not see each other's tasks. The working rules have their own
module (test_mcp_rules.py).
"""

from __future__ import annotations

import re

import pytest
from mcp.shared.exceptions import MCPError

from tests.integration.mcp_agent import Agent, has_tool, new_project, new_task, run
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

READ_TOOLS = {"project_list", "project_snapshot", "task_list", "task_get", "events_since"}
READ_TOOLS |= {"rules_get"}
WRITE_TOOLS = {
    "project_upsert",
    "task_create",
    "task_update",
    "task_patch",
    "task_set_stage",
    "report_add",
    "decision_add",
}


def test_a_task_goes_through_its_whole_life_cycle_over_mcp(server: RelaybayServer) -> None:
    can_bind = has_tool(server, "task_bind_session")

    async def scenario(agent: Agent) -> None:
        missing = await agent.err("project_snapshot", project="life")
        assert "Unknown project life" in missing
        assert "project_upsert" in missing

        created = await agent.ok(
            "project_upsert", slug="life", name="Life Shop", repo_path="/srv/life", session="s1"
        )
        assert created.startswith("Created project life 'Life Shop'.")

        snapshot = await agent.ok("project_snapshot", project="life")
        first, *_ = snapshot.splitlines()
        assert re.match(r"Rules [0-9a-f]{8}: accepted plan before dev, report before test", first)
        assert first.endswith("(read relaybay://rules/life)")
        assert "# Life Shop (life)" in snapshot
        assert "No tasks yet." in snapshot

        text = await agent.ok(
            "task_create",
            project="life",
            title="Fix login",
            description="Login fails with 2FA.",
            next_step="read the auth code",
            session="s1",
        )
        assert text == "Created life-1 'Fix login' in plan (version 1)."

        if can_bind:
            bound = await agent.ok("task_bind_session", task="life-1", session="s1")
            assert "life-1" in bound

        moved = await agent.ok(
            "task_set_stage",
            task="life-1",
            stage="dev",
            next_step="write the fix",
            waiting_on="agent",
            session="s1",
        )
        lines = moved.splitlines()
        assert lines[0].startswith("Moved life-1 plan → dev; updated ")
        assert "Warning (rules): moving to dev usually needs an accepted plan" in moved
        assert any(ln.startswith("Hint: life-1 has no plan and no todo yet") for ln in lines)

        early = await agent.ok("task_set_stage", task="life-1", stage="test", session="s1")
        assert early.startswith("Moved life-1 dev → test")
        assert (
            "Warning (rules): moving to test usually needs a report since the last stage change"
            in early
        )
        back = await agent.ok("task_set_stage", task="life-1", stage="dev", session="s1")
        assert back.startswith("Moved life-1 test → dev")

        report = await agent.ok(
            "report_add",
            task="life-1",
            body="changed · M · login accepts 2FA codes\n\nTouched auth/otp.py.",
            progress="OTP check fixed; tests pass locally.",
            next_step="owner tests on staging",
            waiting_on="owner",
            session="s1",
        )
        assert re.match(
            r"Added report #\d+ to life-1 \[changed · M\]: changed · M · login accepts 2FA "
            r"codes \(version \d+\)\.",
            report,
        )
        assert "Size M taken from the report for life-1." in report

        to_test = await agent.ok(
            "task_set_stage", task="life-1", stage="test", next_step="owner tests", session="s1"
        )
        assert to_test.startswith("Moved life-1 dev → test")
        assert "Warning (rules)" not in to_test

        decision = await agent.ok(
            "decision_add", task="life-1", text="Use TOTP only.", decided_by="owner"
        )
        assert decision.startswith("Recorded decision #")
        assert "for life-1 (decided by owner): Use TOTP only." in decision

        done = await agent.ok("task_set_stage", task="life-1", stage="done", session="s1")
        assert done.startswith("Moved life-1 test → done")
        # progress is there; the one warning left says that done is the owner's move
        assert done.splitlines()[1:] == ["Warning (rules): only the owner moves a task to done"]

        detail = await agent.ok("task_get", task="life-1")
        assert detail.startswith("# life-1 Fix login\nProject life · version ")
        assert "- Stage: done (since " in detail
        assert "- Waiting on: owner" in detail
        assert "- Next step: owner tests (stale" in detail  # written before the move to done
        assert "- Size: M · Priority: -" in detail
        assert "- Closed: " in detail
        assert "## Description\n\nLogin fails with 2FA." in detail
        assert "## Progress\n\nOTP check fixed; tests pass locally." in detail
        assert "[changed · M] changed · M · login accepts 2FA codes — s1" in detail
        assert "Touched auth/otp.py." in detail  # the newest report in full
        assert "## Decisions\n- Use TOTP only. (owner, " in detail
        assert detail.rstrip().splitlines()[-1].startswith("Editable fields: title, stage, ")

        snapshot = await agent.ok("project_snapshot", project="life")
        assert "Tasks: plan 0 · dev 0 · review 0 · test 0 · live 0 · done 1" in snapshot
        assert "## done (closed in the last 7 days)\n- life-1 Fix login [M]" in snapshot
        assert "## Decisions (newest first)\n- life-1: Use TOTP only. (owner, " in snapshot

        listed = await agent.ok("task_list", project="life")
        assert "1 done task(s) left out; pass include_done=true." in listed
        listed = await agent.ok("task_list", project="life", include_done=True)
        assert "## done\n- life-1 Fix login [M]" in listed

        projects = await agent.ok("project_list")
        assert "- life — Life Shop: 0 open, 1 done · /srv/life" in projects

    run(server, scenario)


# --- error paths -------------------------------------------------------------------------------


def test_unknown_keys_and_projects_are_tool_errors_that_say_what_to_do(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "errs")
        for tool, args in [
            ("task_get", {}),
            ("task_update", {"priority": "high"}),
            ("task_patch", {"fields": {"priority": "high"}}),
            ("task_set_stage", {"stage": "dev"}),
            ("report_add", {"body": "changed · S · x"}),
            ("decision_add", {"text": "x"}),
        ]:
            text = await agent.err(tool, task="errs-99", **args)
            assert "Unknown task errs-99. Call task_list to see the keys." in text, tool
        for tool, args in [
            ("project_snapshot", {}),
            ("task_list", {}),
            ("task_create", {"title": "x"}),
            ("events_since", {}),
            ("rules_get", {}),
            ("decision_add", {"text": "x"}),
        ]:
            text = await agent.err(tool, project="nope", **args)
            assert "Unknown project nope. Call project_list" in text, tool
        text = await agent.err("decision_add", text="x")
        assert "Pass project (a slug), task (a key) or both." in text

    run(server, scenario)


def test_invalid_values_are_refused_naming_the_field_and_nothing_changes(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "vals")
        key = await new_task(agent, "vals")

        text = await agent.err("project_upsert", slug="Vals-Shop")
        assert "Invalid slug 'Vals-Shop'" in text
        assert "Use 'vals-shop'." in text
        text = await agent.err("project_upsert", slug="vals shop!")
        assert "such as 'vals-shop'" in text

        text = await agent.err("task_set_stage", task=key, stage="shipping")
        assert "Unknown stage 'shipping'. Stages: plan, dev, review, test, live, done." in text
        text = await agent.err("task_update", task=key, stage="qa")
        assert "Stages: plan, dev, review, test, live, done." in text
        text = await agent.err("task_list", project="vals", stage="qa")
        assert "Stages: plan, dev, review, test, live, done." in text

        text = await agent.err("task_update", task=key, size="XL")
        assert "size must be one of S, M, L, or - to clear; got 'XL'." in text
        text = await agent.err("task_create", project="vals", title="x", size="huge")
        assert "size must be one of S, M, L" in text

        text = await agent.err("task_update", task=key, tracker_url="ftp://tracker/1")
        assert "tracker_url must be an http:// or https:// link" in text
        text = await agent.err("task_patch", task=key, fields={"tracker_url": "javascript:x"})
        assert "tracker_url must be an http:// or https:// link" in text

        text = await agent.err("task_update", task=key, title="t" * 301)
        assert "title is 301 characters long; the limit is 300" in text
        text = await agent.err("task_update", task=key, waiting_on="w" * 201)
        assert "waiting_on is 201 characters long; the limit is 200" in text
        text = await agent.err("task_update", task=key, tracker_ref="R" * 101)
        assert "tracker_ref is 101 characters long; the limit is 100" in text
        text = await agent.err("task_create", project="vals", title="x" * 301)
        assert "the limit is 300" in text
        text = await agent.err("report_add", task=key, body="b" * 50_001)
        assert "body is 50001 characters long; the limit is 50000" in text
        text = await agent.err("task_update", task=key, title="-")
        assert "title cannot be cleared" in text

        text = await agent.err("task_patch", task=key, fields={"colour": "red"})
        assert "Unknown task field. Editable fields: title, stage," in text
        assert "colour" not in text
        text = await agent.err("task_patch", task=key, fields={})
        assert "fields is empty" in text
        text = await agent.err("report_add", task=key, body="   ")
        assert "body is empty" in text

        assert await agent.version(key) == 1  # not one of these writes changed anything

    run(server, scenario)


def test_a_stale_expected_version_fails_and_names_the_current_version(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "vers")
        key = await new_task(agent, "vers")
        text = await agent.ok("task_update", task=key, expected_version=1, priority="high")
        assert text == f"Updated {key}: priority (version 2)."
        for tool, args in [
            ("task_update", {"priority": "low"}),
            ("task_patch", {"fields": {"priority": "low"}}),
            ("task_set_stage", {"stage": "dev"}),
        ]:
            text = await agent.err(tool, task=key, expected_version=1, **args)
            assert f"{key} is at version 2, not 1." in text, tool
            assert "expected_version=2" in text
        assert await agent.version(key) == 2
        # 0 (or leaving it out) means "do not check": the last write wins.
        await agent.ok("task_update", task=key, expected_version=0, priority="low")
        await agent.ok("task_patch", task=key, fields={"priority": "mid"}, expected_version=3)
        assert await agent.version(key) == 4

    run(server, scenario)


# --- working rules: warn, strict, layers -------------------------------------------------------


def test_a_dash_or_an_empty_string_clears_an_optional_field(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "clear", repo_path="/srv/clear", description="About")
        key = await new_task(
            agent, "clear", waiting_on="owner", branch="fix/x", size="M", priority="high"
        )
        text = await agent.ok("task_update", task=key, waiting_on="-", branch="", size="-")
        assert text == f"Updated {key}: waiting_on, branch, size (version 2)."
        text = await agent.ok("task_patch", task=key, fields={"priority": ""})
        assert text == f"Updated {key}: priority (version 3)."
        detail = await agent.ok("task_get", task=key)
        assert "- Waiting on: -" in detail
        assert "- Branch: -" in detail
        assert "- Size: - · Priority: -" in detail
        # Leaving a field out (null) is not clearing it.
        text = await agent.ok("task_update", task=key, waiting_on=None, expected_version=3)
        assert text == f"Nothing changed: {key} already has these values (version 3)."
        text = await agent.ok("project_upsert", slug="clear", repo_path="-", description="")
        assert text == "Updated project clear: repo_path, description."
        assert "Repo:" not in await agent.ok("project_snapshot", project="clear")

    run(server, scenario)


def test_task_patch_reaches_every_editable_field(server: RelaybayServer) -> None:
    values = {
        "title": "Patched title",
        "stage_note": "waiting for data",
        "waiting_on": "owner",
        "next_step": "ask for data",
        "branch": "feat/patch",
        "document_path": "docs/patch.md",
        "description": "Patched description.",
        "progress": "Patched progress.",
        "priority": "P1",
        "size": "L",
        "tracker_ref": "PAT-1",
        "tracker_name": "Jira",
        "tracker_url": "https://jira.example/PAT-1",
        "tracker_logged": True,
        "stage": "review",
    }

    async def scenario(agent: Agent) -> None:
        await new_project(agent, "patch")
        key = await new_task(agent, "patch")
        detail = await agent.ok("task_get", task=key)
        editable = detail.rstrip().splitlines()[-1].removeprefix("Editable fields: ").split(", ")
        assert sorted(editable) == sorted(values)
        text = await agent.ok("task_patch", task=key, fields=values, expected_version=1)
        assert text.startswith(f"Moved {key} plan → review; updated ")
        detail = await agent.ok("task_get", task=key)
        assert detail.startswith(f"# {key} Patched title")
        for line in [
            "- Stage: review — waiting for data",
            "- Waiting on: owner",
            "- Next step: ask for data",
            "- Size: L · Priority: P1",
            "- Branch: feat/patch",
            "- Document: docs/patch.md",
            "- Tracker: Jira PAT-1 https://jira.example/PAT-1 · logged",
            "Patched description.",
            "Patched progress.",
        ]:
            assert line in detail, line

    run(server, scenario)


def test_new_work_clears_the_tracker_mark_and_metadata_edits_keep_it(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "track")
        key = await new_task(agent, "track", tracker_ref="TR-1", tracker_name="Jira")
        assert "Jira TR-1 (not logged)" in await agent.ok("project_snapshot", project="track")

        await agent.ok("task_update", task=key, tracker_logged=True)
        assert "Jira TR-1 ✓" in await agent.ok("project_snapshot", project="track")

        text = await agent.ok("task_update", task=key, priority="high", title="Renamed")
        assert "Tracker mark cleared" not in text  # metadata edits keep the mark

        text = await agent.ok("report_add", task=key, body="changed · S · more work")
        assert f"Tracker mark cleared on {key} (report added): log the work in TR-1" in text
        assert "- Tracker: Jira TR-1 · not logged" in await agent.ok("task_get", task=key)

        await agent.ok("task_update", task=key, tracker_logged=True)
        text = await agent.ok("task_update", task=key, progress="more progress")
        assert f"Tracker mark cleared on {key} (progress changed)" in text

        text = await agent.ok("task_update", task=key, progress="again", tracker_logged=True)
        assert "Tracker mark cleared" not in text  # an explicit tracker_logged wins
        assert "· logged" in await agent.ok("task_get", task=key)

        await agent.ok("task_set_stage", task=key, stage="done")
        await agent.ok("task_update", task=key, tracker_logged=True)
        text = await agent.ok("task_set_stage", task=key, stage="dev")
        assert f"Tracker mark cleared on {key} (moved back from done to dev)" in text

        await agent.ok("task_update", task=key, tracker_logged=True)
        await agent.ok("task_update", task=key, tracker_ref="TR-2")
        detail = await agent.ok("task_get", task=key)
        assert "- Tracker: Jira TR-2 · not logged" in detail  # a new key starts unlogged
        assert "- Earlier tracker keys: TR-1" in detail

        events = await agent.ok("events_since", project="track")
        assert f"task.tracker_unlogged {key} — tracker mark cleared (report added)" in events
        assert "tracker mark cleared (moved back from done to dev)" in events

    run(server, scenario)


def test_a_next_step_from_before_the_stage_change_is_stale_until_confirmed(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "stale")
        key = await new_task(agent, "stale", size="S", next_step="write the parser")
        assert "next: write the parser (stale)" not in await agent.ok(
            "project_snapshot", project="stale"
        )
        await agent.ok("task_set_stage", task=key, stage="dev")
        snapshot = await agent.ok("project_snapshot", project="stale")
        assert f"- {key} A task [S] · next: write the parser (stale)" in snapshot
        assert "- Next step: write the parser (stale" in await agent.ok("task_get", task=key)

        text = await agent.ok("task_update", task=key, next_step="write the parser")
        assert text.startswith(f"Updated {key}: next_step (version 3).")
        detail = await agent.ok("task_get", task=key)
        assert "- Next step: write the parser\n" in detail
        events = await agent.ok("events_since", project="stale")
        assert f"task.updated {key} — confirmed next_step" in events

        # Confirmed and unchanged: writing it again is a no-op.
        text = await agent.ok("task_update", task=key, next_step="write the parser")
        assert text == f"Nothing changed: {key} already has these values (version 3)."
        # The same text passed with a move counts as written after it.
        await agent.ok("task_set_stage", task=key, stage="review", next_step="write the parser")
        assert "(stale)" not in await agent.ok("task_list", project="stale")

    run(server, scenario)


# --- resources, events, listing ----------------------------------------------------------------


def test_resources_match_their_tools(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "res", name="Res")
        await new_task(agent, "res", title="Resource task")
        templates = await agent.client.list_resource_templates()
        resources = await agent.client.list_resources()
        uris = {str(t.uri_template) for t in templates.resource_templates}
        uris |= {str(r.uri) for r in resources.resources}
        assert {
            "relaybay://project/{slug}",
            "relaybay://rules",
            "relaybay://rules/{project}",
            "relaybay://schema/task",
        } <= uris

        assert await agent.read("relaybay://project/res") == await agent.ok(
            "project_snapshot", project="res"
        )
        assert await agent.read("relaybay://rules") == await agent.ok("rules_get")
        assert await agent.read("relaybay://rules/res") == await agent.ok(
            "rules_get", project="res"
        )
        schema = await agent.read("relaybay://schema/task")
        assert "| Field | Type | Max | Description | Clear with |" in schema
        assert "| tracker_url | url | 2000 |" in schema

        with pytest.raises(MCPError) as caught:
            await agent.read("relaybay://project/nope")
        assert "Unknown project nope" in str(caught.value)

    run(server, scenario)


def test_events_since_gives_one_line_per_event_and_the_id_to_pass_next(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "evts")
        key = await new_task(agent, "evts", title="Eventful", size="S")
        await agent.ok("task_set_stage", task=key, stage="dev", session="ev-agent")
        await agent.ok("report_add", task=key, body="changed · S · parser done", session="ev")
        text = await agent.ok("events_since", project="evts")
        lines = text.splitlines()
        pattern = re.compile(r"^#(\d+) (just now|\d+ min ago) (\S+) (\S+) — (.+) \((.+)\)$")
        events = [pattern.match(ln) for ln in lines[:-2]]
        assert all(events), lines
        # session.* rows belong to the sessions app (a write names its session).
        ours = [m for m in events if not m.group(3).startswith("session.")]
        assert [(m.group(3), m.group(4), m.group(5), m.group(6)) for m in ours] == [
            ("project.created", "evts", "project evts created", "tester"),
            ("task.created", key, "created in plan: Eventful", "tester"),
            ("task.stage_changed", key, "plan → dev", "ev-agent"),
            ("report.added", key, "changed · S · parser done", "ev"),
        ]
        newest = int(events[-1].group(1))
        assert lines[-1] == f"Newest id: {newest}. Next time pass after_id={newest}."
        assert await agent.ok("events_since", after_id=newest, project="evts") == (
            f"No events after #{newest}. Next time pass after_id={newest}."
        )
        first = int(events[0].group(1))
        text = await agent.ok("events_since", after_id=first, project="evts", limit=1)
        assert len(text.splitlines()) == 3
        assert text.splitlines()[0].startswith(f"#{int(events[1].group(1))} ")
        assert "(there may be more: call again)" in text

    run(server, scenario)


def test_tools_list_marks_read_tools_read_only_and_write_tools_non_destructive(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        listing = await agent.client.list_tools()
        tools = {t.name: t for t in listing.tools}
        assert set(tools) >= READ_TOOLS | WRITE_TOOLS
        for name in READ_TOOLS:
            ann = tools[name].annotations
            assert ann.read_only_hint is True, name
            assert ann.open_world_hint is False, name
        for name in WRITE_TOOLS:
            ann = tools[name].annotations
            assert ann.read_only_hint is False, name
            assert ann.destructive_hint is False, name
            assert ann.open_world_hint is False, name
            props = tools[name].input_schema["properties"]
            assert {"session", "session_title", "hook_session"} <= set(props), name
        required = {n: set(t.input_schema.get("required", [])) for n, t in tools.items()}
        assert required["project_list"] == set()
        assert required["events_since"] == set()
        assert required["rules_get"] == set()
        assert required["project_upsert"] == {"slug"}
        assert required["task_create"] == {"project", "title"}
        assert required["task_update"] == {"task"}
        assert required["task_patch"] == {"task", "fields"}
        assert required["task_set_stage"] == {"task", "stage"}
        assert required["report_add"] == {"task", "body"}
        assert required["decision_add"] == {"text"}
        update = tools["task_update"].input_schema["properties"]
        editable = (await agent.ok("task_get", task=await _any_task(agent))).splitlines()[-1]
        for name in editable.removeprefix("Editable fields: ").split(", "):
            assert name in update, name
        assert update["expected_version"]["type"] == "integer"
        for name in READ_TOOLS | WRITE_TOOLS:
            assert "Returns:" in tools[name].description, name
            assert not tools[name].description.startswith(" ")

    run(server, scenario)


async def _any_task(agent: Agent) -> str:
    await new_project(agent, "anyt")
    return await new_task(agent, "anyt")
