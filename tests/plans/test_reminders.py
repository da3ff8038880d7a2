"""Plan reminders in the hook answers (§4 "Plan reminders", §6 "Work by plan").

Data through the services (tasks, plans, sessions) and the hook core's hook_event with the
real Claude Code 2.1.332 payloads.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from agents.claude_code import hooks as claude_code
from agents.claude_code.hooks import HookResult, hook_event
from plans import reminders
from plans import services as plan_services
from sessions import services as session_services
from sessions.hooks import answer as hook_answer
from sessions.hooks import event as ev
from sessions.hooks.answer import HookAnswer, HookCall
from sessions.hooks.event import HookEvent
from sessions.models import Session
from tasks import services as task_services
from tasks.models import Task
from tests.sessions.hook_payloads import CWD, payload
from tests.tasks.factories import ACTOR, make_project, make_task

pytestmark = pytest.mark.django_db

AGENT_ID = "78a6a9df-545d-4090-8a48-00105ebe22e7"  # the id of the captured todo payloads
UPDATE = reminders.UPDATE_LINE
ADDRESS_STEPS = [
    {"title": "Address model", "details": "Fields and migration."},
    {"title": "Address book page", "details": "Add, edit and remove addresses."},
    {"title": "Checkout picks an address"},
]


def start_event() -> HookEvent:
    event = claude_code.parse({"hook_event_name": "SessionStart", "session_id": AGENT_ID})
    assert event is not None
    return event


# --- helpers -----------------------------------------------------------------------------------


def hook(name: str, agent_id: str = AGENT_ID, **changes: Any) -> HookResult:
    return hook_event(payload=payload(name, session_id=agent_id, **changes))


def context(result: HookResult) -> str:
    if result.answer is None:
        return ""
    return result.answer["hookSpecificOutput"].get("additionalContext", "")


def start(agent_id: str = AGENT_ID) -> str:
    """A SessionStart's context without the core's hook session line."""
    lines = context(hook("SessionStart.startup.interactive", agent_id)).split("\n")
    assert lines[0] == hook_answer.session_start_line(agent_id)
    return "\n".join(lines[1:])


def post_bash(agent_id: str = AGENT_ID) -> str:
    return context(hook("PostToolUse.Bash", agent_id))


def todo_create(
    item_id: str = "1",
    subject: str = "Write the address book page",
    active: str = "Writing the address book page",
) -> str:
    tool_input = {"subject": subject, "description": "d", "activeForm": active}
    response = {"task": {"id": item_id, "subject": subject, "description": "d"}}
    result = hook("PostToolUse.TaskCreate", tool_input=tool_input, tool_response=response)
    return context(result)


def todo_start(item_id: str = "1") -> str:
    result = hook(
        "PostToolUse.TaskUpdate",
        tool_input={"taskId": item_id, "status": "in_progress"},
        tool_response={"success": True, "taskId": item_id},
    )
    return context(result)


def agent(
    name: str = "alice", agent_id: str = AGENT_ID, tasks: int = 1, **fields: Any
) -> list[Task]:
    """`tasks` new tasks bound to session `name`, whose agent linked agent_id (exact)."""
    project = make_project()
    made = [make_task(project, title=f"Task {i + 1}", **fields) for i in range(tasks)]
    for task in made:
        session_services.task_bind_session(task=task, session=name, actor=ACTOR)
    session_services.session_touch(session=name, hook_session=agent_id, actor=ACTOR)
    return made


def set_plan(task: Task, steps: list[Any] | None = None) -> None:
    plan_services.plan_set(key=task.key, steps=steps or ADDRESS_STEPS, actor=ACTOR)


def step(task: Task, position: int, status: str) -> None:
    extra = {"conformance": "as planned"} if status == "done" else {}
    plan_services.plan_step_update(key=task.key, step=position, status=status, actor=ACTOR, **extra)


def accept(task: Task) -> None:
    plan_services.plan_accept(key=task.key, actor="owner")


def stage(task: Task, to: str) -> None:
    task_services.task_set_stage(key=task.key, stage=to, actor=ACTOR)


# --- the text -----------------------------------------------------------------------------------


def test_an_accepted_plan_names_the_step_in_progress_with_its_details():
    (task,) = agent()
    set_plan(task)
    accept(task)
    step(task, 1, "done")
    step(task, 2, "in_progress")
    assert start() == (
        f"Plan of {task.key} (accepted): step 2/3 'Address book page' — Add, edit and remove "
        f"addresses.\n{UPDATE}"
    )


def test_a_draft_plan_without_a_step_in_progress_names_the_next_step():
    (task,) = agent()
    set_plan(task)
    step(task, 1, "done")
    assert start() == (
        f"Plan of {task.key} (draft, not accepted yet): next step 2/3 'Address book page' — "
        f"Add, edit and remove addresses.\n{UPDATE}"
    )


def test_a_step_without_details_ends_after_its_title():
    (task,) = agent()
    set_plan(task)
    step(task, 3, "in_progress")
    assert start().split("\n")[0] == (
        f"Plan of {task.key} (draft, not accepted yet): step 3/3 'Checkout picks an address'."
    )


def test_a_plan_with_every_step_done_says_so():
    (task,) = agent()
    set_plan(task)
    accept(task)
    for position in (1, 2, 3):
        step(task, position, "done")
    assert start() == f"Plan of {task.key} (accepted): all 3 steps done.\n{UPDATE}"


def test_long_step_details_are_cut():
    (task,) = agent()
    set_plan(task, [{"title": "Big step", "details": "word " * 300}])
    first = start().split("\n")[0]
    assert first.endswith("…")
    assert len(first) < len(task.key) + 300


def test_the_todo_item_in_progress_is_now_doing_after_the_step():
    (task,) = agent()
    set_plan(task)
    step(task, 2, "in_progress")
    todo_create()
    todo_start()
    assert start().split("\n")[0] == (
        f"Plan of {task.key} (draft, not accepted yet): step 2/3 'Address book page' — Add, "
        "edit and remove addresses. Now doing: Writing the address book page."
    )


def test_without_plan_steps_the_todo_summary_is_the_reminder():
    (task,) = agent()
    todo_create()
    todo_create("2", "Test it", "Testing it")
    todo_start("2")
    assert start() == (
        f"{task.key} has no plan; the todo: Todo 0/2 done; now: Testing it.\n{UPDATE}"
    )


def test_a_task_in_dev_with_no_plan_and_no_todo_gets_the_hint_of_section_6():
    (task,) = agent()
    stage(task, "dev")
    assert start() == (
        f"Hint: {task.key} has no plan and no todo yet: write down what you are going to do "
        f"(todo or 2-3 steps with plan_set).\n{UPDATE}"
    )


def test_a_task_before_dev_with_no_plan_and_no_todo_gets_no_reminder():
    agent()
    assert start() == ""


def test_a_done_task_gets_no_reminder():
    (task,) = agent()
    set_plan(task)
    stage(task, "done")
    assert start() == ""


def test_at_most_three_tasks_then_the_plan_step_update_line():
    tasks = agent(tasks=4)
    for task in tasks:
        set_plan(task)
    lines = start().split("\n")
    assert [line.split(" ")[2] for line in lines[:3]] == [t.key for t in tasks[:3]]
    assert lines[3:] == [UPDATE]


def test_tasks_with_nothing_to_remind_do_not_take_a_place_of_the_three():
    tasks = agent(tasks=4)
    for task in tasks[1:]:
        set_plan(task)
    lines = start().split("\n")
    assert [line.split(" ")[2] for line in lines[:3]] == [t.key for t in tasks[1:]]


# --- who gets it ---------------------------------------------------------------------------------


def test_a_session_linked_by_guess_gets_no_reminder():
    project = make_project(repo_path=CWD)
    task = make_task(project)
    desktop = f"local_{uuid.uuid4()}"
    session_services.task_bind_session(task=task, session=desktop, actor=ACTOR)
    set_plan(task)
    stage(task, "dev")
    result = hook("SessionStart.startup.interactive")
    session = Session.objects.get(pk=result.session.pk)
    assert (session.desktop_id, session.agent_exact) == (desktop, False)  # linked by the folder
    assert context(result) == hook_answer.session_start_line(AGENT_ID)
    assert todo_create() == ""


def test_another_claude_code_id_of_nobody_gets_no_reminder():
    (task,) = agent()
    set_plan(task)
    other = str(uuid.uuid4())
    assert start(other) == ""
    assert post_bash(other) == ""


def test_the_provider_adds_nothing_for_a_call_that_is_not_exact():
    (task,) = agent()
    set_plan(task)
    session = Session.objects.get(agent_session_id=AGENT_ID)
    call = HookCall(start_event(), session, exact=False)
    answer = HookAnswer()
    reminders.remind(call, answer)
    assert answer.lines == []


# --- when it is sent ------------------------------------------------------------------------------


def test_a_todo_change_sends_the_reminder_and_the_same_text_is_not_sent_twice_in_a_row():
    (task,) = agent()
    set_plan(task)
    first = todo_create()
    assert first.startswith(f"Plan of {task.key} (draft, not accepted yet): next step 1/3")
    assert todo_create() == ""  # the same item again: the same text
    assert post_bash() == ""  # not a todo change
    doing = todo_start()
    assert "Now doing: Writing the address book page." in doing
    assert doing != first


def test_a_todo_change_after_a_plan_change_sends_the_new_step():
    (task,) = agent()
    set_plan(task)
    todo_create()
    step(task, 1, "in_progress")
    assert todo_create("2", "Second").startswith(
        f"Plan of {task.key} (draft, not accepted yet): step 1/3"
    )


def test_session_start_resets_the_last_text():
    (task,) = agent()
    set_plan(task)
    sent = todo_create()
    assert sent
    assert start() == sent  # a new context gets it again …
    assert todo_create() == ""  # … and counts as the last text sent


def test_the_reminder_repeats_every_n_post_tool_use_events(configure):
    configure(plan_reminder_every=3)
    (task,) = agent()
    set_plan(task)
    texts = [post_bash() for _ in range(7)]
    expected = f"Plan of {task.key} (draft, not accepted yet): next step 1/3"
    assert [bool(t) for t in texts] == [False, False, True, False, False, True, False]
    assert texts[2].startswith(expected)
    assert texts[5] == texts[2]  # the current text, repeated


def test_the_periodic_reminder_repeats_the_text_a_todo_change_just_sent(configure):
    configure(plan_reminder_every=2)
    agent_task = agent()[0]
    set_plan(agent_task)
    sent = todo_create()  # PostToolUse 1: a todo change
    assert sent
    assert post_bash() == sent  # PostToolUse 2: periodic, even though unchanged


def test_the_default_is_every_30_post_tool_use_events():
    (task,) = agent()
    set_plan(task)
    texts = [post_bash() for _ in range(30)]
    assert not any(texts[:29])
    assert texts[29].startswith(f"Plan of {task.key}")


def test_zero_turns_the_periodic_reminder_off_but_not_the_todo_change(configure):
    configure(plan_reminder_every=0)
    (task,) = agent()
    set_plan(task)
    assert not any(post_bash() for _ in range(5))
    assert todo_create().startswith(f"Plan of {task.key}")


def test_session_start_starts_the_periodic_count_again(configure):
    configure(plan_reminder_every=3)
    (task,) = agent()
    set_plan(task)
    post_bash()
    post_bash()
    start()
    assert [bool(post_bash()) for _ in range(3)] == [False, False, True]


def test_a_todo_change_with_nothing_to_remind_of_sends_nothing():
    (task,) = agent()
    set_plan(task)
    stage(task, "done")
    assert todo_create() == ""


# --- the shared budget -------------------------------------------------------------------------


def test_the_reminder_goes_after_the_session_line_and_before_the_unread_comment_count():
    (task,) = agent()
    set_plan(task)
    task_services.owner_comment_add(key=task.key, body="Check the totals")
    lines = context(hook("SessionStart.startup.interactive")).split("\n")
    assert lines[0] == hook_answer.session_start_line(AGENT_ID)
    assert lines[1].startswith(f"Plan of {task.key}")
    assert lines[2] == UPDATE
    assert lines[3].startswith("You have 1 unread owner comment(s)")


def test_owner_comments_on_the_same_answer_follow_the_reminder_within_8000_characters():
    (task,) = agent()
    set_plan(task)
    for n in range(3):
        task_services.owner_comment_add(key=task.key, body=f"{n} " + "x" * 3000)
    text = todo_create()
    assert text.startswith(f"Plan of {task.key}")
    assert "Owner comment on" in text
    assert len(text) <= hook_answer.CONTEXT_BUDGET


def test_the_reminder_fits_the_budget_left_with_fewer_tasks(monkeypatch):
    tasks = agent(tasks=3)
    for task in tasks:
        set_plan(task)
    full = start()
    budget = len(full.split("\n")[0]) + 1 + len(UPDATE) + 5

    def filler(call: HookCall, answer: HookAnswer) -> None:
        answer.add_context("f" * (answer.budget_left - budget - 1))

    monkeypatch.setattr(hook_answer, "_providers", list(hook_answer._providers))
    hook_answer.register_context_provider(1, frozenset({ev.SESSION_START}), filler)
    lines = context(hook("SessionStart.startup.interactive")).split("\n")
    assert lines[2:] == [full.split("\n")[0], UPDATE]
    assert len("\n".join(lines)) <= hook_answer.CONTEXT_BUDGET


def test_fit_drops_tasks_then_the_update_line_and_gives_nothing_when_no_task_fits():
    lines = ["a" * 10, "b" * 10, UPDATE]
    assert reminders.fit(lines, 1000) == "\n".join(lines)
    assert reminders.fit(lines, 11 + len(UPDATE)) == "\n".join(["a" * 10, UPDATE])
    assert reminders.fit(lines, 10) == "a" * 10
    assert reminders.fit(lines, 9) == ""
    assert reminders.fit([], 1000) == ""


def test_no_budget_left_means_no_reminder():
    (task,) = agent()
    set_plan(task)
    session = Session.objects.get(agent_session_id=AGENT_ID)
    answer = HookAnswer(budget=10)
    reminders.remind(HookCall(start_event(), session, exact=True), answer)
    assert answer.lines == []
