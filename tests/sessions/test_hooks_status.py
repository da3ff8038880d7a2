"""Hook status, activity coalescing, SessionEnd unbinding and the answer composer (§4)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from agents.claude_code import hooks as claude_code
from agents.claude_code.hooks import HookResult, hook_event
from sessions import selectors, services
from sessions.hooks import activity
from sessions.hooks import answer as hook_answer
from sessions.hooks import event as ev
from sessions.hooks import service as hook_service
from sessions.hooks.activity import ActivityClock
from sessions.hooks.answer import HookAnswer, HookCall
from sessions.models import Session, TaskBinding
from tasks.events import KINDS, describe
from tasks.models import Event, Task
from tests.sessions.hook_payloads import CWD, HOOKS, payload
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db

DESKTOP = "local_1b4e28ba-2fa1-11d2-883f-0016d3cca427"
PRINTED = "78a6a9df-545d-4090-8a48-00105ebe22e7"
MCP_ID = "40f76e57-78f2-4a22-82d2-11206736c928"  # PreToolUse.mcp, Stop.*, SessionEnd.other


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(activity, "activity_clock", ActivityClock(clock=fake))
    return fake


@pytest.fixture
def providers(monkeypatch: pytest.MonkeyPatch) -> list:
    """An empty provider registry for the test (the real one is restored after)."""
    saved: list = []
    monkeypatch.setattr(hook_answer, "_providers", saved)
    return saved


def hook(name: str, **changes: Any) -> HookResult:
    return hook_event(payload=payload(name, **changes))


def agent_on_task(name: str = "alice", agent_id: str = PRINTED) -> tuple[Session, Task]:
    """A named session whose agent linked agent_id with a write, bound to a new task."""
    task = make_task()
    services.task_bind_session(task=task, session=name, actor="tester")
    s = services.session_touch(session=name, hook_session=agent_id, actor="tester").session
    return s, task


def fresh(session: Session) -> Session:
    return Session.objects.get(pk=session.pk)


def events(kind: str) -> list[Event]:
    return list(Event.objects.filter(kind=kind).order_by("id"))


# --- statuses per event -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "status", "activity"),
    [
        ("SessionStart.startup.print", "working", "started (startup)"),
        ("SessionStart.resume.print", "working", "started (resume)"),
        ("SessionStart.clear.interactive", "working", "started (clear)"),
        ("UserPromptSubmit.print", "working", "prompt"),
        ("PreToolUse.Bash", "working", "Bash"),
        ("PostToolUse.Bash", "working", "Bash"),
        ("PreToolUse.mcp", "working", "mcp__demo__echo"),
        ("PostToolUse.mcp.structured", "working", "mcp__demo__echo"),
        ("PostToolUse.mcp.unstructured", "working", "mcp__demo__note"),
        # no PreToolUse before it in this session: what it waits on is unknown
        ("Notification.permission_prompt.interactive", "waiting", "permission for a tool"),
        ("Stop.first", "idle", "turn finished"),
    ],
)
def test_each_event_sets_its_status_and_activity(name: str, status: str, activity: str):
    s = fresh(hook(name).session)
    assert (s.hook_status, s.activity) == (status, activity)
    assert s.activity_at is not None
    assert s.cwd == CWD


def test_session_end_sets_ended_with_its_reason():
    hook("PreToolUse.mcp")
    s = fresh(hook("SessionEnd.other.print").session)
    assert (s.hook_status, s.activity) == ("ended", "ended (other)")


def test_a_long_notification_is_cut_short():
    s = hook(
        "Notification.permission_prompt.interactive",
        message="Please " * 100,
        notification_type="auth_success",
    ).session
    assert len(s.activity) == hook_service.NOTIFICATION_MAX
    assert s.activity.endswith("…")


@pytest.mark.parametrize(
    "changes",
    [
        {"hook_event_name": "SubagentStop"},
        {"hook_event_name": "PreCompact"},
        {"hook_event_name": None},
        {"session_id": None},
        {"session_id": "not an id with spaces"},
        {"session_id": 42},
    ],
)
def test_other_events_and_unusable_session_ids_are_ignored(changes: dict):
    result = hook("Stop.first", **changes)
    assert (result.ignored, result.answer) == (True, None)
    assert Session.objects.count() == 0


def test_no_field_of_an_unexpected_type_breaks_an_event():
    names = sorted(f.stem for f in HOOKS.glob("*.json"))
    for name in names:
        for key in payload(name):
            if key in ("session_id", "hook_event_name"):
                continue
            for odd in ([1], {"a": [None]}, 7, None):
                hook(name, **{key: odd})  # must not raise
    hook("SessionStart.resume.print", source=["resume"], relaybay_host_session=[1])
    hook("PostToolUse.Bash", tool_name={"name": "TaskCreate"})


def test_unknown_fields_are_tolerated():
    s = hook("PostToolUse.Bash", brand_new_field={"x": [1, 2]}, effort="high").session
    assert s.activity == "Bash"


def test_a_status_change_writes_session_status_changed_per_bound_task():
    _session, task = agent_on_task()
    other = make_task()
    services.task_bind_session(task=other, session="alice", actor="tester")

    hook("UserPromptSubmit.print")
    hook("PostToolUse.Bash")  # still working: no event
    hook("Stop.first", session_id=PRINTED)

    changes = [(e.task_id, e.payload) for e in events("session.status_changed")]
    assert changes == [
        (task.id, {"session": "alice", "from": "", "to": "working"}),
        (other.id, {"session": "alice", "from": "", "to": "working"}),
        (task.id, {"session": "alice", "from": "working", "to": "idle"}),
        (other.id, {"session": "alice", "from": "working", "to": "idle"}),
    ]
    assert {e.actor for e in events("session.status_changed")} == {"hook"}


def test_every_event_the_hooks_write_has_its_one_line_description():
    agent_on_task()
    first = Event.objects.order_by("-id").values_list("id", flat=True).first()
    hook("SessionStart.startup.print")
    hook("PostToolUse.TaskCreate")
    hook("SessionEnd.other.print", session_id=PRINTED)
    hook("SessionStart.startup.interactive")  # a new hook row: session.seen
    written = Event.objects.filter(id__gt=first).order_by("id")
    kinds = {e.kind for e in written}
    assert kinds == {
        "session.status_changed",
        "session.todo_updated",
        "task.session_unbound",
        "session.seen",
    }
    for e in written:
        assert e.kind in KINDS
        assert describe(e.kind, e.payload), e.kind


# --- activity coalescing ------------------------------------------------------------------


def test_a_working_sessions_activity_is_written_at_most_once_per_five_seconds(clock):
    session = hook("PreToolUse.Bash").session
    first_at = fresh(session).activity_at

    clock.now += 1
    hook("PostToolUse.mcp.unstructured")  # same id (78a6…), another tool
    s = fresh(session)
    assert (s.activity, s.activity_at) == ("Bash", first_at)

    clock.now += 4
    hook("PreToolUse.Bash", tool_name="Edit")
    s = fresh(session)
    assert s.activity == "Edit"
    assert s.activity_at > first_at


def test_the_latest_activity_of_a_window_is_written_when_the_window_ends(clock):
    """§4 "the latest wins": prompt → Edit → Edit inside one window must not leave "prompt"."""
    session = hook("UserPromptSubmit.print").session
    assert fresh(session).activity == "prompt"
    clock.now += 1
    hook("PreToolUse.Bash", session_id=session.agent_session_id, tool_name="Edit")
    clock.now += 1
    result = hook("PostToolUse.Bash", session_id=session.agent_session_id, tool_name="Edit")
    assert fresh(session).activity == "prompt"  # still inside the window: nothing written
    assert result.flush_in == pytest.approx(3.0)  # the endpoint comes back then

    assert activity.flush_pending_activity() == pytest.approx(3.0)  # not due yet
    assert fresh(session).activity == "prompt"
    clock.now += 3
    assert activity.flush_pending_activity() is None  # written, nothing left
    s = fresh(session)
    assert (s.hook_status, s.activity) == ("working", "Edit")


def test_a_pending_activity_never_overwrites_a_newer_status(clock):
    session = hook("PreToolUse.Bash").session
    clock.now += 1
    hook("PostToolUse.Bash", tool_name="Edit")  # pending
    clock.now += 1
    hook("Stop.first", session_id=session.agent_session_id)  # idle, written at once
    clock.now += 10
    assert activity.flush_pending_activity(all_of_them=True) is None
    assert fresh(session).hook_status == "idle"
    assert fresh(session).activity != "Edit"


def test_the_server_stopping_writes_what_is_pending(clock):
    session = hook("PreToolUse.Bash").session
    clock.now += 1
    hook("PostToolUse.Bash", tool_name="Edit")
    activity.flush_pending_activity(all_of_them=True)
    assert fresh(session).activity == "Edit"


def test_a_status_change_is_written_at_once_inside_the_window(clock):
    session = hook("PreToolUse.mcp").session
    clock.now += 0.5
    hook("Stop.first")
    assert fresh(session).hook_status == "idle"
    clock.now += 0.5
    hook("PreToolUse.mcp")
    assert (fresh(session).hook_status, fresh(session).activity) == ("working", "mcp__demo__echo")


def test_a_coalesced_event_costs_no_write(clock, providers, django_assert_max_num_queries):
    hook("PreToolUse.Bash")
    clock.now += 1
    # savepoint, the lookup, the bookkeeping's own savepoint and its release, release: no write
    with django_assert_max_num_queries(5):
        hook("PostToolUse.Bash")


# --- SessionEnd unbinding -----------------------------------------------------------------


@pytest.mark.parametrize("reason", ["other", "prompt_input_exit", "logout"])
def test_session_end_unbinds_the_session_from_every_task_keeping_the_history(reason: str):
    session, task = agent_on_task(agent_id=MCP_ID)
    other = make_task()
    services.task_bind_session(task=other, session="alice", actor="tester")

    hook("SessionEnd.other.print", reason=reason)

    assert selectors.tasks_bound_to(session) == []
    closed = TaskBinding.objects.filter(session=session).order_by("id")
    assert [(b.unbind_reason, b.unbound_by) for b in closed] == [("session_end", "hook")] * 2
    unbound = events("task.session_unbound")
    assert [(e.task_id, e.payload) for e in unbound] == [
        (task.id, {"session": "alice", "reason": "session_end"}),
        (other.id, {"session": "alice", "reason": "session_end"}),
    ]
    # the status change reached the tasks before they were unbound
    assert [e.payload["to"] for e in events("session.status_changed")][-2:] == ["ended"] * 2


@pytest.mark.parametrize("reason", ["clear", "resume"])
def test_session_end_after_clear_or_resume_keeps_the_bindings(reason: str):
    session, task = agent_on_task(agent_id=MCP_ID)
    hook("SessionEnd.other.print", reason=reason)
    assert [t.id for t in selectors.tasks_bound_to(session)] == [task.id]
    assert fresh(session).hook_status == "ended"
    assert events("task.session_unbound") == []


def test_session_end_keeps_the_bindings_of_a_desktop_session():
    task = make_task()
    services.task_bind_session(task=task, session=DESKTOP, actor="tester")
    services.session_touch(session=DESKTOP, hook_session=MCP_ID, actor="tester")
    hook("SessionEnd.other.print")
    assert selectors.bound_session(task).desktop_id == DESKTOP
    assert events("task.session_unbound") == []


# --- prompt text and tool input -----------------------------------------------------------


def test_prompt_text_and_tool_input_are_never_stored():
    secret_prompt = "the-prompt-SECRET-4711"
    secret_input = "rm -rf /tmp/SECRET-4712"
    agent_on_task()
    hook("UserPromptSubmit.print", prompt=secret_prompt)
    hook("PreToolUse.Bash", tool_input={"command": secret_input})
    hook("PostToolUse.Bash", tool_input={"command": secret_input}, tool_response={"stdout": "x"})
    with connection.cursor() as cursor:
        tables = connection.introspection.table_names(cursor)
        for table in tables:
            cursor.execute(f'SELECT * FROM "{table}"')
            dump = repr(cursor.fetchall())
            assert "SECRET-471" not in dump, table


# --- the answer ---------------------------------------------------------------------------


def test_session_start_answers_the_hook_session_line_exactly():
    result = hook("SessionStart.startup.print")
    assert result.answer == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": f"Your relaybay hook session: {PRINTED}. "
            "Pass it as hook_session in relaybay writes.",
        }
    }


@pytest.mark.parametrize(
    "name",
    [
        "UserPromptSubmit.print",
        "PreToolUse.Bash",
        "PostToolUse.Bash",
        "Notification.permission_prompt.interactive",
        "Stop.first",
    ],
)
def test_other_events_answer_nothing_without_providers(name: str, providers):
    assert hook(name).answer is None


def test_providers_add_lines_in_order_for_their_events_only(providers):
    seen: list[HookCall] = []

    def late(call: HookCall, answer: HookAnswer) -> None:
        answer.add_context("late line")

    def early(call: HookCall, answer: HookAnswer) -> None:
        seen.append(call)
        answer.add_context(f"early line, {answer.budget_left} left")

    hook_answer.register_context_provider(20, frozenset({ev.POST_TOOL, ev.SESSION_START}), late)
    hook_answer.register_context_provider(10, frozenset({ev.POST_TOOL, ev.SESSION_START}), early)
    hook_answer.register_context_provider(10, frozenset({ev.POST_TOOL}), early)  # once only

    start = hook("SessionStart.startup.print").answer["hookSpecificOutput"]["additionalContext"]
    line = hook_answer.session_start_line(PRINTED)
    assert start.split("\n") == [line, f"early line, {8000 - len(line) - 1} left", "late line"]

    post = hook("PostToolUse.Bash").answer
    assert post == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": "early line, 8000 left\nlate line",
        }
    }
    assert hook("PreToolUse.Bash").answer is None
    call = seen[-1]
    assert (call.kind, call.agent_session_id, call.exact) == (ev.POST_TOOL, PRINTED, False)
    assert call.session.agent_session_id == PRINTED
    assert call.event.tool.name == "Bash"


def test_the_call_is_exact_only_for_a_session_linked_exactly_to_this_id(providers):
    calls: list[HookCall] = []
    hook_answer.register_context_provider(
        1, frozenset({ev.POST_TOOL}), lambda c, a: calls.append(c)
    )
    agent_on_task()
    hook("PostToolUse.Bash")
    assert calls[-1].exact is True


def test_a_failing_provider_costs_neither_the_status_nor_the_others(providers):
    def broken(call: HookCall, answer: HookAnswer) -> None:
        Session.objects.filter(pk=call.session.pk).update(title="half-done")
        raise RuntimeError("boom")

    hook_answer.register_context_provider(1, frozenset({ev.POST_TOOL}), broken)
    hook_answer.register_context_provider(
        2, frozenset({ev.POST_TOOL}), lambda c, a: a.add_context("ok")
    )

    result = hook("PostToolUse.Bash")

    assert result.answer["hookSpecificOutput"]["additionalContext"] == "ok"
    s = fresh(result.session)
    assert (s.hook_status, s.title) == ("working", "")  # its half-done write rolled back


def test_the_budget_is_shared_by_every_line():
    answer = HookAnswer()
    assert answer.budget_left == 8000
    answer.add_context("x" * 100)
    assert answer.budget_left == 8000 - 100 - 1
    answer.add_context("y" * 7899)
    assert answer.budget_left == 0
    assert len(answer.context) == 8000


def test_the_claude_code_adapter_renders_the_answer_per_event():
    def render(answer: HookAnswer, name: str) -> object:
        event = claude_code.parse({"hook_event_name": name, "session_id": PRINTED})
        assert event is not None
        return claude_code.render(answer, event)

    answer = HookAnswer()
    assert render(answer, "PostToolUse") is None
    assert render(answer, "Stop") is None
    answer.add_context("a line")
    assert render(answer, "UserPromptSubmit") == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "a line"}
    }
    assert render(answer, "Notification") is None
    assert render(answer, "SessionEnd") is None
    assert render(answer, "Stop") is None  # Stop takes no context
    answer.block_reason = "Handle owner comment #3 first."
    assert render(answer, "Stop") == {
        "decision": "block",
        "reason": "Handle owner comment #3 first.",
    }
    guard = HookAnswer()
    guard.deny("r")
    assert render(guard, "PreToolUse") == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "r",
        }
    }


def test_a_session_placed_in_a_project_keeps_its_project_on_later_events(clock):
    project = make_project("acme-shop", repo_path=CWD)
    s = hook("PreToolUse.Bash").session
    clock.now += 5
    hook("PostToolUse.Bash", cwd="/elsewhere")
    s = fresh(s)
    assert (s.project_id, s.cwd) == (project.id, "/elsewhere")
