"""core.rows: the hot reads written as SQL once give the same instances a queryset would."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.errors import NotFound
from core.rows import has_rows, insert, update
from plans.models import PlanStep
from plans.selectors import has_plan_steps
from reviews.selectors import has_review_steps
from sessions.models import Session
from sessions.services._steps import _desktop, _named
from tasks import selectors, services
from tasks.models import Event, Project, ProjectRules, Task
from tests.tasks.factories import ACTOR, make_project, make_task

pytestmark = pytest.mark.django_db


def fields_of(obj: object) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


@pytest.mark.parametrize("with_rules", [False, True])
def test_get_task_equals_the_queryset_it_replaces(with_rules):
    project = make_project("rows")
    if with_rules:
        body = json.dumps({"mode": "strict"})
        services.set_project_rules(project="rows", body=body, actor=ACTOR)
    task = make_task(project, "A task with every kind of column")
    services.task_update(key=task.key, actor=ACTOR, next_step="Then this", progress="half")
    expected = Task.objects.select_related("project", "project__rules").get(pk=task.pk)

    with CaptureQueriesContext(connection) as queries:
        got = selectors.get_task(f"  {task.key.upper()} ")
        project_fields = fields_of(got.project)
        rules = getattr(got.project, "rules", None) if with_rules else None
        if not with_rules:
            with pytest.raises(ProjectRules.DoesNotExist):
                got.project.rules  # noqa: B018 - the cached "no row" raises, as select_related
    assert len(queries) == 1  # project and rules rode along; nothing asked again

    assert fields_of(got) == fields_of(expected)
    assert got.next_step_at is not None
    assert got.next_step_at.tzinfo is not None
    assert project_fields == fields_of(Project.objects.get(pk=project.pk))
    if with_rules:
        assert rules is not None
        assert rules.body == expected.project.rules.body
        assert rules.project is got.project
    assert got._state.adding is False
    assert got._state.db == "default"


def test_get_task_unknown_key_says_what_to_do():
    with pytest.raises(NotFound, match="Call task_list"):
        selectors.get_task("nope-1")


def test_move_facts_read_rows_of_their_task_only():
    project = make_project("facts")
    one, two = make_task(project, "one"), make_task(project, "two")
    PlanStep.objects.create(
        task=one, position=1, title="Step", created_at=_now(), updated_at=_now()
    )
    assert has_plan_steps(one) is True
    assert has_plan_steps(two) is False
    assert has_review_steps(one) is False
    assert has_rows(PlanStep, "task", one.pk)
    assert not has_rows(PlanStep, "task", 10**9)


def test_session_lookups_build_full_sessions():
    named = Session.objects.create(name="builder", kind="named", created_at=_now())
    desktop = Session.objects.create(
        name="local_x", kind="desktop", desktop_id="local_x", created_at=_now()
    )
    assert fields_of(_named("builder")) == fields_of(named)
    assert fields_of(_desktop("local_x")) == fields_of(desktop)
    assert _named("nobody") is None
    assert _desktop("local_y") is None


def _now():
    from django.utils import timezone

    return timezone.now()


def test_insert_writes_the_row_a_save_would():
    project = make_project("ins")
    task = make_task(project, "Evented")
    event = insert(
        Event(
            kind="task.updated",
            project=project,
            task=task,
            actor="agent",
            payload={"fields": ["title"], "text": 'ünïcode "quoted"'},
            created_at=_now(),
        )
    )
    assert event.pk == Event.objects.order_by("-id").values_list("id", flat=True).first()
    assert fields_of(Event.objects.get(pk=event.pk)) == fields_of(event)
    assert event._state.adding is False


def test_update_changes_only_the_row_at_that_version():
    task = make_task(make_project("upd"), "Versioned")
    stamp = _now()
    where = {"id": task.pk, "version": task.version}
    changed = {"stage": "review", "version": task.version + 1, "updated_at": stamp}
    assert update(Task, changed, where) == 1
    assert update(Task, changed, where) == 0  # the version moved on: a stale writer loses
    row = Task.objects.get(pk=task.pk)
    assert (row.stage, row.version, row.updated_at) == ("review", task.version + 1, stamp)
