"""The external tracker mark (§1): history entries, stamps and the automatic unlog."""

from __future__ import annotations

import pytest

from tasks import services
from tasks.models import Event, Task, TrackerEntry
from tests.tasks.factories import ACTOR, add_report, make_task, reload

pytestmark = pytest.mark.django_db


def logged_task(stage: str = "dev", **fields) -> Task:
    fields.setdefault("size", "S")
    fields.setdefault("progress", "p")
    return make_task(stage=stage, tracker_ref="JIRA-1", tracker_logged=True, **fields)


def unlog_events(task: Task) -> list[dict]:
    return [e.payload for e in Event.objects.filter(task=task, kind="task.tracker_unlogged")]


def entries(task: Task) -> list[TrackerEntry]:
    return list(TrackerEntry.objects.filter(task=task).order_by("id"))


# --- history -----------------------------------------------------------------------------


def test_a_tracker_ref_appends_a_history_entry_with_name_and_url():
    task = make_task()
    services.task_update(
        key=task.key,
        actor=ACTOR,
        tracker_ref="JIRA-1",
        tracker_name="Jira",
        tracker_url="https://jira/JIRA-1",
    )
    (entry,) = entries(task)
    assert (entry.ref, entry.name, entry.url) == ("JIRA-1", "Jira", "https://jira/JIRA-1")
    assert entry.logged_at is None
    assert entry.unlogged_at is None


def test_a_different_tracker_ref_appends_another_entry_and_every_key_stays():
    task = make_task(tracker_ref="A-1")
    services.task_update(key=task.key, actor=ACTOR, tracker_ref="B-2")
    services.task_update(key=task.key, actor=ACTOR, tracker_ref="A-1")
    assert [e.ref for e in entries(task)] == ["A-1", "B-2", "A-1"]


def test_the_same_tracker_ref_again_appends_nothing():
    task = make_task(tracker_ref="A-1")
    services.task_update(key=task.key, actor=ACTOR, tracker_ref="A-1")
    assert len(entries(task)) == 1


def test_a_new_tracker_ref_starts_not_logged():
    task = logged_task()
    out = services.task_update(key=task.key, actor=ACTOR, tracker_ref="JIRA-2")
    assert reload(task).tracker_logged is False
    assert out.changed == ("tracker_ref", "tracker_logged")
    assert entries(task)[-1].logged_at is None
    assert unlog_events(task) == []  # an edit, not new work


def test_a_new_tracker_ref_with_tracker_logged_in_the_same_write_is_logged():
    task = make_task()
    services.task_update(key=task.key, actor=ACTOR, tracker_ref="JIRA-2", tracker_logged=True)
    assert reload(task).tracker_logged is True
    entry = entries(task)[-1]
    assert entry.logged_at is not None


def test_logging_stamps_the_current_entry():
    task = make_task(tracker_ref="A-1")
    services.task_update(key=task.key, actor=ACTOR, tracker_logged=True)
    entry = entries(task)[-1]
    assert entry.logged_at == reload(task).updated_at
    assert entry.unlogged_at is None


def test_unlogging_by_hand_stamps_the_current_entry():
    task = logged_task()
    services.task_update(key=task.key, actor=ACTOR, tracker_logged=False)
    assert entries(task)[-1].unlogged_at == reload(task).updated_at
    assert unlog_events(task) == []
    assert Event.objects.last().payload == {"fields": ["tracker_logged"]}


def test_a_tracker_name_or_url_change_updates_the_current_entry_and_keeps_the_mark():
    task = logged_task()
    services.task_update(key=task.key, actor=ACTOR, tracker_name="Jira", tracker_url="http://j/1")
    entry = entries(task)[-1]
    assert (entry.name, entry.url) == ("Jira", "http://j/1")
    assert reload(task).tracker_logged is True


@pytest.mark.parametrize(
    "fields",
    [
        {"title": "New"},
        {"description": "d"},
        {"branch": "b"},
        {"priority": "P1"},
        {"waiting_on": "owner"},
        {"next_step": "n"},
        {"stage_note": "s"},
        {"size": "L"},
        {"tracker_name": "Jira"},
        {"tracker_ref": "-"},
    ],
)
def test_metadata_edits_keep_the_mark(fields):
    task = logged_task()
    services.task_patch(key=task.key, fields=fields, actor=ACTOR)
    assert reload(task).tracker_logged is True
    assert unlog_events(task) == []


# --- automatic unlog ---------------------------------------------------------------------


def test_a_report_on_a_logged_task_clears_the_mark_in_the_same_transaction():
    task = logged_task()
    out = services.report_add(key=task.key, body="verified · S · done", actor=ACTOR)
    assert reload(task).tracker_logged is False
    assert unlog_events(task) == [{"reason": "report added"}]
    assert entries(task)[-1].unlogged_at == out.obj.created_at
    assert out.notes == (
        f"Tracker mark cleared on {task.key} (report added): log the work in JIRA-1 and set "
        "tracker_logged again.",
    )
    assert "tracker_logged" in out.changed
    kinds = list(Event.objects.filter(task=task).values_list("kind", flat=True))
    assert kinds[-2:] == ["report.added", "task.tracker_unlogged"]


def test_a_changed_progress_clears_the_mark():
    task = logged_task()
    out = services.task_update(key=task.key, actor=ACTOR, progress="more done")
    assert reload(task).tracker_logged is False
    assert unlog_events(task) == [{"reason": "progress changed"}]
    assert out.changed == ("progress", "tracker_logged")
    assert Event.objects.filter(task=task).last().kind == "task.tracker_unlogged"
    # The automatic unlog has its own event; task.updated lists what the caller changed.
    assert Event.objects.filter(task=task, kind="task.updated").last().payload == {
        "fields": ["progress"]
    }


def test_an_unchanged_progress_keeps_the_mark():
    task = logged_task(progress="same")
    services.task_update(key=task.key, actor=ACTOR, progress="same")
    assert reload(task).tracker_logged is True


def test_progress_given_to_report_add_unlogs_once_with_the_report_reason():
    task = logged_task()
    services.report_add(key=task.key, body="x", actor=ACTOR, progress="more")
    assert unlog_events(task) == [{"reason": "report added"}]


@pytest.mark.parametrize(
    ("start", "target"),
    [("live", "test"), ("live", "plan"), ("done", "live"), ("done", "dev"), ("done", "plan")],
)
def test_a_move_back_out_of_live_or_done_clears_the_mark(start, target):
    task = logged_task(stage=start)
    out = services.task_set_stage(key=task.key, stage=target, actor=ACTOR)
    assert reload(task).tracker_logged is False
    assert unlog_events(task) == [{"reason": f"moved back from {start} to {target}"}]
    assert entries(task)[-1].unlogged_at is not None
    assert "tracker_logged" in out.changed


@pytest.mark.parametrize(
    ("start", "target"), [("live", "done"), ("test", "dev"), ("review", "plan"), ("dev", "live")]
)
def test_other_moves_keep_the_mark(start, target):
    task = logged_task(stage=start)
    services.task_set_stage(key=task.key, stage=target, actor=ACTOR)
    assert reload(task).tracker_logged is True
    assert unlog_events(task) == []


def test_an_explicit_tracker_logged_in_the_same_write_wins_over_a_progress_change():
    task = logged_task()
    services.task_update(key=task.key, actor=ACTOR, progress="more", tracker_logged=True)
    assert reload(task).tracker_logged is True
    assert unlog_events(task) == []


def test_an_explicit_tracker_logged_in_the_same_write_wins_over_a_move_back():
    task = logged_task(stage="done")
    services.task_update(key=task.key, actor=ACTOR, stage="dev", tracker_logged="yes")
    assert reload(task).tracker_logged is True
    assert unlog_events(task) == []


def test_logging_in_the_same_write_as_new_progress_marks_an_unlogged_task():
    task = make_task(tracker_ref="A-1")
    services.task_update(key=task.key, actor=ACTOR, progress="all", tracker_logged=True)
    assert reload(task).tracker_logged is True
    assert entries(task)[-1].logged_at is not None


def test_new_work_on_an_unlogged_task_writes_no_unlog_event():
    task = make_task(tracker_ref="A-1")
    add_report(task)
    services.task_update(key=task.key, actor=ACTOR, progress="x")
    assert unlog_events(task) == []


def test_a_report_unlogs_after_logging_again_each_time():
    task = logged_task()
    add_report(task)
    services.task_update(key=task.key, actor=ACTOR, tracker_logged=True)
    add_report(task)
    assert len(unlog_events(task)) == 2
    entry = entries(task)[-1]
    assert entry.logged_at < entry.unlogged_at
