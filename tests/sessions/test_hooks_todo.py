"""The agent's todo read from PostToolUse of the todo tools (§4 Todo capture)."""

from __future__ import annotations

from typing import Any

import pytest

from agents.claude_code.hooks import HookResult, hook_event
from sessions import selectors, services
from sessions.hooks import activity
from sessions.models import Session, SessionTodo
from tasks import extensions
from tasks.models import Event, Task
from tests.sessions.hook_payloads import payload
from tests.tasks.factories import make_task

pytestmark = pytest.mark.django_db

AGENT_ID = "78a6a9df-545d-4090-8a48-00105ebe22e7"  # TaskCreate, TaskUpdate, Bash
NEW_ID = "430009dd-5530-4fbd-8d18-5c78bdf50673"
DESKTOP = "local_1b4e28ba-2fa1-11d2-883f-0016d3cca427"


@pytest.fixture(autouse=True)
def _fresh_clock() -> Any:
    activity.activity_clock.clear()
    yield
    activity.activity_clock.clear()


def hook(name: str, **changes: Any) -> HookResult:
    return hook_event(payload=payload(name, **changes))


def create(item_id: str = "1", subject: str = "Write the address book page", **inp: Any):
    tool_input = {"subject": subject, "description": "d", "activeForm": f"Doing {subject}"}
    tool_input.update(inp)
    response = {"task": {"id": item_id, "subject": subject, "description": "d"}}
    return hook("PostToolUse.TaskCreate", tool_input=tool_input, tool_response=response)


def update(tool_input: dict, tool_response: dict | None = None, **changes: Any) -> HookResult:
    response = tool_response if tool_response is not None else {"success": True}
    return hook("PostToolUse.TaskUpdate", tool_input=tool_input, tool_response=response, **changes)


def todo_write(todos: Any, **changes: Any) -> HookResult:
    return hook("PostToolUse.Bash", tool_name="TodoWrite", tool_input={"todos": todos}, **changes)


def items(session: Session | None = None) -> list[tuple[str, str, str, str]]:
    session = session or Session.objects.get(agent_session_id=AGENT_ID)
    session = Session.objects.get(pk=session.pk)
    return [
        (i.item_id, i.subject, i.status, i.active_form) for i in selectors.todo_for_session(session)
    ]


def agent_on_task(agent_id: str = AGENT_ID) -> tuple[Session, Task]:
    task = make_task()
    services.task_bind_session(task=task, session="alice", actor="tester")
    s = services.session_touch(session="alice", hook_session=agent_id, actor="tester").session
    return s, task


def todo_events() -> list[Event]:
    return list(Event.objects.filter(kind="session.todo_updated").order_by("id"))


# --- the shapes ---------------------------------------------------------------------------


def test_task_create_adds_an_item_from_the_captured_payload():
    hook("PostToolUse.TaskCreate")
    assert items() == [
        ("1", "Write the address book page", "pending", "Writing the address book page")
    ]


def test_task_update_changes_the_status_from_the_captured_payload():
    hook("PostToolUse.TaskCreate")
    hook("PostToolUse.TaskUpdate")
    assert items()[0][2] == "in_progress"


def test_task_update_takes_the_status_from_the_status_change_when_the_input_has_none():
    create()
    update({"taskId": "1"}, {"success": True, "taskId": "1", "statusChange": {"to": "completed"}})
    assert items()[0][2] == "completed"


def test_task_update_changes_subject_and_active_form_when_given():
    create()
    update({"taskId": "1", "subject": "Address book", "activeForm": "Building the book"})
    assert items() == [("1", "Address book", "pending", "Building the book")]


def test_task_update_deleted_removes_the_item():
    create("1")
    create("2", "Second")
    update({"taskId": "1", "status": "deleted"})
    assert [i[0] for i in items()] == ["2"]


def test_task_update_of_an_id_never_seen_is_ignored():
    create("1")
    before = len(Event.objects.all())
    update({"taskId": "9", "status": "completed"})
    assert items()[0][2] == "pending"
    assert len(Event.objects.all()) == before


def test_a_failed_task_update_is_ignored():
    create("1")
    update({"taskId": "1", "status": "completed"}, {"success": False})
    assert items()[0][2] == "pending"


def test_todo_write_replaces_the_list():
    create("7", "Old item")
    todo_write(
        [
            {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
            {"content": "Fix it", "status": "in_progress", "activeForm": "Fixing it"},
            {"content": "Test it", "status": "weird", "activeForm": "Testing it"},
        ]
    )
    assert items() == [
        ("1", "Read the code", "completed", "Reading the code"),
        ("2", "Fix it", "in_progress", "Fixing it"),
        ("3", "Test it", "pending", "Testing it"),
    ]


@pytest.mark.parametrize(
    "changes",
    [
        {},  # a Bash call is no todo tool
        {"tool_name": "TaskCreate", "tool_input": {"subject": "x"}, "tool_response": "ok"},
        {
            "tool_name": "TaskCreate",
            "tool_input": {"subject": ""},
            "tool_response": {"task": {"id": "1"}},
        },
        {
            "tool_name": "TaskCreate",
            "tool_input": "subject",
            "tool_response": {"task": {"id": "1"}},
        },
        {
            "tool_name": "TaskCreate",
            "tool_input": {"subject": "x"},
            "tool_response": {"task": {"id": True}},
        },
        {"tool_name": "TodoWrite", "tool_input": {"todos": "1. read"}},
        {"tool_name": "TodoWrite", "tool_input": {}},
        {"tool_name": "TaskUpdate", "tool_input": {"status": "completed"}, "tool_response": [1]},
    ],
)
def test_unknown_shapes_are_ignored(changes: dict):
    hook("PostToolUse.Bash", **changes)
    assert items() == []
    assert SessionTodo.objects.count() == 0


def test_todo_write_skips_entries_it_cannot_read():
    todo_write(["just text", {"status": "pending"}, {"content": "  Real   item "}])
    assert items() == [("1", "Real item", "pending", "")]


def test_a_list_holds_at_most_50_items_of_200_characters():
    todo_write([{"content": f"item {n} " + "x" * 300, "status": "pending"} for n in range(60)])
    stored = items()
    assert len(stored) == 50
    assert all(len(subject) == 200 and subject.endswith("…") for _, subject, _, _ in stored)
    create("99", "one more")
    assert len(items()) == 50


def test_ids_given_as_numbers_are_read():
    hook(
        "PostToolUse.TaskCreate",
        tool_response={"task": {"id": 3, "subject": "Write the address book page"}},
    )
    update({"taskId": 3, "status": "in_progress"})
    assert items()[0][:3] == ("3", "Write the address book page", "in_progress")


# --- storage, events, ownership -----------------------------------------------------------


def test_a_change_emits_session_todo_updated_per_bound_task():
    _session, task = agent_on_task()
    other = make_task()
    services.task_bind_session(task=other, session="alice", actor="tester")

    hook("PostToolUse.TaskCreate")
    hook("PostToolUse.TaskUpdate")

    payloads = [(e.task_id, e.payload) for e in todo_events()]
    assert payloads == [
        (task.id, {"session": "alice", "items": 1, "in_progress": ""}),
        (other.id, {"session": "alice", "items": 1, "in_progress": ""}),
        (task.id, {"session": "alice", "items": 1, "in_progress": "Writing the address book page"}),
        (
            other.id,
            {"session": "alice", "items": 1, "in_progress": "Writing the address book page"},
        ),
    ]


def test_a_call_that_changes_nothing_emits_nothing():
    agent_on_task()
    hook("PostToolUse.TaskCreate")
    hook("PostToolUse.TaskUpdate")
    count = len(todo_events())
    hook("PostToolUse.TaskUpdate")
    assert len(todo_events()) == count


def test_the_todo_is_stored_even_when_the_activity_write_is_coalesced():
    hook("PostToolUse.Bash")
    hook("PostToolUse.TaskCreate")  # within the 5 s window: no activity write
    session = Session.objects.get(agent_session_id=AGENT_ID)
    assert session.activity == "Bash"
    assert len(items()) == 1


def test_a_new_claude_code_id_after_clear_starts_a_fresh_list():
    desktop = services.session_touch(session=DESKTOP, actor="t").session
    window = {"relaybay_host_session": DESKTOP, "relaybay_host_attended": "1"}
    hook("SessionStart.startup.print", **window)
    hook("PostToolUse.TaskCreate")
    assert len(items(desktop)) == 1

    hook("SessionEnd.clear.interactive", session_id=AGENT_ID)
    hook("SessionStart.clear.interactive", **window)

    assert items(desktop) == []
    hook("PostToolUse.TaskCreate", session_id=NEW_ID)
    assert len(items(desktop)) == 1
    assert SessionTodo.objects.count() == 1  # the old id's list is gone


def test_a_list_written_before_the_agent_linked_moves_with_the_exact_link():
    row = hook("PostToolUse.TaskCreate").session
    assert row.kind == "hook"

    alice = services.session_touch(session="alice", hook_session=AGENT_ID, actor="t").session

    assert not Session.objects.filter(pk=row.pk).exists()
    assert items(alice) == [
        ("1", "Write the address book page", "pending", "Writing the address book page")
    ]


def test_a_desktop_sessions_list_stays_when_its_own_agent_passes_the_same_id():
    desktop = services.session_touch(session=DESKTOP, actor="t").session
    window = {"relaybay_host_session": DESKTOP}
    hook("PostToolUse.TaskCreate", **window)  # unattended: links a desktop with no live id
    assert len(items(desktop)) == 1
    # the desktop session's own agent passes the same id: nothing moves
    services.session_touch(session=DESKTOP, hook_session=AGENT_ID, actor="t")
    assert len(items(desktop)) == 1


def test_todo_summary_and_the_move_fact():
    session, task = agent_on_task()
    assert selectors.todo_summary(session) is None
    assert extensions.move_fact(task, "has_todo") is False

    create("1", "Read")
    create("2", "Fix", activeForm="Fixing the bug")
    update({"taskId": "1", "status": "completed"})
    update({"taskId": "2", "status": "in_progress"})

    summary = selectors.todo_summary(Session.objects.get(pk=session.pk))
    assert (summary.total, summary.done, summary.in_progress) == (2, 1, "Fixing the bug")
    assert summary.text == "Todo 1/2 done; now: Fixing the bug"
    assert extensions.move_fact(task, "has_todo") is True


def test_the_dev_move_hint_is_silent_once_the_bound_session_has_a_todo():
    from tasks import services as task_services

    _session, task = agent_on_task()
    create("1", "Read")
    before = task_services.task_create(project=task.project.slug, title="t", stage="dev", actor="a")
    assert any("no plan and no todo" in h for h in before.hints)  # the hint exists …
    result = task_services.task_set_stage(key=task.key, stage="dev", actor="alice")
    assert not any("no plan and no todo" in h for h in result.hints)  # … and is silent here
