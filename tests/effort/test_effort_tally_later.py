"""A time step an on-loop write leaves for after its answer (effort/services/tally.py and
core/on_loop.py).

The write commits without its step; the loop takes it once the answer is out, in a
transaction of its own. A tally names the last event stepped in, so whichever comes first —
the left step, another write of the task, or a start after a stop — takes the missing steps
once and in order, and the tally ends as a replay of the task's events gives it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from core import on_loop
from effort.models import TaskEffort
from effort.services import tally
from effort.services.tally import TALLY_FIELDS, effort_backfill
from tasks import services as task_services
from tasks.models import Event, Task
from tests.support.on_loop import answer_sent, on_loop_write
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db(transaction=True)  # real commits: left work runs on commit


@pytest.fixture(autouse=True)
def nothing_left() -> Iterator[None]:
    yield
    tally._left_tasks.clear()


def kept(task: Task) -> dict[str, object]:
    row = TaskEffort.objects.get(task_id=task.id)
    return {name: getattr(row, name) for name in TALLY_FIELDS}


def replayed(task: Task) -> dict[str, object]:
    TaskEffort.objects.filter(task_id=task.id).delete()
    effort_backfill()
    return kept(task)


def newest_time_event(task: Task) -> int:
    return (
        Event.objects.filter(task_id=task.id, kind__in=tally.TIME_EVENTS)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )


def move(task: Task, stage: str) -> Callable[[], Any]:
    return lambda: task_services.task_set_stage(key=task.key, stage=stage, actor="tester")


def test_a_left_step_is_taken_after_the_answer() -> None:
    task = make_task(make_project("acme"), "Login")
    created = kept(task)

    on_loop_write(move(task, "dev"))

    assert kept(task) == created, "the move committed without its step"
    assert len(tally._left_tasks) == 1
    answer_sent()
    assert not on_loop.pending()
    after = kept(task)
    assert (after["stage"], after["event_id"]) == ("dev", newest_time_event(task))
    assert after == replayed(task)


def test_a_step_sees_the_events_it_is_behind() -> None:
    task = make_task(make_project("acme"), "Login")
    on_loop_write(move(task, "dev"))
    on_loop_write(move(task, "review"))
    tally._left_tasks.clear()  # as if the loop had not come to them yet

    # A write off the loop (a hook, the board) takes the two missing steps, then its own.
    task_services.task_update(key=task.key, waiting_on="owner", actor="tester")

    after = kept(task)
    assert (after["stage"], after["event_id"]) == ("review", newest_time_event(task))
    assert after["state"]["waiting_on_owner"] is True
    assert after == replayed(task)


def test_a_step_is_never_taken_twice() -> None:
    task = make_task(make_project("acme"), "Login")
    on_loop_write(move(task, "dev"))
    task_services.task_set_stage(key=task.key, stage="review", actor="tester")  # takes both
    stepped = kept(task)

    answer_sent()  # the left step finds its task's tally already past it

    assert kept(task) == stepped == replayed(task)


def test_a_start_takes_the_steps_a_stop_left() -> None:
    project = make_project("acme")
    behind, untallied, current = (make_task(project, t) for t in ("Login", "Logout", "Docs"))
    on_loop_write(move(behind, "dev"))
    TaskEffort.objects.filter(task_id=untallied.id).delete()
    tally._left_tasks.clear()  # the server stopped before its loop took the step
    untouched = kept(current)

    assert tally.take_steps_behind() == 2
    assert tally.take_steps_behind() == 0

    assert kept(behind)["stage"] == "dev"
    assert kept(behind) == replayed(behind)
    assert kept(untallied) == replayed(untallied)
    assert kept(current) == untouched


def test_a_refused_write_leaves_nothing() -> None:
    task = make_task(make_project("acme"), "Login")

    with pytest.raises(Exception, match="version"):
        on_loop_write(
            lambda: task_services.task_set_stage(
                key=task.key, stage="dev", expected_version=task.version + 5, actor="tester"
            )
        )

    assert not on_loop.pending()
    assert len(tally._left_tasks) == 0


def test_a_read_before_the_answer_is_out_does_what_writes_left_first() -> None:
    """A request that may read (any but an on-loop write: core/mcp.py, relaybay_site/asgi.py)
    settles what on-loop writes left, even before their answers went out."""
    first, second = (make_task(make_project(p), "Login") for p in ("acme", "shop"))

    def stages() -> tuple[object, object]:
        return kept(first)["stage"], kept(second)["stage"]

    async def main() -> tuple[tuple[object, object], tuple[object, object]]:
        on_loop.run_on_loop(move(first, "dev"))
        on_loop.run_on_loop(move(second, "dev"))
        waiting = on_loop.run_on_loop(stages)
        on_loop.settle()  # a read arrives first
        return waiting, on_loop.run_on_loop(stages)

    waiting, settled = asyncio.run(main())

    assert waiting == ("plan", "plan")
    assert settled == ("dev", "dev")
    assert not on_loop.pending()
    assert kept(first) == replayed(first)
