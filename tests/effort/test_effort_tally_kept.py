"""The time tally kept event by event is written as SQL written once (a new task's row
inserted from its creation event, each later event one UPDATE): every column it keeps is the
one a replay of the task's events gives, and the kept row is written in the write's own
transaction, so a refused write leaves it as it was."""

from __future__ import annotations

import pytest

from core.errors import DomainError
from effort.models import TaskEffort
from effort.paths import Roots
from effort.services.tally import TALLY_FIELDS, effort_backfill
from sessions import services as session_services
from tasks import services as task_services
from tests.effort.effort_support import bind, claude_session
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db


def _row(task_id: int) -> dict[str, object]:
    row = TaskEffort.objects.get(task_id=task_id)
    return {name: getattr(row, name) for name in ("project_id", *TALLY_FIELDS)}


def test_a_new_tasks_tally_is_its_creation_event_replayed() -> None:
    task = make_task(make_project("acme"), "Login", stage="dev", waiting_on="owner")

    kept = _row(task.id)
    TaskEffort.objects.all().delete()
    effort_backfill()

    assert kept == _row(task.id)
    assert (kept["stage"], kept["state"]["waiting_on_owner"]) == ("dev", True)


def test_every_kept_column_is_what_a_replay_of_the_events_gives(roots: Roots) -> None:
    task = make_task(make_project("acme"), "Login")
    alice = claude_session("alice", roots)
    bind(task, alice)
    task_services.task_set_stage(key=task.key, stage="dev", actor="tester")
    task_services.task_update(key=task.key, waiting_on="owner", actor="tester")
    task_services.task_set_stage(key=task.key, stage="review", actor="tester")
    session_services.task_unbind_session(task=task.key, actor="tester", reason="done here")

    kept = _row(task.id)
    TaskEffort.objects.all().delete()
    effort_backfill()
    replayed = _row(task.id)

    assert kept.keys() == replayed.keys()
    for name, value in kept.items():
        if isinstance(value, float):
            assert value == pytest.approx(replayed[name]), name
        elif name == "stage_seconds":
            assert value.keys() == replayed[name].keys()
            assert list(value.values()) == pytest.approx(list(replayed[name].values()))
        else:
            assert value == replayed[name], name
    assert kept["sessions"] == 1
    assert kept["stage"] == "review"


def test_a_refused_write_leaves_the_tally_as_it_was() -> None:
    task = make_task(make_project("acme"), "Login")
    before = _row(task.id)

    with pytest.raises(DomainError):
        task_services.task_set_stage(
            key=task.key, stage="dev", expected_version=task.version + 5, actor="tester"
        )

    assert _row(task.id) == before
