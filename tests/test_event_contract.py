"""Each service emits exactly the event kinds and payload keys it should (docs/architecture.md §8).

The Activity feed, events_since and the SSE summary describe events from the payload alone,
so a payload that loses a key breaks them silently; these tests pin every shape. Every kind
of the catalogue has one contract case below (a kind without one fails), which also reads
its line back from events_since and the Activity feed.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from agents.claude_code.hooks import hook_event
from environments import services as environment_services
from environments.services import Change
from memory import services as memory_services
from plans import services as plan_services
from policy import global_file
from policy import services as policy_services
from reviews import services as review_services
from sessions import services as session_services
from sessions.hooks import activity, stuck, sweep
from sessions.models import Session
from tasks import services
from tasks.events import KINDS, describe
from tasks.models import Comment, Event, Project, Task
from tasks.render_md import event_line
from tasks.selectors import events_since
from tasks.selectors.activity import activity_page, parse_filters
from tests.environments.factories import make_environment
from tests.reviews import images
from tests.sessions.hook_payloads import CWD, payload
from tests.tasks.factories import ACTOR, make_project, make_task

pytestmark = pytest.mark.django_db


def emitted(call: Callable[..., Any], **kwargs: Any) -> list[tuple[str, frozenset[str]]]:
    """The events a call appended, as (kind, payload keys), in order."""
    last = Event.objects.order_by("-id").values_list("id", flat=True).first() or 0
    call(**kwargs)
    rows = Event.objects.filter(id__gt=last).order_by("id")
    for row in rows:
        assert row.kind in KINDS
        assert row.actor == ACTOR
        assert describe(row.kind, row.payload)  # every event has a one-line text
    return [(e.kind, frozenset(e.payload)) for e in rows]


def keys(*names: str) -> frozenset[str]:
    return frozenset(names)


def logged(stage: str = "dev") -> Task:
    return make_task(stage=stage, size="S", progress="p", tracker_ref="X-1", tracker_logged=True)


# --- projects ----------------------------------------------------------------------------


def test_project_upsert_creating_emits_project_created():
    assert emitted(services.project_upsert, slug="acme", actor=ACTOR) == [
        ("project.created", keys("slug", "name"))
    ]


def test_project_upsert_changing_emits_project_updated():
    make_project("acme")
    assert emitted(services.project_upsert, slug="acme", name="A", actor=ACTOR) == [
        ("project.updated", keys("slug", "fields"))
    ]


def test_project_upsert_changing_nothing_emits_nothing():
    make_project("acme", name="A")
    assert emitted(services.project_upsert, slug="acme", name="A", actor=ACTOR) == []


def test_set_project_rules_emits_project_updated():
    make_project("acme")
    assert emitted(services.set_project_rules, project="acme", body="{}", actor=ACTOR) == [
        ("project.updated", keys("slug", "fields"))
    ]


# --- tasks -------------------------------------------------------------------------------


def test_task_create_emits_task_created_only():
    make_project("acme")
    call = partial(
        services.task_create,
        project="acme",
        title="x",
        actor=ACTOR,
        stage="dev",
        tracker_ref="X-1",
        progress="p",
    )
    assert emitted(call) == [("task.created", keys("title", "stage", "fields"))]


def test_task_update_of_fields_emits_task_updated():
    task = make_task()
    assert emitted(services.task_update, key=task.key, actor=ACTOR, branch="b") == [
        ("task.updated", keys("fields"))
    ]


def test_task_update_that_changes_nothing_emits_nothing():
    task = make_task(branch="b")
    assert emitted(services.task_update, key=task.key, actor=ACTOR, branch="b") == []


def test_task_patch_emits_task_updated():
    task = make_task()
    call = partial(services.task_patch, key=task.key, fields={"size": "M"}, actor=ACTOR)
    assert emitted(call) == [("task.updated", keys("fields"))]


def test_a_confirmed_next_step_emits_task_updated_with_confirmed():
    task = make_task(next_step="n")
    services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    assert emitted(services.task_update, key=task.key, actor=ACTOR, next_step="n") == [
        ("task.updated", keys("fields", "confirmed"))
    ]


def test_task_set_stage_emits_task_stage_changed():
    task = make_task(size="S")
    assert emitted(services.task_set_stage, key=task.key, stage="review", actor=ACTOR) == [
        ("task.stage_changed", keys("from", "to", "stage"))
    ]


def test_a_move_with_rule_warnings_carries_them_in_its_event():
    task = make_task()
    assert emitted(services.task_set_stage, key=task.key, stage="dev", actor=ACTOR) == [
        ("task.stage_changed", keys("from", "to", "stage", "warnings"))
    ]


def test_a_move_with_a_note_and_fields_emits_the_move_then_the_update():
    task = make_task(size="S")
    call = partial(
        services.task_set_stage,
        key=task.key,
        stage="review",
        actor=ACTOR,
        note="CI",
        next_step="n",
        waiting_on="owner",
    )
    assert emitted(call) == [
        ("task.stage_changed", keys("from", "to", "stage", "note")),
        ("task.updated", keys("fields", "waiting_on")),
    ]


def test_a_move_back_out_of_done_on_a_logged_task_emits_the_unlog_too():
    task = logged("done")
    assert emitted(services.task_set_stage, key=task.key, stage="dev", actor=ACTOR) == [
        ("task.stage_changed", keys("from", "to", "stage")),
        ("task.tracker_unlogged", keys("reason")),
    ]


def test_a_changed_progress_on_a_logged_task_emits_update_then_unlog():
    task = logged()
    assert emitted(services.task_update, key=task.key, actor=ACTOR, progress="q") == [
        ("task.updated", keys("fields")),
        ("task.tracker_unlogged", keys("reason")),
    ]


def test_a_strict_refusal_emits_nothing(settings, tmp_path):
    from tests.tasks.factories import use_config

    use_config(settings, tmp_path / "h", mode="strict")
    task = make_task()

    def call() -> None:
        with pytest.raises(Exception, match="Nothing changed"):
            services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)

    assert emitted(call) == []


# --- reports and decisions ---------------------------------------------------------------


def test_report_add_emits_report_added():
    task = make_task(size="S")
    assert emitted(services.report_add, key=task.key, body="notes", actor=ACTOR) == [
        ("report.added", keys("summary", "state", "size", "report_id"))
    ]


def test_report_add_with_fields_and_a_size_emits_report_then_update():
    task = make_task()
    call = partial(
        services.report_add, key=task.key, body="changed · M · x", actor=ACTOR, next_step="n"
    )
    assert emitted(call) == [
        ("report.added", keys("summary", "state", "size", "report_id")),
        ("task.updated", keys("fields")),
    ]


def test_report_add_on_a_logged_task_emits_report_then_unlog():
    task = logged()
    assert emitted(services.report_add, key=task.key, body="x", actor=ACTOR) == [
        ("report.added", keys("summary", "state", "size", "report_id")),
        ("task.tracker_unlogged", keys("reason")),
    ]


def test_decision_add_emits_decision_added():
    make_project("acme")
    call = partial(services.decision_add, project="acme", text="Use SQLite", actor=ACTOR)
    assert emitted(call) == [("decision.added", keys("text", "decision_id"))]


def test_every_event_row_names_its_project_and_task_when_it_has_one():
    task = logged()
    services.report_add(key=task.key, body="x", actor=ACTOR)
    for event in Event.objects.filter(kind__startswith="task."):
        assert event.project_id == task.project_id
        assert event.task_id == task.id


# --- one contract case per kind of the catalogue -------------------------------------------
#
# Each case arranges what its service needs, calls the real service on the real SQLite
# database and names the events the call appends (kind and exactly the payload keys the
# service's docstring documents, in order) and what the kind's one-line text must name.
# test_every_kind_of_the_catalogue_has_a_contract_case fails on a kind added without one.

ALICE_CC = "78a6a9df-545d-4090-8a48-00105ebe22e7"  # the print-mode hook captures
DESKTOP = "local_1b4e28ba-2fa1-11d2-883f-0016d3cca427"


@dataclass(frozen=True)
class Case:
    call: Callable[[], Any]
    events: list[tuple[str, frozenset[str]]]
    names: str  # what the kind's one-line description must name


CASES: dict[str, Callable[[], Case]] = {}


def contract(kind: str) -> Callable[[Callable[[], Case]], Callable[[], Case]]:
    def register(arrange: Callable[[], Case]) -> Callable[[], Case]:
        assert kind not in CASES, f"two contract cases for {kind}"
        CASES[kind] = arrange
        return arrange

    return register


def bound_to_alice(task: Task | None = None) -> tuple[Task, Session]:
    """A task bound to the named session alice, whose agent linked its Claude Code id."""
    task = task or make_task(make_project(repo_path=CWD), title="Login with 2FA")
    alice = session_services.session_touch(
        session="alice", hook_session=ALICE_CC, actor=ACTOR
    ).session
    session_services.task_bind_session(task=task, session="alice", actor=ACTOR)
    return task, alice


def hook(name: str) -> Callable[[], Any]:
    return partial(hook_event, payload=payload(name), actor=ACTOR)


def owner_comment(task: Task, body: str = "Please check the login") -> Comment:
    return services.owner_comment_add(key=task.key, body=body, actor=ACTOR).obj


def with_plan(task: Task) -> Task:
    plan_services.plan_set(key=task.key, steps=["Write the form", "Wire 2FA"], actor=ACTOR)
    return task


def with_checklist(task: Task, *titles: str) -> Task:
    review_services.review_steps_set(key=task.key, steps=list(titles), actor=ACTOR)
    return task


def screenshot(task: Task) -> int:
    return review_services.attach_file(key=task.key, actor=ACTOR, content=images.GIF).obj.id


REVIEW_STEP = keys("position", "title", "status", "by")
DECIDED_STEP = keys("position", "title", "status", "by", "previous", "comment_id")
COMMENT_ADDED = keys("comment_id", "author", "author_kind", "excerpt", "in_reply_to", "session")


@contract("project.created")
def _() -> Case:
    call = partial(services.project_upsert, slug="acme-shop", actor=ACTOR)
    return Case(call, [("project.created", keys("slug", "name"))], "acme-shop")


@contract("project.updated")
def _() -> Case:
    make_project("acme-shop")
    call = partial(services.project_upsert, slug="acme-shop", name="Acme shop", actor=ACTOR)
    return Case(call, [("project.updated", keys("slug", "fields"))], "name")


@contract("task.created")
def _() -> Case:
    make_project("acme-shop")
    call = partial(services.task_create, project="acme-shop", title="Login with 2FA", actor=ACTOR)
    return Case(call, [("task.created", keys("title", "stage", "fields"))], "Login with 2FA")


@contract("task.updated")
def _() -> Case:
    task = make_task()
    call = partial(services.task_update, key=task.key, actor=ACTOR, branch="login-2fa")
    return Case(call, [("task.updated", keys("fields"))], "branch")


@contract("task.stage_changed")
def _() -> Case:
    task = make_task(size="S")
    call = partial(services.task_set_stage, key=task.key, stage="review", actor=ACTOR)
    return Case(call, [("task.stage_changed", keys("from", "to", "stage"))], "review")


@contract("task.session_bound")
def _() -> Case:
    task = make_task()
    session_services.session_touch(session="alice", actor=ACTOR)  # known: no session.seen
    call = partial(session_services.task_bind_session, task=task, session="alice", actor=ACTOR)
    return Case(call, [("task.session_bound", keys("session", "previous"))], "alice")


@contract("task.session_unbound")
def _() -> Case:
    task, _alice = bound_to_alice()
    call = partial(session_services.task_unbind_session, task=task, actor=ACTOR, reason="done")
    return Case(call, [("task.session_unbound", keys("session", "reason"))], "alice")


@contract("task.tracker_unlogged")
def _() -> Case:
    task = logged()
    call = partial(services.task_update, key=task.key, actor=ACTOR, progress="more work")
    return Case(
        call,
        [("task.updated", keys("fields")), ("task.tracker_unlogged", keys("reason"))],
        "tracker",
    )


@contract("report.added")
def _() -> Case:
    task = make_task(size="S")
    call = partial(services.report_add, key=task.key, body="Login form done", actor=ACTOR)
    return Case(
        call, [("report.added", keys("summary", "state", "size", "report_id"))], "Login form done"
    )


@contract("decision.added")
def _() -> Case:
    make_project("acme-shop")
    call = partial(services.decision_add, project="acme-shop", text="Use SQLite", actor=ACTOR)
    return Case(call, [("decision.added", keys("text", "decision_id"))], "Use SQLite")


@contract("memory.added")
def _() -> Case:
    make_project("acme-shop")
    call = partial(
        memory_services.memory_add,
        scope="project",
        project="acme-shop",
        title="SQLite WAL mode",
        body="Keep WAL on.",
        kind="feedback",
        actor=ACTOR,
    )
    return Case(call, [("memory.added", keys("note", "scope", "title"))], "SQLite WAL mode")


@contract("memory.updated")
def _() -> Case:
    make_project("acme-shop")
    note = memory_services.memory_add(
        scope="project",
        project="acme-shop",
        title="SQLite WAL mode",
        body="Keep WAL on.",
        kind="feedback",
        actor=ACTOR,
    ).obj
    call = partial(
        memory_services.memory_update, note=note.id, base_version=1, body="Off.", actor=ACTOR
    )
    return Case(call, [("memory.updated", keys("note", "version", "title"))], f"#{note.id} v2")


@contract("session.seen")
def _() -> Case:
    task = make_task()
    call = partial(session_services.session_touch, session="alice", actor=ACTOR, task=task)
    return Case(call, [("session.seen", keys("session", "kind", "title", "created"))], "alice")


@contract("session.status_changed")
def _() -> Case:
    bound_to_alice()
    return Case(
        hook("UserPromptSubmit.print"),
        [("session.status_changed", keys("session", "from", "to"))],
        "alice",
    )


@contract("session.stuck")
def _() -> Case:
    bound_to_alice()
    stuck.forget()
    call = partial(hook_event, payload=payload("PreToolUse.Bash", session_id=ALICE_CC), actor=ACTOR)
    for _ in range(4):  # the fifth identical call in a row crosses stuck_repeat_calls
        call()
    return Case(call, [("session.stuck", keys("session", "reason"))], "alice")


@contract("session.forgotten")
def _() -> Case:
    sweep.forget()
    _, alice = bound_to_alice()
    sweep.sweep(actor=ACTOR)  # the first sweep after a start only takes note
    Session.objects.filter(pk=alice.pk).update(
        hook_status="idle", activity_at=timezone.now() - timedelta(days=2)
    )
    return Case(
        partial(sweep.sweep, actor=ACTOR),
        [("session.forgotten", keys("session", "reason"))],
        "alice",
    )


@contract("session.collision")
def _() -> Case:
    task, _ = bound_to_alice()
    bob_cc = "5f0c2a8e-9d1b-4c3e-8a7f-1b2c3d4e5f60"
    session_services.session_touch(session="bob", hook_session=bob_cc, actor=ACTOR)
    session_services.task_bind_session(
        task=make_task(task.project, title="Search"), session="bob", actor=ACTOR
    )
    edit = {"file_path": f"{CWD}/src/cart.py", "old_string": "a", "new_string": "b"}

    def touch(agent_id: str) -> partial:
        body = payload("PreToolUse.Bash", session_id=agent_id, tool_name="Edit", tool_input=edit)
        return partial(hook_event, payload=body, actor=ACTOR)

    touch(ALICE_CC)()
    activity.activity_clock.clear()
    hook_event(payload=payload("PostToolUse.Bash", session_id=bob_cc), actor=ACTOR)  # working
    activity.activity_clock.clear()
    return Case(
        touch(bob_cc),
        [("session.collision", keys("session", "other", "path", "task", "other_task"))],
        "bob and alice both changing src/cart.py",
    )


@contract("session.alias_added")
def _() -> Case:
    task = make_task()
    session_services.task_bind_session(task=task, session=DESKTOP, actor=ACTOR)
    call = partial(session_services.task_bind_session, task=task, session="bob", actor=ACTOR)
    return Case(call, [("session.alias_added", keys("alias", "session"))], "bob")


@contract("session.todo_updated")
def _() -> Case:
    bound_to_alice()
    hook("UserPromptSubmit.print")()  # already working: the todo call changes no status
    return Case(
        hook("PostToolUse.TaskCreate"),
        [("session.todo_updated", keys("session", "items", "in_progress"))],
        "alice",
    )


@contract("comment.added")
def _() -> Case:
    task = make_task()
    call = partial(services.owner_comment_add, key=task.key, body="Check Safari", actor=ACTOR)
    return Case(call, [("comment.added", COMMENT_ADDED)], "Check Safari")


@contract("comment.delivered")
def _() -> Case:
    task, alice = bound_to_alice()
    comment = owner_comment(task)
    call = partial(
        services.comments_deliver,
        comment_ids=[comment.id],
        session_id=alice.id,
        session_name=alice.name,
        via="hook",
        actor=ACTOR,
    )
    return Case(call, [("comment.delivered", keys("comment_id", "session", "via"))], "alice")


@contract("comment.read")
def _() -> Case:
    comment = owner_comment(make_task())
    call = partial(services.comment_ack, actor=ACTOR, comment_ids=[comment.id])
    return Case(
        call,
        [("comment.read", keys("comment_ids", "author_kind", "by", "reason"))],
        f"#{comment.id}",
    )


@contract("plan.set")
def _() -> Case:
    task = make_task()
    call = partial(plan_services.plan_set, key=task.key, steps=["Write the form"], actor=ACTOR)
    plan = keys("steps", "status", "previous_status", "titles_changed", "reason")
    return Case(call, [("plan.set", plan)], "plan set")


@contract("plan.step_updated")
def _() -> Case:
    task = with_plan(make_task())
    call = partial(
        plan_services.plan_step_update, key=task.key, step=1, status="in_progress", actor=ACTOR
    )
    step = keys("position", "title", "status", "previous", "conformance", "outcome")
    return Case(call, [("plan.step_updated", step)], "Write the form")


@contract("plan.accepted")
def _() -> Case:
    task = with_plan(make_task())
    call = partial(plan_services.plan_accept, key=task.key, actor=ACTOR)
    return Case(call, [("plan.accepted", keys("by"))], "plan accepted")


@contract("review.step_added")
def _() -> Case:
    task = make_task()
    call = partial(
        review_services.review_steps_set, key=task.key, steps=["Login with 2FA"], actor=ACTOR
    )
    return Case(call, [("review.step_added", REVIEW_STEP)], "Login with 2FA")


@contract("review.step_updated")
def _() -> Case:
    task = with_checklist(make_task(), "Login with 2FA")
    call = partial(
        review_services.review_step_update,
        key=task.key,
        step=1,
        title="Login with a code",
        actor=ACTOR,
    )
    return Case(call, [("review.step_updated", REVIEW_STEP | keys("previous"))], "with a code")


@contract("review.step_removed")
def _() -> Case:
    task = with_checklist(make_task(), "Login with 2FA", "Logout")
    call = partial(
        review_services.review_steps_set, key=task.key, steps=["Login with 2FA"], actor=ACTOR
    )
    return Case(call, [("review.step_removed", REVIEW_STEP)], "Logout")


@contract("review.step_accepted")
def _() -> Case:
    task = with_checklist(make_task(), "Login with 2FA")
    call = partial(
        review_services.review_step_decide, key=task.key, step=1, decision="accept", actor=ACTOR
    )
    return Case(
        call,
        [("comment.added", COMMENT_ADDED), ("review.step_accepted", DECIDED_STEP)],
        "Login with 2FA",
    )


@contract("review.step_rejected")
def _() -> Case:
    task = with_checklist(make_task(), "Login with 2FA")
    call = partial(
        review_services.review_step_decide,
        key=task.key,
        step=1,
        decision="reject",
        comment="Fails on Safari",
        actor=ACTOR,
    )
    return Case(
        call,
        [("comment.added", COMMENT_ADDED), ("review.step_rejected", DECIDED_STEP)],
        "Login with 2FA",
    )


@contract("attachment.added")
def _() -> Case:
    task = with_checklist(make_task(), "Login with 2FA")
    call = partial(
        review_services.attach_file,
        key=task.key,
        actor=ACTOR,
        content_base64=base64.b64encode(images.WEBP).decode(),
        step=1,
        caption="The code prompt",
    )
    added = keys("attachment_id", "step", "caption", "original_name")
    return Case(call, [("attachment.added", added)], "screenshot #")


@contract("attachment.updated")
def _() -> Case:
    number = screenshot(make_task())
    call = partial(
        review_services.attachment_caption, attachment=number, caption="New", actor=ACTOR
    )
    return Case(call, [("attachment.updated", keys("attachment_id", "caption"))], f"#{number}")


@contract("attachment.removed")
def _() -> Case:
    number = screenshot(make_task())
    call = partial(review_services.attachment_remove, attachment=number, actor=ACTOR)
    return Case(call, [("attachment.removed", keys("attachment_id"))], f"#{number}")


PROPOSAL = keys("proposal", "scope")


def proposed(scope: str, patch: dict[str, Any]) -> int:
    call = policy_services.policy_propose
    return call(scope=scope, patch=patch, reason="prod is close", actor=ACTOR).obj.id


@contract("policy.proposed")
def _() -> Case:
    make_project("acme-shop")
    call = partial(
        policy_services.policy_propose,
        scope="acme-shop",
        patch={"guard": {"mode": "block"}},
        reason="prod is close",
        actor=ACTOR,
    )
    return Case(call, [("policy.proposed", PROPOSAL | keys("reason", "widens"))], "prod is close")


@contract("policy.proposal_accepted")
def _() -> Case:
    make_project("acme-shop")
    number = proposed("acme-shop", {"guard": {"mode": "block"}})
    call = partial(policy_services.policy_proposal_accept, proposal=number, actor=ACTOR)
    accepted = PROPOSAL | keys("widens")
    return Case(
        call,
        [("policy.updated", accepted), ("policy.proposal_accepted", accepted)],
        f"#{number} for acme-shop accepted",
    )


@contract("policy.proposal_rejected")
def _() -> Case:
    make_project("acme-shop")
    number = proposed("acme-shop", {"guard": {"mode": "block"}})
    call = partial(policy_services.policy_proposal_reject, proposal=number, actor=ACTOR)
    return Case(call, [("policy.proposal_rejected", PROPOSAL)], f"#{number} for acme-shop rejected")


class Crash(BaseException):
    """The server stopping between the accept's commit and its policy.json write."""


def _crash(body: Any) -> None:
    raise Crash


@contract("policy.proposal_reopened")
def _() -> Case:
    number = proposed("global", {"guard": {"mode": "block"}})
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(global_file, "write", _crash)
        with pytest.raises(Crash):
            policy_services.policy_proposal_accept(proposal=number, actor=ACTOR)
    call = partial(policy_services.policy_reopen_unwritten, actor=ACTOR)  # what a start does
    return Case(
        call,
        [("policy.proposal_reopened", PROPOSAL | keys("error"))],
        f"#{number} for global is pending again",
    )


@contract("policy.updated")
def _() -> Case:
    make_project("acme-shop")
    call = partial(
        policy_services.policy_layer_save,
        scope="acme-shop",
        text='{"guard": {"mode": "block"}}',
        actor=ACTOR,
    )
    return Case(
        call, [("policy.updated", keys("scope", "via", "widens"))], "policy of acme-shop changed"
    )


@pytest.mark.usefixtures("_own_policy_file")
def test_the_preset_picker_and_a_removed_layer_emit_policy_updated_like_the_editor():
    make_project("acme-shop")
    saved = keys("scope", "via", "widens")
    call = partial(policy_services.policy_preset_set, preset="strict", actor=ACTOR)
    assert emitted(call) == [("policy.updated", saved)]
    policy_services.policy_layer_save(
        scope="acme-shop", text='{"guard": {"mode": "block"}}', actor=ACTOR
    )
    call = partial(
        policy_services.policy_layer_save, scope="acme-shop", text="", actor=ACTOR, confirmed=True
    )
    assert emitted(call) == [("policy.updated", saved)]


def test_a_refused_policy_proposal_emits_nothing():
    make_project("acme-shop")
    call = partial(proposed, "acme-shop", {"guard": {"mode": "loud"}})

    def refused() -> None:
        with pytest.raises(Exception, match=r"guard\.mode"):
            call()

    assert emitted(refused) == []


STAND = keys("environment", "kind", "level", "fields")
ACCESS = keys("environment", "entry", "access_kind", "fields")
ENV_PROPOSAL = keys("proposal", "environment")


def stand(name: str = "staging", kind: str = "test") -> None:
    make_project("acme-shop")
    make_environment("acme-shop", name, kind, base_url=f"https://{name}.acme-shop.example")


def ssh_entry() -> int:
    """An ssh entry of staging: references only (the alias, where the key lives)."""
    stand()
    return environment_services.access_add(
        project="acme-shop",
        environment="staging",
        kind="ssh",
        fields={"alias": "staging", "key_path_ref": "~/.ssh/acme_staging"},
        actor=ACTOR,
    ).obj.id


def env_proposed(change: dict[str, Any]) -> int:
    call = environment_services.environment_propose
    return call(project="acme-shop", change=change, reason="db needs care", actor=ACTOR).obj.id


@contract("environment.created")
def _() -> Case:
    make_project("acme-shop")
    call = partial(
        environment_services.environment_save,
        project="acme-shop",
        change=Change(environment="staging", kind="test"),
        actor=ACTOR,
    )
    return Case(call, [("environment.created", STAND)], "environment staging (test) added")


@contract("environment.updated")
def _() -> Case:
    stand()
    call = partial(
        environment_services.environment_save,
        project="acme-shop",
        change=Change(environment="staging", base_url="https://qa.acme-shop.example"),
        actor=ACTOR,
    )
    return Case(call, [("environment.updated", STAND)], "staging changed: base_url")


@contract("environment.deleted")
def _() -> Case:
    stand()
    call = partial(
        environment_services.environment_delete,
        project="acme-shop",
        environment="staging",
        actor=ACTOR,
    )
    return Case(call, [("environment.deleted", STAND)], "environment staging deleted")


@contract("environment.access_added")
def _() -> Case:
    stand()
    call = partial(
        environment_services.access_add,
        project="acme-shop",
        environment="staging",
        kind="db",
        fields={"host": "db.internal", "password_ref": "$ACME_DB_PASSWORD"},
        actor=ACTOR,
    )
    return Case(call, [("environment.access_added", ACCESS)], "added to staging")


@contract("environment.access_updated")
def _() -> Case:
    entry = ssh_entry()
    call = partial(
        environment_services.access_update,
        entry=entry,
        fields={"alias": "staging-2", "key_path_ref": "~/.ssh/acme_staging"},
        actor=ACTOR,
    )
    return Case(
        call, [("environment.access_updated", ACCESS)], f"ssh access #{entry} of staging changed"
    )


@contract("environment.access_removed")
def _() -> Case:
    entry = ssh_entry()
    call = partial(environment_services.access_remove, entry=entry, actor=ACTOR)
    return Case(
        call, [("environment.access_removed", ACCESS)], f"ssh access #{entry} removed from staging"
    )


@contract("environment.proposed")
def _() -> Case:
    stand()
    call = partial(
        environment_services.environment_propose,
        project="acme-shop",
        change={"environment": "staging", "overrides": {"db": "ask"}},
        reason="db needs care",
        actor=ACTOR,
    )
    return Case(
        call,
        [("environment.proposed", ENV_PROPOSAL | keys("reason"))],
        "for staging: db needs care",
    )


@contract("environment.proposal_accepted")
def _() -> Case:
    stand()
    number = env_proposed({"environment": "staging", "overrides": {"db": "ask"}})
    call = partial(environment_services.environment_proposal_accept, proposal=number, actor=ACTOR)
    # The change's own event first, then the decision, in the one transaction.
    return Case(
        call,
        [("environment.updated", STAND), ("environment.proposal_accepted", ENV_PROPOSAL)],
        f"#{number} for staging accepted",
    )


@contract("environment.proposal_rejected")
def _() -> Case:
    stand()
    number = env_proposed({"environment": "staging", "overrides": {"db": "ask"}})
    call = partial(environment_services.environment_proposal_reject, proposal=number, actor=ACTOR)
    return Case(
        call, [("environment.proposal_rejected", ENV_PROPOSAL)], f"#{number} for staging rejected"
    )


LIVE_ACTION = keys("environment", "tool", "command", "decision", "level", "rule", "agent", "sent")


@contract("live.action")
def _() -> Case:
    stand("live", "live")
    call = partial(
        environment_services.live_action_record,
        project=Project.objects.get(slug="acme-shop"),
        environment="live",
        task=None,
        tool="Bash",
        command="ssh prod-alias sudo systemctl restart app",
        decision="deny",
        level="read",
        rule="ssh-remote-change",
        actor=ACTOR,
    )
    return Case(
        call,
        [("live.action", LIVE_ACTION)],
        "deny on live: Bash ssh prod-alias sudo systemctl restart app (read, ssh-remote-change)",
    )


APPROVAL = keys("approval", "agent", "source", "tool", "summary", "session", "stand", "level")


def asked_approval() -> int:
    """A guard's ask on the demo's kind of stand, held for the owner (inside a transaction,
    as the hook's own)."""
    from django.db import transaction

    from sessions.approvals import services as approvals

    task, alice = bound_to_alice()
    asked = approvals.Asked(
        agent="claude-code",
        agent_session_id="cc-1",
        source="guard",
        tool="Bash",
        summary="./deploy.sh",
        stand="live",
        level="ask",
        reason="deploy on live asks the owner",
    )
    with transaction.atomic():
        request = approvals.approval_requested_step(
            asked, session=alice, task=task, seconds=540, actor=ACTOR
        )
    return request.pk


@contract("approval.requested")
def _() -> Case:
    from django.db import transaction

    from sessions.approvals import services as approvals

    task, alice = bound_to_alice()
    asked = approvals.Asked(
        agent="claude-code",
        agent_session_id="cc-1",
        source="guard",
        tool="Bash",
        summary="./deploy.sh",
        stand="live",
        level="ask",
    )

    def call() -> None:
        with transaction.atomic():
            approvals.approval_requested_step(
                asked, session=alice, task=task, seconds=540, actor=ACTOR
            )

    return Case(
        call,
        [("approval.requested", APPROVAL | {"waiting"})],
        "alice waits for your approval (the guard's ask): Bash ./deploy.sh (live, ask)",
    )


@contract("approval.decided")
def _() -> Case:
    from sessions.approvals import services as approvals

    approval = asked_approval()
    call = partial(
        approvals.approval_decide,
        approval_id=approval,
        approve=False,
        message="not on a Friday",
        actor=ACTOR,
    )
    return Case(
        call,
        [("approval.decided", APPROVAL | {"outcome", "waited", "message"})],
        "Bash ./deploy.sh (live, ask) — denied after 0 s: not on a Friday",
    )


# --- memory (§8) ---------------------------------------------------------------------

DOCUMENT = keys("name", "version", "section", "reason")


@contract("document.updated")
def _() -> Case:
    make_project("acme-shop")
    memory_services.doc_update(
        project="acme-shop",
        name="runbook",
        title="Runbook",
        text="# Runbook\n\n## Deploy\n\nmake deploy\n",
        base_version=0,
        actor=ACTOR,
    )
    call = partial(
        memory_services.doc_update,
        project="acme-shop",
        name="runbook",
        text="make release",
        base_version=1,
        section="deploy",
        reason="new target",
        actor=ACTOR,
    )
    return Case(
        call,
        [("document.updated", DOCUMENT)],
        "document runbook v2 (section deploy): new target",
    )


@contract("block.updated")
def _() -> Case:
    make_project("acme-shop")
    call = partial(
        memory_services.block_set,
        label="style",
        body="Short answers.",
        base_version=0,
        project="acme-shop",
        actor=ACTOR,
    )
    return Case(call, [("block.updated", keys("label", "version"))], "block style v1")


@pytest.mark.usefixtures("_own_policy_file")
def test_a_new_environment_with_access_emits_created_then_one_access_added_per_entry():
    make_project("acme-shop")
    change = Change(
        environment="live",
        kind="live",
        access=[
            {"kind": "ssh", "fields": {"alias": "prod-alias", "key_path_ref": "~/.ssh/acme_live"}},
            {"kind": "logs", "fields": {"url": "https://logs.acme-shop.example"}},
        ],
    )
    call = partial(
        environment_services.environment_save, project="acme-shop", change=change, actor=ACTOR
    )
    assert emitted(call) == [
        ("environment.created", STAND),
        ("environment.access_added", ACCESS),
        ("environment.access_added", ACCESS),
    ]


@pytest.mark.usefixtures("_own_policy_file")
def test_refused_stand_writes_emit_nothing():
    stand("live", "live")

    def refused() -> None:
        with pytest.raises(Exception, match=r"notes.*password-option"):
            env_proposed({"environment": "live", "notes": "psql --password=hunter2hunter2"})
        with pytest.raises(Exception, match="raises agents' access on live"):
            environment_services.environment_save(
                project="acme-shop", change=Change(environment="live", level="full"), actor=ACTOR
            )

    assert emitted(refused) == []


def test_every_kind_of_the_catalogue_has_a_contract_case():
    assert sorted(KINDS - set(CASES)) == [], "add a @contract case for these kinds"
    assert sorted(set(CASES) - KINDS) == [], "contract cases for kinds not in the catalogue"


RAW = re.compile(r"[{}\[\]]|\bNone\b|\bTrue\b|\bFalse\b|''|\"\"")


@pytest.fixture
def _quiet_hooks() -> Iterator[None]:
    """Hook cases start with no activity pending from another test (its clock is global)."""
    activity.activity_clock.clear()
    yield
    activity.activity_clock.clear()


@pytest.fixture
def _own_policy_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Policy cases write policy.json: into this test's folder, never the shared data folder."""
    monkeypatch.setattr(global_file, "policy_path", lambda: tmp_path / "policy.json")
    global_file.forget()
    yield
    global_file.forget()


@pytest.mark.usefixtures("_quiet_hooks", "_own_policy_file")
@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_kind_comes_from_its_service_with_its_keys_and_a_plain_line(kind: str):
    case = CASES[kind]()
    first = Event.objects.order_by("-id").values_list("id", flat=True).first() or 0
    assert emitted(case.call) == case.events
    event = Event.objects.filter(id__gt=first, kind=kind).get()
    # The same line in events_since, its markdown answer and the Activity feed (§2, §3).
    line = next(e for e in events_since(first, limit=500) if e.id == event.id)
    assert line.text == describe(kind, event.payload)
    assert f"{kind} " in event_line(line, timezone.now())
    assert line.text in event_line(line, timezone.now())
    rows = activity_page(parse_filters(None, kind)).rows
    assert [r.text for r in rows if r.id == event.id] == [line.text]
    assert line.text.strip(), f"{kind} has an empty line"
    assert case.names in line.text, f"{kind}: {line.text!r} does not name {case.names!r}"
    assert not RAW.search(line.text), f"{kind}: raw payload in {line.text!r}"
    assert json.dumps(event.payload) not in line.text
