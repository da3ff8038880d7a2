"""Possibly stuck and forgotten sessions (issue 19 §3, §4) through hook_event with the real
Claude Code 2.1.332 payloads and the sessions table: the same call N times in a row (only
its hash kept), long work without a relaybay write, both cleared by progress; sessions
working with no task and sessions idle for a day, and the owner's Dismiss."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from agents.claude_code.hooks import hook_event
from core import tokens
from core.security import current_token
from sessions import services as session_services
from sessions.hooks import activity, forgotten, stuck, sweep
from sessions.models import Session, TaskBinding
from tasks import services as task_services
from tasks.models import Event, Task
from tasks.selectors.inbox import inbox as build_inbox
from tests.sessions.hook_payloads import payload
from tests.support.board import signed_in_client
from tests.tasks.factories import ACTOR, make_project, make_task, use_config

pytestmark = pytest.mark.django_db

AGENT_ID = "40f76e57-78f2-4a22-82d2-11206736c928"
SECRET_INPUT = "psql -c 'select * from orders' # marker-7f3a"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    stuck.forget()
    activity.activity_clock.clear()


def bound_task(name: str = "alice") -> Task:
    task = make_task(make_project("acme"), title="Checkout")
    session_services.task_bind_session(task=task, session=name, actor=ACTOR)
    session_services.session_touch(session=name, hook_session=AGENT_ID, actor=ACTOR)
    return task


def call(command: str = SECRET_INPUT, **changes: Any) -> None:
    tool_input = {"command": command, "description": "d"}
    hook_event(payload=payload("PreToolUse.Bash", session_id=AGENT_ID, tool_input=tool_input))


def stuck_rows() -> list[Any]:
    group = stuck.stuck_group()
    return list(group.rows) if group else []


# --- the same call again and again ---------------------------------------------------------


def test_five_identical_calls_in_a_row_are_possibly_stuck():
    task = bound_task()
    for _ in range(4):
        call()
    assert stuck_rows() == []
    call()
    [row] = stuck_rows()
    assert row.key == task.key
    assert row.title == "alice (Claude Code) · Checkout"  # the agent named
    assert row.mark == "CC"  # and its two letters, as on its card
    assert row.detail.startswith("the same Bash call 5 times in a row · since ")
    [event] = Event.objects.filter(kind="session.stuck")
    assert event.payload == {"session": "alice", "reason": "the same Bash call 5 times in a row"}


def test_a_different_call_in_between_starts_the_count_again():
    bound_task()
    for i in range(8):
        call("ls" if i == 3 else SECRET_INPUT)
    assert stuck_rows() == []


def test_only_a_hash_of_the_input_is_kept():
    bound_task()
    for _ in range(6):
        call()
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f'SELECT * FROM "{table}"')
            assert "marker-7f3a" not in repr(cursor.fetchall()), table
    assert all("marker-7f3a" not in repr(r) for r in stuck._repeats.values())


def test_progress_clears_a_repetition():
    task = bound_task()
    for _ in range(5):
        call()
    assert stuck_rows()
    task_services.task_update(key=task.key, progress="Found the loop", actor=ACTOR)
    assert stuck_rows() == []


def test_zero_turns_the_repeat_check_off(settings, tmp_path):
    use_config(settings, tmp_path / "home", rules_toml="stuck_repeat_calls = 0\n")
    assert settings.RELAYBAY.stuck_repeat_calls == 0
    bound_task()
    for _ in range(10):
        call()
    assert not Event.objects.filter(kind="session.stuck").exists()
    assert stuck_rows() == []


# --- long work without a write -------------------------------------------------------------


def age_binding(task: Task, minutes: int) -> None:
    TaskBinding.objects.filter(task=task).update(
        bound_at=timezone.now() - timedelta(minutes=minutes)
    )


def test_working_long_without_a_write_is_possibly_stuck_and_a_write_clears_it():
    task = bound_task()
    hook_event(payload=payload("UserPromptSubmit.print", session_id=AGENT_ID))  # working
    age_binding(task, 50)
    Event.objects.filter(task=task).update(created_at=timezone.now() - timedelta(minutes=50))
    [row] = stuck_rows()
    assert row.detail.startswith("working 50 min without a relaybay write or a plan step change")
    task_services.task_update(key=task.key, next_step="Ask the owner", actor=ACTOR)
    assert stuck_rows() == []


def test_only_the_stuck_of_many_working_bindings_are_built_oldest_first():
    """The Inbox judges every working binding from its plain values and builds the stuck
    ones only: each with its own session and task, the longest quiet first."""
    project = make_project("acme")
    minutes = {"bob": 90, "carol": 5, "dave": 60}
    for name, quiet in minutes.items():
        task = make_task(project, title=f"Task of {name}")
        session_services.task_bind_session(task=task, session=name, actor=ACTOR)
        Session.objects.filter(name=name).update(hook_status="working")
        age_binding(task, quiet)
        Event.objects.filter(task=task).update(created_at=timezone.now() - timedelta(minutes=quiet))

    found = stuck.stuck_sessions()

    assert [(s.session, s.task.title) for s in found] == [
        ("bob", "Task of bob"),
        ("dave", "Task of dave"),
    ]
    assert [s.session_id for s in found] == [
        Session.objects.get(name=n).id for n in ("bob", "dave")
    ]
    assert found[0].reason.startswith("working 90 min")
    group = stuck.stuck_group(limit=1)  # the Inbox builds the rows it shows, counts them all
    assert group is not None
    assert [(r.key, r.title.split(" · ")[-1]) for r in group.rows] == [
        (found[0].task.key, "Task of bob")
    ]
    assert group.total == 2


def test_an_idle_session_is_not_stuck():
    task = bound_task()
    hook_event(payload=payload("Stop.first", session_id=AGENT_ID))  # idle
    age_binding(task, 90)
    Event.objects.filter(task=task).update(created_at=timezone.now() - timedelta(minutes=90))
    assert stuck_rows() == []


# --- forgotten sessions --------------------------------------------------------------------


def forgotten_titles() -> list[str]:
    group = forgotten.forgotten_group()
    return [r.title for r in group.rows] if group else []


def test_a_session_working_with_no_task_for_ten_minutes_is_forgotten():
    hook_event(payload=payload("UserPromptSubmit.print", session_id=AGENT_ID))
    session = Session.objects.get(agent_session_id=AGENT_ID)
    assert forgotten_titles() == []  # just started
    Session.objects.filter(pk=session.pk).update(created_at=timezone.now() - timedelta(minutes=12))
    assert forgotten_titles() == [f"{session.name} (Claude Code)"]  # the agent named
    row = forgotten.forgotten_group().rows[0]
    assert "working with no task bound (known for 12 min)" in row.detail
    assert row.action_label == "Dismiss"


def test_a_session_idle_for_a_day_is_forgotten_and_a_bound_working_one_is_not():
    bound_task()
    hook_event(payload=payload("UserPromptSubmit.print", session_id=AGENT_ID))
    Session.objects.filter(agent_session_id=AGENT_ID).update(
        created_at=timezone.now() - timedelta(hours=30)
    )
    assert forgotten_titles() == []  # bound and active
    Session.objects.filter(agent_session_id=AGENT_ID).update(
        hook_status="idle", activity_at=timezone.now() - timedelta(hours=25)
    )
    [row] = forgotten.forgotten_group().rows
    assert row.detail.startswith("idle since 1 d ago, not ended")


def test_the_inbox_builds_the_forgotten_rows_it_shows_and_counts_the_rest():
    old = timezone.now() - timedelta(hours=30)
    for n in range(3):
        Session.objects.create(name=f"f{n}", kind="hook", hook_status="idle", created_at=old)
    whole = forgotten.forgotten_group()
    first = forgotten.forgotten_group(2)
    assert whole is not None
    assert first is not None
    assert (len(first.rows), first.count, whole.count) == (2, 3, 3)
    assert first.rows == whole.rows[:2]


def test_dismiss_marks_the_session_ended_and_it_leaves_the_inbox():
    hook_event(payload=payload("Stop.first", session_id=AGENT_ID))
    session = Session.objects.get(agent_session_id=AGENT_ID)
    Session.objects.filter(pk=session.pk).update(activity_at=timezone.now() - timedelta(days=2))
    assert forgotten_titles() == [f"{session.name} (Claude Code)"]  # the agent named
    client = signed_in_client()
    url = reverse("session_dismiss", args=[session.pk])
    response = client.post(
        url,
        {"csrf_token": tokens.csrf_token(current_token())},
        HTTP_ORIGIN="http://testserver",
        HTTP_HOST="testserver",
    )
    assert response.status_code == 303
    assert response["Location"] == reverse("inbox")
    assert Session.objects.get(pk=session.pk).hook_status == "ended"
    assert forgotten_titles() == []
    page = client.get(reverse("inbox")).content.decode()
    assert f"Session {session.name} dismissed (marked ended)." in page


def test_dismiss_with_the_bearer_token_is_refused():
    hook_event(payload=payload("Stop.first", session_id=AGENT_ID))
    session = Session.objects.get(agent_session_id=AGENT_ID)
    response = Client().post(
        reverse("session_dismiss", args=[session.pk]),
        HTTP_AUTHORIZATION=f"Bearer {current_token()}",
        HTTP_HOST="testserver",
    )
    assert response.status_code == 403
    assert Session.objects.get(pk=session.pk).hook_status == "idle"


def test_the_inbox_page_lists_a_stuck_session():
    task = bound_task()
    for _ in range(5):
        call()
    groups = {g.id: g for g in inbox_groups()}
    assert [r.key for r in groups["possibly-stuck"].rows] == [task.key]


def inbox_groups() -> list[Any]:
    return list(build_inbox().groups)


def test_a_stuck_session_shows_on_its_card_and_the_sessions_page():
    task = bound_task()
    for _ in range(5):
        call()
    client = signed_in_client()
    line = "possibly stuck: the same Bash call 5 times in a row"
    board = client.get(reverse("board", args=[task.project.slug])).content.decode()
    assert f'<span class="chip chip-agent-stuck">{line}</span>' in board
    sessions = client.get(reverse("sessions")).content.decode()
    assert f'<p class="ss-signal" role="status">{line}</p>' in sessions


def test_a_forgotten_session_shows_on_the_sessions_page():
    hook_event(payload=payload("Stop.first", session_id=AGENT_ID))
    Session.objects.filter(agent_session_id=AGENT_ID).update(
        activity_at=timezone.now() - timedelta(hours=30)
    )
    sessions = signed_in_client().get(reverse("sessions")).content.decode()
    assert '<p class="ss-signal" role="status">forgotten: idle since 1 d ago, not ended</p>' in (
        sessions
    )


# --- the minute's sweep ---------------------------------------------------------------------


def test_the_sweep_pushes_time_based_signals_once_when_they_appear():
    sweep.forget()
    hook_event(payload=payload("Stop.first", session_id=AGENT_ID))
    session = Session.objects.get(agent_session_id=AGENT_ID)
    Session.objects.filter(pk=session.pk).update(activity_at=timezone.now() - timedelta(days=3))
    assert sweep.sweep() == []  # the first sweep after a start only takes note
    other = "5b0c9a64-3c1e-4e7e-9d4a-0f6a2b1c3d4e"
    hook_event(payload=payload("Stop.first", session_id=other))
    Session.objects.filter(agent_session_id=other).update(
        activity_at=timezone.now() - timedelta(days=2)
    )
    [event] = sweep.sweep()
    assert event.kind == "session.forgotten"
    assert event.payload["reason"] == "idle since 2 d ago, not ended"
    assert sweep.sweep() == []  # never twice for the same signal


def test_the_sweep_pushes_long_work():
    sweep.forget()
    task = bound_task()
    hook_event(payload=payload("UserPromptSubmit.print", session_id=AGENT_ID))
    assert sweep.sweep() == []
    age_binding(task, 60)
    Event.objects.filter(task=task).update(created_at=timezone.now() - timedelta(minutes=60))
    [event] = sweep.sweep()
    assert event.kind == "session.stuck"
    assert event.payload["reason"].startswith("working 60 min without a relaybay write")


def test_the_sweep_leaves_repetitions_to_their_own_event():
    sweep.forget()
    bound_task()
    sweep.sweep()
    for _ in range(5):
        call()
    assert Event.objects.filter(kind="session.stuck").count() == 1
    assert sweep.sweep() == []
