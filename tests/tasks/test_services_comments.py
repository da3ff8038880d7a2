"""Owner comments and agent replies: the services, the delivery selection and the hook rules
(§1 Comment, §4 Owner comments through hooks).

Data is made through services; hook events go through agents.claude_code.hooks.hook_event with
the real Claude Code 2.1.332 payloads (tests/sessions/hook_payloads.py), so the delivery
provider, the SessionStart line and the Stop handler run exactly as the endpoint runs them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents.claude_code.hooks import hook_event
from core.errors import InvalidField, NotFound
from sessions import brief
from sessions import services as session_services
from sessions.hooks import activity
from sessions.hooks import answer as hook_answer
from sessions.hooks import comments as comment_delivery
from sessions.hooks import event as ev
from sessions.models import Session
from tasks import services
from tasks.events import describe
from tasks.extensions import CallerRef
from tasks.models import Comment, Event, Task
from tasks.selectors import comments as sel
from tasks.selectors import events_since
from tests.sessions.hook_payloads import CWD, payload
from tests.tasks.factories import ACTOR, make_project, make_task

pytestmark = pytest.mark.django_db

ALICE_CC = "78a6a9df-545d-4090-8a48-00105ebe22e7"  # the print-mode captures
BOB_CC = "40f76e57-78f2-4a22-82d2-11206736c928"  # the mcp / Stop captures
STRANGER_CC = "f11e0ae8-da13-46f8-8af2-fe0033a8fe55"


@pytest.fixture(autouse=True)
def _fresh_activity_clock() -> Iterator[None]:
    activity.activity_clock.clear()
    yield
    activity.activity_clock.clear()


# --- helpers ---------------------------------------------------------------------------------


def linked(name: str, agent_id: str) -> Session:
    """A named session whose agent linked its Claude Code id itself (hook_session)."""
    return session_services.session_touch(session=name, hook_session=agent_id, actor=name).session


def bind(task: Task, name: str) -> None:
    session_services.task_bind_session(task=task, session=name, actor=ACTOR)


def setup_bound(slug: str = "acme-shop") -> tuple[Task, Session]:
    task = make_task(make_project(slug, repo_path=CWD), title="Login with 2FA")
    alice = linked("alice", ALICE_CC)
    bind(task, "alice")
    return task, alice


def owner(task: Task, body: str = "Please also cover the recovery codes.") -> Comment:
    return services.owner_comment_add(key=task.key, body=body).obj


def reply(task: Task, body: str = "Done.", **kw: Any) -> Comment:
    return services.comment_add(key=task.key, body=body, actor="alice", **kw).obj


def fresh(c: Comment) -> Comment:
    return Comment.objects.get(pk=c.pk)


def new_events(after: int) -> list[Event]:
    return list(Event.objects.filter(id__gt=after).order_by("id"))


def last_id() -> int:
    return Event.objects.order_by("-id").values_list("id", flat=True).first() or 0


def hook(name: str, agent_id: str = ALICE_CC, **changes: Any) -> dict[str, Any] | None:
    return hook_event(payload=payload(name, session_id=agent_id, **changes)).answer


def context(answer: dict[str, Any] | None) -> str:
    return (answer or {}).get("hookSpecificOutput", {}).get("additionalContext", "")


def post_tool(agent_id: str = ALICE_CC) -> str:
    return context(hook("PostToolUse.Bash", agent_id))


def stop(agent_id: str = ALICE_CC, active: bool = False) -> dict[str, Any] | None:
    name = "Stop.after_block" if active else "Stop.first"
    return hook(name, agent_id, stop_hook_active=active)


# --- owner comments ------------------------------------------------------------------------------


def test_an_owner_comment_is_sent_and_waits_for_delivery():
    task, _ = setup_bound()
    before = last_id()

    outcome = services.owner_comment_add(key=task.key, body="  Check **2FA** too.  ")

    c = fresh(outcome.obj)
    assert (c.author_kind, c.author_name, c.body) == ("owner", "owner", "Check **2FA** too.")
    assert c.created_at is not None
    assert (c.delivered_at, c.delivered_to_session_id, c.read_at) == (None, None, None)
    assert outcome.notes == (f"Comment #{c.id} goes to alice.",)
    [event] = new_events(before)
    assert event.kind == "comment.added"
    assert event.task_id == task.id
    assert event.actor == "owner"
    assert event.payload == {
        "comment_id": c.id,
        "author": "owner",
        "author_kind": "owner",
        "excerpt": "Check **2FA** too.",
        "in_reply_to": None,
        "session": "alice",
    }


def test_an_owner_comment_on_a_task_without_a_session_says_it_waits():
    task = make_task(make_project("acme-shop"))
    outcome = services.owner_comment_add(key=task.key, body="hello")
    assert outcome.notes == (
        f"No session is bound to {task.key}: comment #{outcome.obj.id} waits until one is.",
    )
    assert Event.objects.filter(kind="comment.added").get().payload["session"] is None


def test_the_comment_added_excerpt_is_200_characters_on_one_line_and_events_since_shows_it():
    task, _ = setup_bound()
    body = "line one\n\n" + "x" * 400
    c = owner(task, body)
    event = Event.objects.get(kind="comment.added")
    assert len(event.payload["excerpt"]) == 200
    assert event.payload["excerpt"].startswith("line one xxx")
    assert event.payload["excerpt"][-1] == "…"
    [line] = [e for e in events_since(0) if e.kind == "comment.added"]
    assert f"owner comment #{c.id} for alice: " in line.text
    assert event.payload["excerpt"] in line.text


@pytest.mark.parametrize("body", ["", "   ", "-" * 4001])
def test_an_empty_or_too_long_comment_is_refused_and_nothing_is_written(body):
    task, _ = setup_bound()
    with pytest.raises(InvalidField) as err:
        services.owner_comment_add(key=task.key, body=body)
    assert err.value.field == "body"
    assert not Comment.objects.exists()
    assert not Event.objects.filter(kind__startswith="comment.").exists()


def test_a_comment_of_exactly_4000_characters_is_kept_whole():
    task, _ = setup_bound()
    assert len(owner(task, "y" * 4000).body) == 4000


def test_a_comment_on_an_unknown_task_says_how_to_find_the_keys():
    with pytest.raises(NotFound, match="task_list"):
        services.owner_comment_add(key="nope-1", body="hi")


def test_an_owner_comment_marks_the_tasks_agent_replies_read():
    task, _ = setup_bound()
    r1, r2 = reply(task, "one"), reply(task, "two")
    other = make_task(task.project)
    r3 = reply(other, "elsewhere")
    before = last_id()

    owner(task, "thanks")

    assert fresh(r1).read_at is not None
    assert fresh(r2).read_by == "owner"
    assert fresh(r3).read_at is None
    kinds = [(e.kind, e.payload.get("reason")) for e in new_events(before)]
    assert kinds == [("comment.added", None), ("comment.read", "comment")]
    read = Event.objects.filter(kind="comment.read").get()
    assert read.payload == {
        "comment_ids": [r1.id, r2.id],
        "author_kind": "agent",
        "by": "owner",
        "reason": "comment",
    }


def test_mark_replies_read_marks_them_and_is_a_no_op_when_none_are_unread():
    task, _ = setup_bound()
    r = reply(task)
    outcome = services.comment_replies_read(key=task.key)
    assert [c.id for c in outcome.obj] == [r.id]
    assert fresh(r).read_at is not None
    before = last_id()
    again = services.comment_replies_read(key=task.key)
    assert again.obj == []
    assert again.changed == ()
    assert new_events(before) == []


# --- agent replies ---------------------------------------------------------------------------


def test_an_agent_reply_is_unread_and_its_author_is_the_calling_session():
    task, alice = setup_bound()
    c = services.comment_add(key=task.key, body="On it.", actor=CallerRef(session="alice")).obj
    c = fresh(c)
    assert (c.author_kind, c.author_name, c.author_session_id) == ("agent", "alice", alice.id)
    assert c.read_at is None
    event = Event.objects.get(kind="comment.added")
    assert event.actor == "alice"
    assert event.payload["session"] == "alice"
    assert event.payload["author_kind"] == "agent"
    assert describe(event.kind, event.payload) == f"reply #{c.id} by alice: On it."


@pytest.mark.parametrize("given", ["id", "#id", "str"])
def test_a_reply_to_an_owner_comment_marks_it_read(given):
    task, _ = setup_bound()
    o = owner(task)
    ref = {"id": o.id, "#id": f"#{o.id}", "str": str(o.id)}[given]
    before = last_id()

    outcome = services.comment_add(key=task.key, body="Done", actor="alice", in_reply_to=ref)

    assert fresh(outcome.obj).in_reply_to_id == o.id
    assert fresh(o).read_by == "alice"
    assert fresh(o).read_at is not None
    assert outcome.notes == (f"Owner comment #{o.id} is marked read.",)
    read = [e for e in new_events(before) if e.kind == "comment.read"]
    assert [e.payload for e in read] == [
        {"comment_ids": [o.id], "author_kind": "owner", "by": "alice", "reason": "reply"}
    ]
    assert describe("comment.read", read[0].payload) == f"owner comment #{o.id} answered by alice"


def test_a_reply_to_a_read_comment_or_to_a_reply_marks_nothing():
    task, _ = setup_bound()
    o = owner(task)
    reply(task, in_reply_to=o.id)
    r = reply(task)
    before = last_id()
    reply(task, in_reply_to=o.id)
    reply(task, in_reply_to=r.id)
    assert [e.kind for e in new_events(before)] == ["comment.added", "comment.added"]
    assert fresh(r).read_at is None


def test_a_reply_to_a_comment_of_another_task_is_refused():
    task, _ = setup_bound()
    other = make_task(task.project)
    o = owner(other)
    with pytest.raises(InvalidField, match=f"#{o.id} is not on {task.key}"):
        reply(task, in_reply_to=o.id)
    with pytest.raises(InvalidField, match="in_reply_to"):
        reply(task, in_reply_to="soon")
    assert Comment.objects.count() == 1


# --- comment_ack ------------------------------------------------------------------------------


def test_comment_ack_marks_the_given_owner_comments_read_with_one_event_per_task():
    task, _ = setup_bound()
    other = make_task(task.project)
    a, b, c = owner(task, "a"), owner(task, "b"), owner(other, "c")
    before = last_id()

    outcome = services.comment_ack(actor="alice", comment_ids=[a.id, f"#{c.id}", str(b.id)])

    assert sorted(x.id for x in outcome.obj) == [a.id, b.id, c.id]
    assert all(fresh(x).read_by == "alice" for x in (a, b, c))
    events = new_events(before)
    assert [(e.kind, e.task_id, e.payload["comment_ids"]) for e in events] == [
        ("comment.read", task.id, [a.id, b.id]),
        ("comment.read", other.id, [c.id]),
    ]
    assert events[0].payload["reason"] == "ack"
    assert describe("comment.read", events[0].payload) == (
        f"owner comment #{a.id}, #{b.id} acknowledged by alice"
    )


def test_comment_ack_of_a_task_marks_all_its_unread_owner_comments():
    task, _ = setup_bound()
    a, b = owner(task, "a"), owner(task, "b")
    services.comment_ack(actor="alice", comment_ids=[a.id])
    r = reply(task)
    outcome = services.comment_ack(actor="alice", key=task.key)
    assert [x.id for x in outcome.obj] == [b.id]
    assert fresh(r).read_at is None  # replies are the owner's to mark
    nothing = services.comment_ack(actor="alice", key=task.key)
    assert nothing.obj == []
    assert nothing.notes == (f"{task.key} has no unacknowledged owner comments.",)


def test_comment_ack_notes_replies_and_comments_already_acknowledged():
    task, _ = setup_bound()
    a = owner(task)
    services.comment_ack(actor="alice", comment_ids=[a.id])
    r = reply(task)
    outcome = services.comment_ack(actor="alice", comment_ids=[a.id, r.id])
    assert outcome.obj == []
    assert outcome.notes == (
        f"Owner comment #{a.id} was already acknowledged.",
        f"#{r.id} is an agent reply, not an owner comment: nothing to acknowledge.",
    )


def test_comment_ack_with_an_unknown_id_changes_nothing():
    task, _ = setup_bound()
    a = owner(task)
    with pytest.raises(NotFound, match="Unknown comment #999"):
        services.comment_ack(actor="alice", comment_ids=[a.id, 999])
    assert fresh(a).read_at is None


def test_comment_ack_refuses_ids_of_another_task_and_a_call_without_ids_or_task():
    task, _ = setup_bound()
    other = make_task(task.project)
    c = owner(other)
    with pytest.raises(InvalidField, match=f"#{c.id} is on {other.key}"):
        services.comment_ack(actor="alice", comment_ids=[c.id], key=task.key)
    with pytest.raises(InvalidField, match="Pass comment_ids"):
        services.comment_ack(actor="alice")
    assert fresh(c).read_at is None


# --- comments_deliver and the selection ---------------------------------------------------


def test_delivery_marks_the_comment_delivered_to_the_session_once():
    task, alice = setup_bound()
    c = owner(task)
    before = last_id()
    kw = {"session_id": alice.id, "session_name": "alice", "via": "PostToolUse"}

    first = services.comments_deliver(comment_ids=[c.id], **kw)
    again = services.comments_deliver(comment_ids=[c.id], **kw)

    assert [x.id for x in first.obj] == [c.id]
    assert again.obj == []
    c = fresh(c)
    assert (c.delivered_to_session_id, c.delivered_to_name) == (alice.id, "alice")
    [event] = new_events(before)
    assert event.kind == "comment.delivered"
    assert event.actor == "hook"
    assert event.payload == {"comment_id": c.id, "session": "alice", "via": "PostToolUse"}
    assert describe(event.kind, event.payload) == (
        f"owner comment #{c.id} delivered to alice (PostToolUse)"
    )


def test_delivery_to_another_session_starts_the_stop_block_count_again():
    task, alice = setup_bound()
    c = owner(task)
    services.comments_deliver(
        comment_ids=[c.id], session_id=alice.id, session_name="alice", via="Stop", stop_block=True
    )
    services.comments_deliver(
        comment_ids=[c.id], session_id=alice.id, session_name="alice", via="Stop", stop_block=True
    )
    assert fresh(c).stop_blocks == 2
    services.comments_deliver(comment_ids=[c.id], session_id=999, session_name="bob", via="x")
    c = fresh(c)
    assert (c.stop_blocks, c.delivered_to_name) == (0, "bob")


def test_read_comments_and_replies_are_never_delivered():
    task, alice = setup_bound()
    o, r = owner(task), reply(task)
    services.comment_ack(actor="alice", comment_ids=[o.id])
    outcome = services.comments_deliver(
        comment_ids=[o.id, r.id], session_id=alice.id, session_name="alice", via="x"
    )
    assert outcome.obj == []
    assert fresh(o).delivered_at is None


def test_the_selection_redelivers_unread_comments_delivered_to_a_previous_session():
    task, alice = setup_bound()
    undelivered, to_alice, to_bob, read = (owner(task, t) for t in ("u", "a", "b", "r"))
    deliver = services.comments_deliver
    deliver(comment_ids=[to_alice.id, read.id], session_id=alice.id, session_name="a", via="x")
    deliver(comment_ids=[to_bob.id], session_id=alice.id + 1, session_name="bob", via="x")
    services.comment_ack(actor="alice", comment_ids=[read.id])
    reply(task)

    pending = sel.pending_delivery([task.id], alice.id)

    assert [c.id for c in pending] == [undelivered.id, to_bob.id]
    assert sel.unread_owner_count([task.id]) == 3


def test_stop_candidates_leave_out_comments_that_blocked_twice_for_this_session():
    task, alice = setup_bound()
    once, twice, elsewhere = owner(task, "1"), owner(task, "2"), owner(task, "3")
    for c, n in ((once, 1), (twice, 2)):
        for _ in range(n):
            services.comments_deliver(
                comment_ids=[c.id],
                session_id=alice.id,
                session_name="a",
                via="Stop",
                stop_block=True,
            )
    for _ in range(2):
        services.comments_deliver(
            comment_ids=[elsewhere.id],
            session_id=77,
            session_name="b",
            via="Stop",
            stop_block=True,
        )
    assert [c.id for c in sel.stop_candidates([task.id], alice.id)] == [once.id, elsewhere.id]


# --- delivery through the hooks (real payloads) ---------------------------------------------------


def test_post_tool_use_delivers_the_comment_once_with_how_to_answer():
    task, alice = setup_bound()
    c = owner(task, "Use the **new** API.\n- and log it")

    text = post_tool()

    assert text.splitlines()[0] == (
        f"Owner comment on {task.key} (#{c.id}): Use the **new** API. ↵ - and log it"
    )
    assert "comment_add(task, body, in_reply_to=<id>)" in text
    assert "comment_ack" in text
    c = fresh(c)
    assert c.delivered_to_session_id == alice.id
    assert c.read_at is None
    assert Event.objects.get(kind="comment.delivered").payload["via"] == "PostToolUse"
    assert post_tool() == ""  # never sent again by these events


@pytest.mark.parametrize("event", ["UserPromptSubmit.print", "PreToolUse.Bash"])
def test_user_prompt_submit_and_pre_tool_use_deliver_too(event):
    task, _ = setup_bound()
    c = owner(task)
    assert f"(#{c.id})" in context(hook(event))
    assert fresh(c).delivered_at is not None


def test_a_session_that_did_not_link_its_hook_session_itself_gets_nothing():
    task, _ = setup_bound()
    c = owner(task)
    # A stranger id: the hooks make a plain row for the folder, linked by nobody's write.
    assert hook("PostToolUse.Bash", STRANGER_CC) is None
    assert stop(STRANGER_CC) is None
    assert fresh(c).delivered_at is None


def test_an_exact_session_gets_nothing_for_tasks_it_is_not_bound_to():
    task, _ = setup_bound()
    other = make_task(task.project)
    owner(other)
    assert post_tool() == ""
    assert stop() is None


def test_comments_over_the_budget_come_with_the_next_events_with_a_count():
    task, _ = setup_bound()
    comments = [owner(task, f"{n}" * 3000) for n in range(5)]

    answers = [post_tool() for _ in range(4)]

    assert all(len(a) <= hook_answer.CONTEXT_BUDGET for a in answers)
    ids = [[c.id for c in comments if f"(#{c.id})" in a] for a in answers]
    assert ids == [
        [comments[0].id, comments[1].id],
        [comments[2].id, comments[3].id],
        [comments[4].id],
        [],
    ]
    assert answers[0].endswith("3 more owner comment(s) waiting — they come with the next events.")
    assert answers[1].endswith("1 more owner comment(s) waiting — they come with the next events.")
    assert "more owner comment" not in answers[2]


def test_at_least_one_comment_goes_out_when_other_lines_took_the_budget():
    task, _ = setup_bound()
    c1, c2 = owner(task, "a" * 4000), owner(task, "b")

    def filler(call: Any, answer: Any) -> None:
        answer.add_context("plan reminder " + "z" * 7000)

    hook_answer.register_context_provider(10, frozenset({ev.POST_TOOL}), filler)
    try:
        text = post_tool()
    finally:
        hook_answer._providers[:] = [p for p in hook_answer._providers if p[2] is not filler]
    assert f"(#{c1.id})" in text
    assert f"(#{c2.id})" not in text
    assert "1 more owner comment(s) waiting" in text
    assert fresh(c2).delivered_at is None


def test_comments_delivered_and_unread_go_again_to_a_newly_bound_session():
    task, _alice = setup_bound()
    c = owner(task)
    assert f"(#{c.id})" in post_tool()
    bob = linked("bob", BOB_CC)
    bind(task, "bob")

    assert post_tool() == ""  # alice is no longer bound
    assert f"(#{c.id})" in post_tool(BOB_CC)
    c = fresh(c)
    assert (c.delivered_to_session_id, c.delivered_to_name) == (bob.id, "bob")
    assert post_tool(BOB_CC) == ""
    delivered = Event.objects.filter(kind="comment.delivered").order_by("id")
    assert [e.payload["session"] for e in delivered] == ["alice", "bob"]


def test_an_acknowledged_comment_is_not_delivered_to_a_newly_bound_session():
    task, _ = setup_bound()
    c = owner(task)
    post_tool()
    services.comment_ack(actor="alice", comment_ids=[c.id])
    linked("bob", BOB_CC)
    bind(task, "bob")
    assert post_tool(BOB_CC) == ""


# --- SessionStart -------------------------------------------------------------------------------


def test_session_start_names_the_unread_count_without_delivering():
    task, _ = setup_bound()
    c1, c2 = owner(task), owner(task)
    post_tool()  # delivered, still unread: counts
    c3 = owner(task)

    text = context(hook("SessionStart.resume.print"))

    lines = text.splitlines()
    # Last but the resume brief, which comes after the comments (issue 32).
    assert lines[lines.index(brief.HEAD) - 1] == (
        "You have 3 unread owner comment(s) on your relaybay tasks: call comments_list, "
        "then comment_ack or comment_add."
    )
    assert fresh(c3).delivered_at is None
    services.comment_ack(actor="alice", comment_ids=[c1.id, c2.id, c3.id])
    assert "unread owner comment" not in context(hook("SessionStart.resume.print"))


def test_session_start_of_a_guessed_session_says_nothing_about_comments():
    task, _ = setup_bound()
    owner(task)
    assert "unread owner" not in context(hook("SessionStart.startup.print", STRANGER_CC))


# --- Stop ---------------------------------------------------------------------------------


def test_stop_blocks_on_an_undelivered_comment_and_delivers_it_with_the_block():
    task, alice = setup_bound()
    c = owner(task, "Rename the button.")

    answer = stop()

    assert answer is not None
    assert answer["decision"] == "block"
    assert f"Owner comment on {task.key} (#{c.id}): Rename the button." in answer["reason"]
    assert "comment_ack" in answer["reason"]
    c = fresh(c)
    assert (c.delivered_to_session_id, c.stop_blocks) == (alice.id, 1)
    assert Event.objects.get(kind="comment.delivered").payload["via"] == "Stop"
    assert post_tool() == ""  # delivered by the block: not sent again


def test_stop_blocks_on_a_delivered_unacknowledged_comment_and_not_after_the_ack():
    task, _ = setup_bound()
    c = owner(task)
    post_tool()
    answer = stop()
    assert answer is not None
    assert f"(#{c.id})" in answer["reason"]
    services.comment_ack(actor="alice", comment_ids=[c.id])
    hook("UserPromptSubmit.print")
    assert stop() is None


def test_one_comment_causes_at_most_two_stop_blocks_across_turns():
    task, _ = setup_bound()
    c = owner(task)

    assert stop() is not None  # turn 1
    hook("UserPromptSubmit.print")
    assert stop() is not None  # turn 2
    hook("UserPromptSubmit.print")
    assert stop() is None  # turn 3: the comment blocked twice already
    assert fresh(c).stop_blocks == 2
    # Only the SessionStart line (and comments_list) name it now.
    assert "1 unread owner comment(s)" in context(hook("SessionStart.resume.print"))


def test_a_second_comment_blocks_again_after_the_first_used_its_blocks():
    task, _ = setup_bound()
    first = owner(task, "first")
    stop()
    hook("UserPromptSubmit.print")
    stop()
    hook("UserPromptSubmit.print")
    second = owner(task, "second")
    answer = stop()
    assert answer is not None
    assert f"(#{second.id})" in answer["reason"]
    assert f"(#{first.id})" not in answer["reason"]


def test_the_stop_block_count_starts_again_on_a_newly_bound_session():
    task, _ = setup_bound()
    c = owner(task)
    stop()
    hook("UserPromptSubmit.print")
    stop()
    assert fresh(c).stop_blocks == 2
    linked("bob", BOB_CC)
    bind(task, "bob")

    answer = stop(BOB_CC)

    assert answer is not None
    assert f"(#{c.id})" in answer["reason"]
    c = fresh(c)
    assert (c.delivered_to_name, c.stop_blocks) == ("bob", 1)


def test_the_stop_reason_keeps_to_the_budget_and_names_what_is_left():
    task, _ = setup_bound()
    comments = [owner(task, f"{n}" * 3500) for n in range(3)]
    answer = stop()
    assert answer is not None
    assert len(answer["reason"]) <= hook_answer.CONTEXT_BUDGET
    assert "1 more owner comment(s) waiting" in answer["reason"]
    assert fresh(comments[2]).delivered_at is None
    assert fresh(comments[2]).stop_blocks == 0


# --- the wake-up lines ------------------------------------------------------------------------


def test_take_wake_lines_delivers_the_pending_comments_and_returns_the_hook_lines():
    task, alice = setup_bound()
    c = owner(task, "wake up")

    lines = comment_delivery.take_wake_lines(Session.objects.get(pk=alice.pk))

    assert lines is not None
    assert lines.splitlines()[0] == f"Owner comment on {task.key} (#{c.id}): wake up"
    assert fresh(c).delivered_to_session_id == alice.id
    assert Event.objects.get(kind="comment.delivered").payload["via"] == "wake"
    assert comment_delivery.take_wake_lines(Session.objects.get(pk=alice.pk)) is None
    assert post_tool() == ""


def test_take_wake_lines_gives_nothing_to_a_session_not_exactly_linked():
    task = make_task(make_project("acme-shop"))
    plain = session_services.session_touch(session="carol", actor="carol").session
    bind(task, "carol")
    owner(task)
    assert comment_delivery.take_wake_lines(plain) is None
    assert comment_delivery.take_wake_lines(None) is None


@pytest.mark.django_db(transaction=True)
def test_the_owner_comment_step_writes_only_inside_a_callers_transaction():
    task = make_task(make_project("steps"), title="Checkout")
    with pytest.raises(RuntimeError, match="inside the caller's transaction"):
        services.owner_comment_step(task, body="On its own", actor="owner")
    assert not Comment.objects.filter(task=task).exists()


def test_a_pre_tool_use_reads_the_bound_tasks_once_for_the_guard_and_the_comments():
    """Every tool call runs PreToolUse: the guard and the comment delivery share one read."""
    task, _ = setup_bound()
    c = owner(task, "Use the staging database.")
    with CaptureQueriesContext(connection) as queries:
        text = context(hook("PreToolUse.Bash"))
    assert f"#{c.id}" in text
    bound_reads = [
        q for q in queries.captured_queries if '"agent_sessions_taskbinding" b' in q["sql"]
    ]
    assert len(bound_reads) == 1
