"""Agents waiting for an answer (issue 19 §2) through hook_event with the real Claude Code
2.1.332 payloads: a permission prompt names the pending call, AskUserQuestion and
ExitPlanMode wait at once, the summary is redacted and cut, the wait ends on the next
UserPromptSubmit, PostToolUse or Stop, and the Inbox lists waiting agents longest first."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from agents.claude_code.hooks import HookResult, hook_event
from sessions import inbox
from sessions import services as session_services
from sessions.hooks import activity, waiting
from sessions.models import Session
from tests.sessions.hook_payloads import payload
from tests.support import tokens
from tests.support.board import signed_in_client
from tests.tasks.factories import ACTOR, make_project, make_task

pytestmark = pytest.mark.django_db

AGENT_ID = "40f76e57-78f2-4a22-82d2-11206736c928"
TOKEN = tokens.github()


@pytest.fixture(autouse=True)
def _fresh() -> None:
    waiting.forget()
    activity.activity_clock.clear()


def hook(name: str, **changes: Any) -> HookResult:
    return hook_event(payload=payload(name, session_id=AGENT_ID, **changes))


def bash(command: str) -> None:
    hook("PreToolUse.Bash", tool_input={"command": command, "description": "d"})


def permission() -> None:
    hook("Notification.permission_prompt.interactive")


def session() -> Session:
    return Session.objects.get(agent_session_id=AGENT_ID)


def state() -> tuple[str, str]:
    s = session()
    return s.hook_status, s.activity


def test_a_permission_prompt_waits_on_the_pending_call():
    bash("git push origin main")
    assert state() == ("working", "Bash")
    permission()
    assert state() == ("waiting", "Bash git push origin main")


@pytest.mark.parametrize(
    ("ending", "status"),
    [
        ("UserPromptSubmit.print", "working"),
        ("PostToolUse.Bash", "working"),
        ("Stop.first", "idle"),
    ],
)
def test_the_wait_ends_and_its_summary_is_gone(ending, status):
    bash("git push origin main")
    permission()
    hook(ending)
    assert state()[0] == status
    assert "git push" not in state()[1]


def test_a_token_in_the_command_never_reaches_the_database():
    bash(f"curl -H 'Authorization: token {TOKEN}' https://api.github.com/user")
    permission()
    status, line = state()
    assert status == "waiting"
    assert line.startswith("Bash curl -H")
    assert TOKEN not in line
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f'SELECT * FROM "{table}"')
            assert TOKEN not in repr(cursor.fetchall()), table


def test_the_summary_is_cut_at_200_characters():
    bash("echo " + "x" * 5000)
    permission()
    assert len(state()[1]) <= waiting.SUMMARY_MAX


def test_ask_user_question_and_exit_plan_mode_wait_at_once():
    question = {"questions": [{"question": "Which database, Postgres or SQLite?", "options": []}]}
    hook("PreToolUse.Bash", tool_name="AskUserQuestion", tool_input=question)
    assert state() == ("waiting", "AskUserQuestion Which database, Postgres or SQLite?")
    hook("PostToolUse.Bash", tool_name="AskUserQuestion")
    assert state()[0] == "working"
    plan = {"plan": "# Gift cards at checkout\n\n1. Field\n2. Balance"}
    hook("PreToolUse.Bash", tool_name="ExitPlanMode", tool_input=plan)
    assert state() == ("waiting", "ExitPlanMode Gift cards at checkout")


def test_an_idle_prompt_waits_for_input():
    hook("Notification.permission_prompt.interactive", notification_type="idle_prompt")
    assert state() == ("waiting", waiting.IDLE_LINE)


def test_the_inbox_lists_waiting_agents_longest_first_with_their_task():
    task = make_task(make_project("acme"), title="Gift cards")
    session_services.task_bind_session(task=task, session="alice", actor=ACTOR)
    session_services.session_touch(session="alice", hook_session=AGENT_ID, actor=ACTOR)
    other = "5b0c9a64-3c1e-4e7e-9d4a-0f6a2b1c3d4e"
    hook_event(payload=payload("Notification.permission_prompt.interactive", session_id=other))
    bash("git push origin main")
    permission()
    group = inbox.waiting_group()
    assert group is not None
    assert group.title == "Agents waiting for an answer"
    first, second = group.rows
    assert second.title == "alice (Claude Code) · Gift cards"  # the agent named
    assert (second.mark, first.mark) == ("CC", "CC")  # and its two letters, as on its card
    assert second.key == task.key
    assert second.detail == "waiting since just now: Bash git push origin main"
    assert first.title != second.title  # the earlier wait first
    hook("PostToolUse.Bash")
    assert [r.key for r in inbox.waiting_group().rows] == [""]


def test_the_inbox_builds_the_waiting_rows_it_shows_and_counts_the_rest():
    for n in range(3):
        Session.objects.create(
            name=f"w{n}", kind="hook", hook_status="waiting", created_at=timezone.now()
        )
    group = inbox.waiting_group(2)
    assert group is not None
    assert (len(group.rows), group.count) == (2, 3)
    assert [r.title for r in group.rows] == [r.title for r in inbox.waiting_group().rows][:2]
    assert inbox.waiting_group(5).count == 3


def test_the_sessions_page_says_what_a_session_waits_on():
    bash("git push origin main")
    permission()
    html = signed_in_client().get("/sessions").content.decode()
    assert "Waiting on</span>" in html
    assert SUMMARY_HTML in html


SUMMARY_HTML = '<span class="ss-activity-text">Bash git push origin main</span>'
