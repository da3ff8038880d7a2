"""The turn-end status check (issue 19 §1) through hook_event with the real Claude Code
2.1.332 payloads: a turn that changed files in a bound task and wrote nothing to it is
reminded (warn) or its Stop blocked once (block); reading is not work; a report, progress,
next_step or stage change is a write; never twice for the same state; the block respects
the turn's budget."""

from __future__ import annotations

from typing import Any

import pytest

from agents.claude_code.hooks import HookResult, hook_event
from sessions import services as session_services
from sessions.hooks import activity, turn_end
from sessions.models import Session
from tasks import services as task_services
from tasks.models import Task
from tests.sessions.hook_payloads import payload
from tests.tasks.factories import ACTOR, add_report, make_project, make_task, use_config

pytestmark = pytest.mark.django_db

AGENT_ID = "40f76e57-78f2-4a22-82d2-11206736c928"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    turn_end.forget()
    activity.activity_clock.clear()


def bound_task(name: str = "alice", **fields: Any) -> Task:
    """A task bound to session `name`, whose agent linked AGENT_ID exactly."""
    task = make_task(make_project("acme"), title="Checkout", **fields)
    session_services.task_bind_session(task=task, session=name, actor=ACTOR)
    session_services.session_touch(session=name, hook_session=AGENT_ID, actor=ACTOR)
    return task


def hook(name: str, **changes: Any) -> HookResult:
    return hook_event(payload=payload(name, session_id=AGENT_ID, **changes))


def prompt() -> str:
    return context(hook("UserPromptSubmit.print"))


def tool(tool_name: str) -> None:
    hook("PostToolUse.Bash", tool_name=tool_name)


def stop(first: bool = True) -> dict[str, Any] | None:
    return hook("Stop.first" if first else "Stop.after_block").answer


def context(result: HookResult) -> str:
    answer = result.answer or {}
    return answer.get("hookSpecificOutput", {}).get("additionalContext", "")


def block_mode(settings: Any, tmp_path: Any) -> None:
    use_config(settings, tmp_path / "home", rules_toml='[rules]\nturn_end_update = "block"\n')


# --- remind (the default in warn mode) -----------------------------------------------------------


def test_a_turn_that_changed_files_is_reminded_at_the_next_prompt():
    task = bound_task()
    prompt()
    tool("Edit")
    assert stop() is None  # remind never blocks
    line = turn_end.reminder(task.key)
    assert line.startswith(f"{task.key}: you changed files this turn; update progress")
    assert line in prompt()
    assert line not in prompt()  # delivered once


def test_the_reminder_also_rides_on_the_next_pre_tool_use():
    task = bound_task()
    prompt()
    tool("Bash")
    stop()
    assert turn_end.reminder(task.key) in context(hook("PreToolUse.Bash"))


@pytest.mark.parametrize(
    "tool_name", ["Read", "Grep", "Glob", "WebFetch", "mcp__relaybay__task_get"]
)
def test_reading_is_not_work(tool_name):
    bound_task()
    prompt()
    tool(tool_name)
    stop()
    assert "you changed files" not in prompt()


@pytest.mark.parametrize(
    "write",
    [
        lambda t: add_report(t),
        lambda t: task_services.task_update(key=t.key, progress="Form done", actor=ACTOR),
        lambda t: task_services.task_update(key=t.key, next_step="Tests", actor=ACTOR),
        lambda t: task_services.task_set_stage(key=t.key, stage="review", actor=ACTOR),
    ],
    ids=["report", "progress", "next_step", "stage"],
)
def test_a_turn_that_wrote_to_its_task_is_not_reminded(write):
    task = bound_task()
    prompt()
    tool("Write")
    write(task)
    stop()
    assert "you changed files" not in prompt()


def test_a_write_before_this_turn_does_not_count():
    task = bound_task()
    task_services.task_update(key=task.key, progress="Yesterday's state", actor=ACTOR)
    prompt()
    tool("Edit")
    stop()
    assert turn_end.reminder(task.key) in prompt()


def test_a_second_stop_in_a_row_is_not_reminded_again():
    task = bound_task()
    prompt()
    tool("Edit")
    stop()
    stop()
    assert prompt().count(turn_end.reminder(task.key)) == 1


def test_a_done_task_a_guessed_link_and_no_task_are_left_alone():
    bound_task(stage="done")
    prompt()
    tool("Edit")
    stop()
    assert "you changed files" not in prompt()
    Session.objects.filter(agent_session_id=AGENT_ID).update(agent_exact=False)
    tool("Edit")
    stop()
    assert "you changed files" not in prompt()


# --- block ----------------------------------------------------------------------------------------


def test_block_mode_blocks_that_stop_once_with_the_reminder(settings, tmp_path):
    block_mode(settings, tmp_path)
    task = bound_task()
    prompt()
    tool("Edit")
    assert stop() == {"decision": "block", "reason": turn_end.reminder(task.key)}
    assert stop(first=False) is None  # the second Stop in a row passes
    tool("Edit")  # more work in the same turn: still never a second block
    assert stop(first=False) is None
    prompt()
    tool("Edit")  # a new turn may be blocked again
    assert stop() == {"decision": "block", "reason": turn_end.reminder(task.key)}


def test_strict_mode_blocks_by_default(settings, tmp_path):
    use_config(settings, tmp_path / "home", mode="strict")
    task = bound_task()
    prompt()
    tool("MultiEdit")
    assert stop() == {"decision": "block", "reason": turn_end.reminder(task.key)}


def test_no_block_when_comment_blocks_used_the_turns_budget(settings, tmp_path):
    block_mode(settings, tmp_path)
    bound_task()
    prompt()
    tool("Edit")
    Session.objects.filter(agent_session_id=AGENT_ID).update(stop_blocks=2)
    assert stop() is None


def test_off_says_nothing(settings, tmp_path):
    use_config(settings, tmp_path / "home", rules_toml='[rules]\nturn_end_update = "off"\n')
    bound_task()
    prompt()
    tool("Edit")
    assert stop() is None
    assert "you changed files" not in prompt()
