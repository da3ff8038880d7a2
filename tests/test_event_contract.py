"""Each service emits exactly the event kinds and payload keys it should (docs/architecture.md §8).

The Activity feed, events_since and the SSE summary describe events from the payload alone,
so a payload that loses a key breaks them silently; these tests pin every shape.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from tasks import services
from tasks.events import KINDS, describe
from tasks.models import Event, Task
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
        ("task.updated", keys("fields")),
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
