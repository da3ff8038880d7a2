"""core.rows and the hot reads written as SQL once: each gives the same instances the
queryset it replaced would (the MCP write path, and every hook's session, bound tasks and
owner comments)."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.db.models import Q
from django.test.utils import CaptureQueriesContext

from core.errors import NotFound
from core.rows import StaleRow, count_where, has_rows, insert, rows_where, update, update_if
from environments import services as env_services
from environments.models import Environment
from environments.selectors import stands_map
from plans.models import PlanStep
from plans.selectors import has_plan_steps, plan_steps
from plans.services import plan_set
from reviews.models import ReviewStep
from reviews.selectors import has_review_steps, review_steps
from reviews.services import review_steps_set
from sessions import services as session_services
from sessions.models import Session, TaskBinding
from sessions.selectors import binding_history, session_by_agent_id, tasks_bound_to
from sessions.services._steps import _desktop, _named
from tasks import selectors, services
from tasks.models import (
    COMMENT_OWNER,
    Comment,
    Decision,
    Event,
    Project,
    ProjectRules,
    Report,
    Task,
)
from tasks.selectors import comments as sel
from tasks.services.decisions import decision_add
from tasks.services.reports import report_add
from tests.environments.factories import make_environment
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


def test_a_task_inserted_is_the_row_a_save_would_write():
    """task_create's INSERT: every column as save(force_insert=True) writes it."""
    project = make_project("tins")
    stamp = _now()

    def task(number: int) -> Task:
        return Task(
            project=project,
            number=number,
            key=f"tins-{number}",
            title="Made",
            created_at=stamp,
            updated_at=stamp,
            stage_changed_at=stamp,
            version=1,
        )

    inserted, saved = insert(task(1)), task(2)
    saved.save(force_insert=True)
    ours, theirs = (fields_of(Task.objects.get(pk=t.pk)) for t in (inserted, saved))
    for name in ("id", "number", "key"):
        del ours[name], theirs[name]
    assert ours == theirs
    assert fields_of(Task.objects.get(pk=inserted.pk)) == fields_of(inserted)


def test_insert_keeps_a_key_of_the_objects_own():
    """A one-to-one primary key (a task's time tally) is written as the object holds it."""
    from effort.models import TaskEffort

    task = make_task(make_project("own"), "Timed")
    TaskEffort.objects.filter(task=task).delete()
    row = TaskEffort(task_id=task.pk, project_id=task.project_id, as_of=_now(), stage="dev")
    row.state = {"seen": ["alice"]}
    insert(row)
    assert row.pk == task.pk
    assert fields_of(TaskEffort.objects.get(pk=task.pk)) == fields_of(row)


def test_update_changes_only_the_row_at_that_version():
    task = make_task(make_project("upd"), "Versioned")
    stamp = _now()
    where = {"id": task.pk, "version": task.version}
    changed = {"stage": "review", "version": task.version + 1, "updated_at": stamp}
    assert update(Task, changed, where) == 1
    assert update(Task, changed, where) == 0  # the version moved on: a stale writer loses
    row = Task.objects.get(pk=task.pk)
    assert (row.stage, row.version, row.updated_at) == ("review", task.version + 1, stamp)


def test_update_if_raises_stale_row_when_another_writer_got_there_first():
    task = make_task(make_project("updif"), "Versioned")
    changed = {"stage": "review", "version": task.version + 1}
    update_if(Task, task.pk, changed, when={"version": task.version})
    with pytest.raises(StaleRow):
        update_if(Task, task.pk, {"stage": "test"}, when={"version": task.version})
    assert Task.objects.get(pk=task.pk).stage == "review"
    # None is IS NULL, as filter(field=None) is: closed_at is still empty, so it matches.
    update_if(Task, task.pk, {"stage": "test"}, when={"closed_at": None})
    assert Task.objects.filter(pk=task.pk, closed_at=None, stage="test").exists()


# --- the hook's reads (sessions.selectors, tasks.selectors.comments) -------------------------


def _bound_world() -> tuple[Session, list[Task]]:
    """alice bound to two tasks in two projects, one of them unbound again later; bob bound
    to another task; each with owner comments of every delivery state."""
    alice = session_services.session_touch(
        session="alice", hook_session="78a6a9df-545d-4090-8a48-00105ebe22e7", actor="alice"
    ).session
    session_services.session_touch(session="bob", actor="bob")
    first, second = make_project("rows-a"), make_project("rows-b")
    tasks = [make_task(first, "A"), make_task(second, "B"), make_task(first, "C")]
    for task in tasks[:2]:
        session_services.task_bind_session(task=task, session="alice", actor=ACTOR)
    gone = make_task(first, "Unbound again")
    session_services.task_bind_session(task=gone, session="alice", actor=ACTOR)
    session_services.task_unbind_session(task=gone, actor=ACTOR)
    session_services.task_bind_session(task=tasks[2], session="bob", actor=ACTOR)
    for task in tasks:
        comments = [services.owner_comment_add(key=task.key, body=f"{n}").obj for n in range(4)]
        services.comments_deliver(
            comment_ids=[comments[1].id], session_id=alice.id, session_name="a", via="x"
        )
        services.comments_deliver(
            comment_ids=[comments[2].id], session_id=alice.id + 99, session_name="z", via="x"
        )
        for _ in range(2):
            services.comments_deliver(
                comment_ids=[comments[3].id],
                session_id=alice.id,
                session_name="a",
                via="Stop",
                stop_block=True,
            )
        services.comment_add(key=task.key, body="On it.", actor="alice")
    services.comment_ack(actor="alice", comment_ids=[comments[0].id])
    return alice, tasks


def test_tasks_bound_to_equals_the_queryset_it_replaces():

    alice, _ = _bound_world()
    expected = list(
        Task.objects.select_related("project")
        .filter(session_bindings__session=alice, session_bindings__unbound_at__isnull=True)
        .order_by("id")
    )
    assert len(expected) == 2
    with CaptureQueriesContext(connection) as queries:
        got = tasks_bound_to(alice)
        projects = [fields_of(t.project) for t in got]
    assert len(queries) == 1  # the projects rode along
    assert [fields_of(t) for t in got] == [fields_of(t) for t in expected]
    assert projects == [fields_of(t.project) for t in expected]
    assert tasks_bound_to(Session.objects.get(name="bob")) != got


def test_session_by_agent_id_builds_the_full_session():

    alice, _ = _bound_world()
    got = session_by_agent_id(alice.agent_session_id)
    assert got is not None
    assert fields_of(got) == fields_of(Session.objects.get(pk=alice.pk))
    assert session_by_agent_id("f11e0ae8-da13-46f8-8af2-fe0033a8fe55") is None


def test_the_delivery_reads_equal_the_querysets_they_replace():

    alice, tasks = _bound_world()
    ids = [t.id for t in tasks]
    unread = (
        Comment.objects.filter(task_id__in=ids, author_kind=COMMENT_OWNER, read_at__isnull=True)
        .select_related("task")
        .order_by("id")
    )
    not_to_alice = Q(delivered_to_session_id__isnull=True) | ~Q(delivered_to_session_id=alice.id)
    pending = list(unread.filter(not_to_alice))
    stop = list(unread.filter(not_to_alice | Q(stop_blocks__lt=sel.STOP_BLOCKS_MAX)))
    assert 0 < len(pending) < len(stop) < unread.count()

    with CaptureQueriesContext(connection) as queries:
        got = sel.pending_delivery(ids, alice.id)
        keys = [c.task.key for c in got]
    assert len(queries) == 1  # each comment's task rode along
    assert [fields_of(c) for c in got] == [fields_of(c) for c in pending]
    assert keys == [c.task.key for c in pending]
    assert [fields_of(c) for c in sel.stop_candidates(ids, alice.id)] == [
        fields_of(c) for c in stop
    ]
    assert sel.unread_owner_count(ids) == unread.count()
    assert sel.unread_owner_count(ids[:1]) == unread.filter(task_id=ids[0]).count()
    assert sel.pending_delivery([], alice.id) == []
    assert sel.unread_owner_count([]) == 0


# --- task_get's sections (rows_where, count_where, binding_history) --------------------------


def test_task_gets_section_reads_equal_the_querysets_they_replace():
    _, tasks = _bound_world()
    task = tasks[0]
    session_services.task_unbind_session(task=task, actor=ACTOR)
    session_services.task_bind_session(task=task, session="bob", actor=ACTOR)
    for n in range(7):
        report_add(key=task.key, body=f"Report {n}\n\nbody", actor="alice")
    decision_add(project="", task=task.key, text="Use SQLite", actor="alice")
    plan_set(key=task.key, steps=["One", {"title": "Two", "details": "d"}], actor="alice")
    review_steps_set(key=task.key, steps=["Looks right", "Works"], actor="alice")
    other = tasks[1]
    report_add(key=other.key, body="Elsewhere", actor="alice")

    def same(got: list, expected) -> None:
        assert [fields_of(x) for x in got] == [fields_of(x) for x in expected]
        assert all(x._state.adding is False for x in got)

    same(
        rows_where(Report, "task", task.pk, "-id", 5),
        Report.objects.filter(task=task).order_by("-id")[:5],
    )
    assert len(rows_where(Report, "task", task.pk, "-id", 5)) == 5
    assert count_where(Report, "task", task.pk) == Report.objects.filter(task=task).count() == 7
    same(
        rows_where(Decision, "task", task.pk, "id"),
        Decision.objects.filter(task=task).order_by("id"),
    )
    same(
        rows_where(Event, "task", task.pk, "-id", 10),
        Event.objects.filter(task=task).order_by("-id")[:10],
    )
    assert all(isinstance(e.payload, dict) for e in rows_where(Event, "task", task.pk, "-id", 10))
    same(plan_steps(task), PlanStep.objects.filter(task=task).order_by("position"))
    same(review_steps(task), ReviewStep.objects.filter(task=task).order_by("position"))
    assert rows_where(Report, "task", 0, "id") == []

    expected = TaskBinding.objects.select_related("session").filter(task=task).order_by("-id")
    for limit in (None, 1):
        with CaptureQueriesContext(connection) as queries:
            got = binding_history(task, limit=limit)
            sessions = [fields_of(b.session) for b in got]
        assert len(queries) == 1  # the sessions rode along
        wanted = list(expected[:limit] if limit else expected)
        same(got, wanted)
        assert sessions == [fields_of(b.session) for b in wanted]
    assert len(binding_history(task)) == 2


def test_the_stands_map_reads_what_the_prefetching_queryset_read():
    project = make_project("rows-env")
    other = make_project("rows-other")
    assert stands_map(project).stands == ()
    for name, kind in (("live", "live"), ("staging", "test"), ("laptop", "local")):
        make_environment("rows-env", name, kind)
    make_environment("rows-other", "live", "live")
    for env, host in (("staging", "db-1"), ("live", "db-2"), ("staging", "db-3")):
        env_services.access_add(
            project="rows-env", environment=env, kind="db", fields={"host": host}, actor="owner"
        )
    expected = list(
        project.environments.prefetch_related("access_entries").order_by("position", "id")
    )
    assert len(expected) == 3

    got = stands_map(project).stands
    assert [fields_of(v.environment) for v in got] == [fields_of(e) for e in expected]
    assert [[fields_of(a) for a in v.entries] for v in got] == [
        [fields_of(a) for a in e.access_entries.all()] for e in expected
    ]
    assert [len(v.entries) for v in got] == [1, 2, 0]
    assert rows_where(Environment, "project", other.pk, ("-position", "id"))[0].name == "live"


def test_events_since_equals_the_queryset_it_replaces():
    """Lines of the log's every shape (a project's task, a project alone, neither), after an
    id, within one project, cut at a limit: one statement where the queryset took two."""
    from tasks.selectors.events import event_line, events_since, log_rows

    acme, other = make_project("rows-log"), make_project("rows-log-other")
    task = make_task(acme, "Logged task")
    make_task(other, "Elsewhere")
    services.task_update(key=task.key, actor=ACTOR, progress="half")
    services.project_upsert(slug="rows-log", name="Renamed", actor=ACTOR)
    session_services.task_bind_session(task=task, session="agent-rows", actor=ACTOR)
    middle = Event.objects.order_by("id").values_list("id", flat=True)[2]

    def expected(after: int, project: Project | None, limit: int) -> list:
        found = log_rows().filter(id__gt=after)
        if project is not None:
            found = found.filter(project=project)
        return [event_line(e) for e in found.order_by("id")[:limit]]

    cases = [(0, None, 100), (middle, None, 100), (0, acme, 100), (0, None, 2)]
    for after, project, limit in cases:
        with CaptureQueriesContext(connection) as queries:
            got = events_since(after, project.slug if project else None, limit)
        assert got == expected(after, project, limit)
        assert len(queries) == (2 if project else 1)  # the project's id, then the lines
    assert {line.project_slug for line in events_since(0, "rows-log")} == {"rows-log"}
    assert any(line.task_key is None for line in events_since(0))
    with pytest.raises(NotFound):
        events_since(0, "no-such-project")


@pytest.mark.parametrize("with_rules", [False, True])
def test_get_project_equals_the_queryset_it_replaces(with_rules):
    project = make_project("rows-project", name="Rows")
    if with_rules:
        body = json.dumps({"mode": "strict"})
        services.set_project_rules(project="rows-project", body=body, actor=ACTOR)
    expected = Project.objects.select_related("rules").get(pk=project.pk)
    with CaptureQueriesContext(connection) as queries:
        got = selectors.get_project("  Rows-Project ")
        rules = selectors.project_rules(got)  # the rules row rode along
    assert len(queries) == 1
    assert fields_of(got) == fields_of(expected)
    assert rules == selectors.project_rules(expected)
    if with_rules:
        assert fields_of(got.rules) == fields_of(expected.rules)
        assert got.rules.project is got
    else:
        with pytest.raises(ProjectRules.DoesNotExist):
            got.rules  # noqa: B018
    with pytest.raises(NotFound, match="Unknown project nope"):
        selectors.get_project("nope")


def test_a_report_since_the_last_move_is_found_as_the_queryset_found_it():
    from datetime import timedelta

    from tasks.services._taskwrite import report_since

    task = make_task(make_project("since"), "Reported")
    other = make_task(task.project, "Other")
    report = report_add(key=task.key, body="changed · M · one", actor=ACTOR).obj
    report_add(key=other.key, body="changed · M · not this task", actor=ACTOR)
    for moment in (
        report.created_at - timedelta(seconds=1),
        report.created_at,
        report.created_at + timedelta(microseconds=1),
        report.created_at + timedelta(days=1),
    ):
        found = Report.objects.filter(task_id=task.pk, created_at__gte=moment).exists()
        assert report_since(task.pk, moment) is found
        assert (
            report_since(other.pk, moment)
            is Report.objects.filter(task_id=other.pk, created_at__gte=moment).exists()
        )
