"""Every rule of sessions.services on a real SQLite (§1 Session and binding, §4 step 2)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from agents.claude_code import hooks as claude_code
from core.errors import InvalidField
from sessions import selectors, services
from sessions.extensions import resolve_caller, task_line_suffixes, task_section
from sessions.hooks import activity
from sessions.models import Session, SessionAlias, TaskBinding
from tasks.models import Event, Task
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db

DESKTOP = "local_1b4e28ba-2fa1-11d2-883f-0016d3cca427"
OTHER_DESKTOP = "local_9f0c7a52-3c1e-4b7a-8d6e-2f4b1c0a9e77"
AGENT_ID = "430009dd-5530-4fbd-8d18-5c78bdf50673"


def touch(session: str | None, **kw: object) -> services.TouchResult:
    return services.session_touch(session=session, actor="tester", **kw)


def bind(task: Task, session: str, **kw: object) -> services.BindResult:
    return services.task_bind_session(task=task, session=session, actor="tester", **kw)


def events(kind: str) -> list[Event]:
    return list(Event.objects.filter(kind=kind).order_by("id"))


def guessed_hook_row(agent_id: str, event: str = "PostToolUse", **fields: object) -> Session:
    """A hook row as §4 step 5 leaves it (kind hook, linked by guess), made by the hooks."""
    activity.activity_clock.clear()
    body = {"session_id": agent_id, "hook_event_name": event, "cwd": "/home/dev/acme-shop"}
    body.update({"tool_name": "Edit", **fields})
    row = claude_code.hook_event(payload=body).session
    assert (row.kind, row.agent_exact) == ("hook", False)
    return row


# --- who is calling: session_touch -----------------------------------------------------


def test_a_desktop_id_creates_a_desktop_session_with_its_title() -> None:
    result = touch(DESKTOP, session_title="Fix login")

    s = result.session
    assert result.created
    assert (s.kind, s.name, s.desktop_id, s.title) == ("desktop", DESKTOP, DESKTOP, "Fix login")
    assert s.last_seen_at is not None
    [seen] = events("session.seen")
    assert seen.payload == {
        "session": DESKTOP,
        "kind": "desktop",
        "title": "Fix login",
        "created": True,
    }


def test_a_desktop_id_is_matched_whatever_the_case_of_its_uuid() -> None:
    first = touch(DESKTOP).session
    again = touch(DESKTOP.upper().replace("LOCAL_", "local_")).session
    assert again.pk == first.pk


def test_touching_a_known_session_again_writes_no_event() -> None:
    touch(DESKTOP, session_title="Fix login")
    result = touch(DESKTOP, session_title="Fix login")
    touch(DESKTOP)

    assert not result.created
    assert len(events("session.seen")) == 1


def test_a_changed_desktop_title_is_saved_with_one_seen_event() -> None:
    touch(DESKTOP, session_title="Fix login")
    result = touch(DESKTOP, session_title="Fix login, 2FA")

    assert Session.objects.get(pk=result.session.pk).title == "Fix login, 2FA"
    assert [e.payload["created"] for e in events("session.seen")] == [True, False]


def test_a_plain_name_creates_one_named_session() -> None:
    first = touch("alice")
    second = touch("  alice ")

    assert first.session.kind == "named"
    assert second.session.pk == first.session.pk
    assert Session.objects.count() == 1
    assert len(events("session.seen")) == 1


def test_a_plain_name_resolves_to_its_alias_target() -> None:
    task = make_task()
    bind(task, DESKTOP, session_title="Fix login")
    bind(task, "alice")  # becomes an alias of the desktop session

    result = touch("alice")

    assert result.session.desktop_id == DESKTOP
    assert not Session.objects.filter(kind="named").exists()


def test_the_seen_event_of_a_write_lands_in_its_tasks_project() -> None:
    task = make_task()
    touch("alice", task=task)
    [seen] = events("session.seen")
    assert (seen.project_id, seen.task_id) == (task.project_id, task.id)


@pytest.mark.parametrize("value", [None, "", "  ", "-"])
def test_no_session_means_no_caller_session(value: str | None) -> None:
    result = touch(value)
    assert result.session is None
    assert result.notes == ()
    assert Session.objects.count() == 0


def test_hook_session_without_session_is_not_linked_and_says_why() -> None:
    result = touch("", hook_session=AGENT_ID)
    assert result.session is None
    assert result.notes == (
        "Note: hook_session was not linked: pass session (your local_… id or your name) with it.",
    )


# --- validation ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["local_123", "local_1b4e28ba2fa111d2883f0016d3cca427", f"{DESKTOP}x", "LOCAL_x"]
)
def test_a_malformed_desktop_id_is_refused_with_what_to_pass(value: str) -> None:
    with pytest.raises(InvalidField) as err:
        touch(value)
    assert err.value.field == "session"
    assert "must be local_ followed by a UUID" in str(err.value)
    assert "or a plain name without local_" in str(err.value)
    assert Session.objects.count() == 0


def test_a_name_over_100_characters_is_refused() -> None:
    with pytest.raises(InvalidField, match=r"at most 100 characters \(this one has 101\)"):
        touch("a" * 101)
    assert touch("a" * 100).session.name == "a" * 100


@pytest.mark.parametrize("value", ["ali\nce", "ali\tce", "ali\x00ce", "ali\x7fce"])
def test_a_name_with_control_characters_is_refused(value: str) -> None:
    with pytest.raises(InvalidField, match="cannot contain control characters"):
        touch(value)


def test_a_title_over_its_limit_or_on_two_lines_is_refused() -> None:
    with pytest.raises(InvalidField, match="session_title is at most 200") as err:
        touch(DESKTOP, session_title="t" * 201)
    assert err.value.field == "session_title"
    with pytest.raises(InvalidField, match="control characters"):
        touch(DESKTOP, session_title="two\nlines")


def test_a_malformed_hook_session_is_refused_with_where_to_find_it() -> None:
    with pytest.raises(InvalidField, match="Your relaybay hook session") as err:
        touch("alice", hook_session="not an id!")
    assert err.value.field == "hook_session"


# --- binding -------------------------------------------------------------------------------


def test_binding_a_task_records_the_binding_and_its_event() -> None:
    task = make_task()
    result = bind(task, DESKTOP, session_title="Fix login")

    assert result.changed
    assert result.previous is None
    assert selectors.bound_session(task).desktop_id == DESKTOP
    [bound] = events("task.session_bound")
    assert bound.payload == {"session": DESKTOP, "previous": None}
    assert (bound.task_id, bound.project_id) == (task.id, task.project_id)
    assert len(events("session.seen")) == 1


def test_rebinding_closes_the_previous_binding_and_keeps_the_history() -> None:
    task = make_task()
    bind(task, "alice")
    result = bind(task, "bob")

    assert result.changed
    assert result.previous.name == "alice"
    history = selectors.binding_history(task)
    assert [b.session.name for b in history] == ["bob", "alice"]
    assert history[0].unbound_at is None
    assert history[1].unbound_at is not None
    assert history[1].unbind_reason == "rebound to bob"
    assert events("task.session_bound")[-1].payload == {"session": "bob", "previous": "alice"}


def test_binding_the_session_already_bound_changes_nothing() -> None:
    task = make_task()
    bind(task, DESKTOP, session_title="Fix login")
    before = Event.objects.count()

    result = bind(task, DESKTOP, session_title="Fix login")

    assert not result.changed
    assert result.events == ()
    assert Event.objects.count() == before
    assert TaskBinding.objects.filter(task=task).count() == 1


def test_a_task_has_at_most_one_current_binding_in_the_database() -> None:
    task = make_task()
    bind(task, "alice")
    other = touch("bob").session
    with pytest.raises(IntegrityError), transaction.atomic():
        TaskBinding.objects.create(task=task, session=other, bound_at=timezone.now())


def test_binding_needs_a_session() -> None:
    with pytest.raises(InvalidField, match="Pass the session to bind"):
        bind(make_task(), "-")


def test_a_plain_name_for_a_desktop_bound_task_becomes_its_alias() -> None:
    task = make_task()
    bind(task, DESKTOP, session_title="Fix login")

    result = bind(task, "alice")

    assert result.alias == "alice"
    assert not result.changed
    assert result.session.desktop_id == DESKTOP
    assert SessionAlias.objects.get(name="alice").session.desktop_id == DESKTOP
    assert selectors.bound_session(task).desktop_id == DESKTOP
    [added] = events("session.alias_added")
    assert added.payload == {"alias": "alice", "session": DESKTOP}
    assert len(events("task.session_bound")) == 1


def test_an_alias_is_global_and_binds_its_target_elsewhere() -> None:
    first, second = make_task(), make_task()
    bind(first, DESKTOP)
    bind(first, "alice")

    result = bind(second, "alice")

    assert result.changed
    assert selectors.bound_session(second).desktop_id == DESKTOP
    assert events("task.session_bound")[-1].payload == {"session": DESKTOP, "previous": None}


def test_the_alias_name_bound_again_is_a_no_op() -> None:
    task = make_task()
    bind(task, DESKTOP)
    bind(task, "alice")
    before = Event.objects.count()

    result = bind(task, "alice")

    assert not result.changed
    assert result.alias is None
    assert Event.objects.count() == before


def test_no_alias_is_made_when_a_named_session_of_that_name_exists() -> None:
    task = make_task()
    touch("alice")
    bind(task, DESKTOP)
    before = Event.objects.count()

    result = bind(task, "alice")

    assert not result.changed
    assert result.alias is None
    assert result.notes[0].startswith(
        f"Warning: {task.key} is bound to desktop session {DESKTOP}; 'alice' was not made its "
        "alias because a session named alice already exists. Nothing changed."
    )
    assert "task_unbind_session" in result.notes[0]
    assert not SessionAlias.objects.exists()
    assert selectors.bound_session(task).desktop_id == DESKTOP
    assert Event.objects.count() == before


def test_a_plain_name_rebinds_a_task_bound_to_a_named_session() -> None:
    task = make_task()
    bind(task, "alice")
    bind(task, "bob")
    assert selectors.bound_session(task).name == "bob"
    assert not SessionAlias.objects.exists()


def test_a_desktop_id_rebinds_a_task_bound_to_another_desktop_session() -> None:
    task = make_task()
    bind(task, DESKTOP)
    result = bind(task, OTHER_DESKTOP)
    assert result.changed
    assert result.previous.desktop_id == DESKTOP


def test_hook_session_passed_to_bind_is_not_linked_and_a_note_says_where_to_pass_it() -> None:
    task = make_task()
    result = bind(task, DESKTOP, hook_session=AGENT_ID)

    assert result.changed
    assert Session.objects.get(desktop_id=DESKTOP).agent_session_id is None
    assert result.notes == (
        "Note: task_bind_session does not link hook_session (it may bind another session). "
        "Pass hook_session with session on a write of your own session instead, e.g. "
        "task_update or report_add.",
    )


# --- unbinding -----------------------------------------------------------------------------


def test_unbinding_closes_the_binding_with_its_reason_and_event() -> None:
    task = make_task()
    bind(task, "alice")

    result = services.task_unbind_session(task=task, actor="owner", reason="handed over")

    assert result.session.name == "alice"
    assert selectors.bound_session(task) is None
    [closed] = selectors.binding_history(task)
    assert (closed.unbind_reason, closed.unbound_by) == ("handed over", "owner")
    [unbound] = events("task.session_unbound")
    assert unbound.payload == {"session": "alice", "reason": "handed over"}
    assert (unbound.task_id, unbound.actor) == (task.id, "owner")


def test_unbinding_a_task_without_a_session_changes_nothing() -> None:
    task = make_task()
    before = Event.objects.count()
    result = services.task_unbind_session(task=task, actor="owner")
    assert result.session is None
    assert Event.objects.count() == before


def test_a_task_unbound_can_be_bound_to_a_named_session_again() -> None:
    task = make_task()
    touch("alice")
    bind(task, DESKTOP)
    services.task_unbind_session(task=task, actor="owner")
    bind(task, "alice")
    assert selectors.bound_session(task).name == "alice"
    assert len(selectors.binding_history(task)) == 2


# --- hook_session: the exact link (§4 step 2) -----------------------------------------------


def test_hook_session_links_the_claude_code_id_exactly() -> None:
    result = touch(DESKTOP, hook_session=AGENT_ID)
    s = Session.objects.get(pk=result.session.pk)
    assert (s.agent_session_id, s.agent_exact) == (AGENT_ID, True)
    assert result.notes == ()


def test_a_guessed_link_of_the_same_session_becomes_exact() -> None:
    s = touch("alice").session
    Session.objects.filter(pk=s.pk).update(agent_session_id=AGENT_ID, agent_exact=False)
    touch("alice", hook_session=AGENT_ID)
    assert Session.objects.get(pk=s.pk).agent_exact


def test_a_guessed_hook_row_hands_over_its_status_and_is_removed() -> None:
    task = make_task()
    row = guessed_hook_row(AGENT_ID, cwd="/home/dev/x")
    seen_at = row.activity_at
    caller = touch(DESKTOP).session
    bind(task, DESKTOP)

    touch(DESKTOP, hook_session=AGENT_ID)

    assert not Session.objects.filter(pk=row.pk).exists()
    s = Session.objects.get(pk=caller.pk)
    assert (s.agent_session_id, s.agent_exact, s.hook_status) == (AGENT_ID, True, "working")
    assert (s.activity, s.activity_at, s.cwd) == ("Edit", seen_at, "/home/dev/x")
    [changed] = events("session.status_changed")
    assert changed.payload == {"session": DESKTOP, "from": "", "to": "working"}
    assert changed.task_id == task.id


def test_the_bindings_of_a_guessed_hook_row_move_to_the_linking_session() -> None:
    task = make_task()
    row = guessed_hook_row(AGENT_ID, event="Stop")
    TaskBinding.objects.create(task=task, session=row, bound_at=timezone.now())

    result = touch("alice", hook_session=AGENT_ID)

    assert selectors.bound_session(task).pk == result.session.pk


def test_an_id_another_live_session_linked_exactly_is_not_moved() -> None:
    owner = touch("alice", hook_session=AGENT_ID).session
    Session.objects.filter(pk=owner.pk).update(hook_status="working")

    result = touch("bob", hook_session=AGENT_ID)

    assert result.notes == (
        f"Warning: hook_session {AGENT_ID} belongs to another session (alice); not relinked.",
    )
    assert Session.objects.get(pk=owner.pk).agent_session_id == AGENT_ID
    assert Session.objects.get(pk=result.session.pk).agent_session_id is None


def test_an_id_whose_exact_holder_has_ended_moves_to_the_caller() -> None:
    old = touch("alice", hook_session=AGENT_ID).session
    Session.objects.filter(pk=old.pk).update(hook_status="ended")

    result = touch("bob", hook_session=AGENT_ID)

    assert result.notes == ()
    assert Session.objects.get(pk=result.session.pk).agent_session_id == AGENT_ID
    released = Session.objects.get(pk=old.pk)
    assert (released.agent_session_id, released.agent_exact) == (None, False)


def test_a_new_hook_session_replaces_the_callers_previous_one() -> None:
    touch("alice", hook_session=AGENT_ID)
    result = touch("alice", hook_session="78a6a9df-545d-4090-8a48-00105ebe22e7")
    assert result.session.agent_session_id == "78a6a9df-545d-4090-8a48-00105ebe22e7"
    assert not Session.objects.filter(agent_session_id=AGENT_ID).exists()


# --- the seams in tasks.extensions -------------------------------------------------------


def test_the_caller_resolver_names_the_session_and_passes_the_notes() -> None:
    touch("alice", hook_session=AGENT_ID)
    Session.objects.filter(name="alice").update(hook_status="working")

    caller = resolve_caller(
        session="bob", session_title=None, hook_session=AGENT_ID, task_key="nope-1"
    )

    assert caller.name == "bob"
    assert caller.session_id == Session.objects.get(name="bob").pk
    assert caller.notes[0].startswith(f"Warning: hook_session {AGENT_ID} belongs to another")


def test_the_caller_resolver_without_a_session_is_the_agent() -> None:
    caller = resolve_caller(session=None, session_title=None, hook_session=None, task_key=None)
    assert (caller.name, caller.session_id, caller.notes) == ("agent", None, ())


def test_the_task_get_section_shows_the_bound_desktop_session_and_its_history() -> None:
    task = make_task()
    bind(task, "alice")
    bind(task, DESKTOP, session_title="Fix login")
    Session.objects.filter(desktop_id=DESKTOP).update(
        hook_status="working", activity="Edit", activity_at=timezone.now() - timedelta(minutes=2)
    )

    text = task_section(task)

    lines = text.splitlines()
    assert lines[0] == "## Session"
    assert lines[2] == (
        f"{DESKTOP} (Fix login) · desktop · working · last activity: Edit, 2 min ago"
    )
    assert lines[3] == f"Open in desktop: claude://resume?session={DESKTOP}"
    assert "History (latest first):" in lines
    history = lines[lines.index("History (latest first):") + 1 :]
    assert history[0].startswith(f"- {DESKTOP} (Fix login): since ")
    assert history[0].endswith("by tester (current)")
    assert history[1].startswith("- alice: ")
    assert history[1].endswith(f"(rebound to {DESKTOP})")


def test_the_task_get_section_of_a_named_session_without_hooks() -> None:
    task = make_task()
    bind(task, "alice")
    text = task_section(task)
    assert "alice · named · no hook status · no activity yet" in text
    assert "Open in desktop" not in text


def test_the_task_get_section_without_a_binding_says_how_to_bind() -> None:
    assert "None bound. Bind one with task_bind_session." in task_section(make_task())


def test_the_task_get_history_is_cut_after_a_few_lines() -> None:
    task = make_task()
    for n in range(7):
        bind(task, f"s{n}")
    lines = task_section(task).splitlines()
    assert lines[-1] == "- … and 2 earlier binding(s)"
    assert lines[-6].startswith("- s6: since")


def test_task_line_suffixes_come_in_one_query(django_assert_num_queries) -> None:
    project = make_project()
    tasks = [make_task(project) for _ in range(5)]
    bind(tasks[0], "alice")
    bind(tasks[3], DESKTOP)

    with django_assert_num_queries(1):
        suffixes = task_line_suffixes(tasks)

    assert suffixes == {tasks[0].id: " · session alice", tasks[3].id: f" · session {DESKTOP}"}


def test_sessions_list_of_a_project_names_their_bound_tasks() -> None:
    project, other = make_project(), make_project()
    task = make_task(project)
    bind(task, DESKTOP, session_title="Fix login")
    bind(make_task(other), "bob")

    rows = selectors.sessions_list(project)

    assert [r.name for r in rows] == [DESKTOP]
    assert rows[0].task_keys == (task.key,)
    assert rows[0].label == f"{DESKTOP} (Fix login)"
    assert rows[0].desktop_link == f"claude://resume?session={DESKTOP}"
    assert {r.name for r in selectors.sessions_list()} == {DESKTOP, "bob"}
