"""The reads behind project_snapshot, task_list, task_get, events_since and the board."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.config import load_config
from core.errors import InvalidField, NotFound
from tasks import extensions, selectors, services
from tasks.events import describe
from tasks.models import STAGES, Event
from tests.tasks.factories import (
    ACTOR,
    add_decision,
    add_report,
    make_project,
    make_task,
    use_config,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def line_suffix():
    """A batched line-suffix extension, as the sessions app registers one."""
    saved = list(extensions._line_suffixes)

    def suffixes(tasks):
        keys = dict(Event.objects.filter(task__in=tasks).values_list("task_id", "kind"))
        return {t.id: f"· {keys.get(t.id, '')}" for t in tasks}

    extensions.register_task_line_suffix(10, suffixes)
    yield
    extensions._line_suffixes[:] = saved


def fill(project, n: int) -> None:
    for i in range(n):
        task = make_task(project, title=f"t{i}", stage=STAGES[i % 6], progress="p")
        add_report(task)
    add_decision(project)


# --- snapshot ----------------------------------------------------------------------------


def test_the_snapshot_groups_open_tasks_by_stage_in_stage_order():
    acme = make_project("acme")
    a = make_task(acme, title="a", stage="dev", next_step="n")
    b = make_task(acme, title="b")
    services.task_set_stage(key=a.key, stage="test", actor=ACTOR)
    snap = selectors.snapshot_data("acme")
    assert [s for s, _ in snap.stages] == list(STAGES)
    by_stage = dict(snap.stages)
    assert [t.key for t in by_stage["plan"]] == [b.key]
    (line,) = by_stage["test"]
    assert (line.key, line.next_step, line.next_step_stale) == (a.key, "n", True)
    assert snap.counts == {"plan": 1, "dev": 0, "review": 0, "test": 1, "live": 0, "done": 0}


def test_the_snapshot_starts_from_the_rules_line_and_names_an_ignored_override():
    make_project("acme")
    services.set_project_rules(project="acme", body="[]", actor=ACTOR)
    snap = selectors.snapshot_data("acme")
    assert snap.rules_line.startswith(f"Rules {snap.rules.hash}: accepted plan before dev")
    assert "(read relaybay://rules/acme)" in snap.rules_line
    assert "project override ignored" in snap.rules_line


def test_the_snapshot_shows_only_recently_closed_done_tasks(settings, tmp_path):
    acme = make_project("acme")
    old = make_task(acme, stage="done", title="old")
    use_config(settings, tmp_path / "h")  # default window of 7 days: old is recent
    assert [t.key for t in dict(selectors.snapshot_data("acme").stages)["done"]] == [old.key]
    settings.RELAYBAY = load_config(
        environ={"RELAYBAY_HOME": str(tmp_path / "h"), "RELAYBAY_DONE_WINDOW_DAYS": "0"}
    )
    new = make_task(acme, stage="plan", title="new")
    services.task_set_stage(key=new.key, stage="done", actor=ACTOR)
    snap = selectors.snapshot_data("acme")
    # A window of 0 days keeps what closed from now on: both closed before this read.
    assert dict(snap.stages)["done"] == []
    assert (snap.counts["done"], snap.done_hidden, snap.done_window_days) == (2, 2, 0)


def test_recent_done_tasks_list_the_last_closed_first():
    acme = make_project("acme")
    a, b = make_task(acme, progress="p"), make_task(acme, progress="p")
    services.task_set_stage(key=b.key, stage="done", actor=ACTOR)
    services.task_set_stage(key=a.key, stage="done", actor=ACTOR)
    assert [t.key for t in dict(selectors.snapshot_data("acme").stages)["done"]] == [a.key, b.key]


def test_the_snapshot_lists_decisions_newest_first():
    acme = make_project("acme")
    add_decision(acme, "first")
    add_decision(acme, "second")
    assert [d.text for d, _ in selectors.snapshot_data("acme").decisions] == ["second", "first"]


def test_the_snapshot_carries_the_extension_suffixes(line_suffix):
    task = make_task(make_project("acme"))
    (line,) = dict(selectors.snapshot_data("acme").stages)["plan"]
    assert line.suffixes == ("· task.created",)
    assert line.id == task.pk


def test_the_snapshot_query_count_does_not_grow_with_the_number_of_tasks(line_suffix):
    small, large = make_project("small"), make_project("large")
    fill(small, 2)
    fill(large, 24)
    with CaptureQueriesContext(connection) as few:
        selectors.snapshot_data("small")
    with CaptureQueriesContext(connection) as many:
        snap = selectors.snapshot_data("large")
    assert sum(len(lines) for _, lines in snap.stages) == 24
    assert len(many.captured_queries) == len(few.captured_queries)
    # 6, one more: does the project have stands (§7), and three: the effort total (#31)
    assert len(few.captured_queries) <= 10


def test_the_snapshot_of_an_unknown_project_says_what_to_do():
    with pytest.raises(NotFound, match="Call project_list"):
        selectors.snapshot_data("nope")


# --- lists -------------------------------------------------------------------------------


def test_project_list_counts_tasks_per_stage_and_open_ones():
    acme = make_project("acme", name="Acme", repo_path="/src")
    make_project("beta")
    make_task(acme)
    make_task(acme, stage="done")
    summaries = {p.slug: p for p in selectors.project_list()}
    assert (summaries["acme"].name, summaries["acme"].repo_path) == ("Acme", "/src")
    assert summaries["acme"].counts["plan"] == 1
    assert summaries["acme"].counts["done"] == 1
    assert summaries["acme"].open_count == 1
    assert summaries["beta"].open_count == 0


def test_the_board_overview_and_navigation_still_work():
    acme = make_project("acme", name="Acme")
    make_task(acme, stage="dev")
    assert [(p.slug, p.name) for p in selectors.nav_projects()] == [("acme", "Acme")]
    (overview,) = selectors.projects_overview()
    assert dict(overview.counts)["dev"] == 1
    assert overview.total == 1


def test_task_list_leaves_done_tasks_out_unless_asked():
    acme = make_project("acme")
    open_task = make_task(acme)
    done = make_task(acme, stage="done")
    data = selectors.task_list_data("acme")
    assert [t.key for t in data.tasks] == [open_task.key]
    assert data.done_hidden == 1
    assert [t.key for t in selectors.task_list_data("acme", include_done=True).tasks] == [
        open_task.key,
        done.key,
    ]
    assert [t.key for t in selectors.task_list_data("acme", stage="done").tasks] == [done.key]


def test_task_list_filters_by_stage_and_text():
    acme = make_project("acme")
    login = make_task(acme, title="Login form", stage="dev")
    make_task(acme, title="Logout", stage="plan")
    make_task(acme, title="Search", stage="dev", description="no login here either")
    assert [t.key for t in selectors.task_list_data("acme", stage="dev", query="form").tasks] == [
        login.key
    ]
    assert len(selectors.task_list_data("acme", query="LOGIN").tasks) == 2


def test_task_list_refuses_an_unknown_stage():
    make_project("acme")
    with pytest.raises(InvalidField, match="Unknown stage 'qa'"):
        selectors.task_list_data("acme", stage="qa")


# --- one task ----------------------------------------------------------------------------


def test_task_detail_has_the_latest_reports_decisions_tracker_history_and_events():
    acme = make_project("acme")
    task = make_task(acme, tracker_ref="A-1")
    for n in range(7):
        add_report(task, body=f"report {n}")
    services.task_update(key=task.key, actor=ACTOR, tracker_ref="B-2")
    add_decision(acme, "scoped", task=task.key)
    add_decision(acme, "project wide")
    detail = selectors.task_detail(task.key)
    assert [r.summary for r in detail.reports] == [f"report {n}" for n in range(2, 7)]
    assert detail.report_count == 7
    assert [d.text for d in detail.decisions] == ["scoped"]
    assert [e.ref for e in detail.tracker_entries] == ["A-1", "B-2"]
    assert len(detail.events) == selectors.RECENT_EVENTS
    assert detail.events[-1].kind == "decision.added"
    assert detail.task.project.slug == "acme"


def test_task_detail_of_an_unknown_key_says_what_to_do():
    with pytest.raises(NotFound, match=r"Unknown task acme-1\. Call task_list"):
        selectors.task_detail("acme-1")


# --- events ------------------------------------------------------------------------------


def test_events_since_returns_newer_events_with_their_one_line_text():
    acme = make_project("acme")
    start = Event.objects.last().id
    task = make_task(acme, size="S")
    services.task_set_stage(key=task.key, stage="dev", actor="sess")
    lines = selectors.events_since(start)
    assert [(e.kind, e.text) for e in lines] == [
        ("task.created", "created in plan: A task"),
        ("task.stage_changed", "plan → dev"),
    ]
    line = lines[1]
    assert (line.project_slug, line.task_key, line.actor) == ("acme", task.key, "sess")
    assert line.text == describe(line.kind, line.payload)


def test_events_since_filters_by_project_and_limits():
    make_task(make_project("acme"))
    make_task(make_project("beta"))
    assert {e.project_slug for e in selectors.events_since(0, project="beta")} == {"beta"}
    assert len(selectors.events_since(0, limit=1)) == 1
    assert len(selectors.events_since(0, limit=0)) == 1  # at least one


def test_events_since_an_unknown_project_says_what_to_do():
    with pytest.raises(NotFound, match="Unknown project nope"):
        selectors.events_since(0, project="nope")


def test_the_describers_say_what_happened_in_one_line():
    assert describe("task.updated", {"fields": ["branch", "size"]}) == "changed branch, size"
    assert describe("task.updated", {"fields": [], "confirmed": ["next_step"]}) == (
        "confirmed next_step"
    )
    assert describe("task.stage_changed", {"from": "dev", "to": "test", "warnings": ["x"]}) == (
        "dev → test (1 rule warning(s))"
    )
    assert describe("task.tracker_unlogged", {"reason": "report added"}) == (
        "tracker mark cleared (report added)"
    )
    assert describe("report.added", {"summary": "changed · M · x"}) == "changed · M · x"
    assert describe("project.created", {"slug": "acme"}) == "project acme created"
