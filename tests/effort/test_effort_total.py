"""project_snapshot's effort total (issue 31) summed in SQL (issue 33): the same figures as
adding up every task's effort, the time of a session working now grown to `now`, a task
older than its time row replayed once, and the same queries for 3 tasks or 30."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from effort import figures
from effort.models import TaskEffort
from effort.paths import Roots
from effort.services.tally import effort_backfill
from effort.total import project_total
from tests.effort.effort_support import assistant, bind, claude_session, counted, say
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db


def test_the_total_is_the_sum_of_every_tasks_effort(roots: Roots) -> None:
    project = make_project("acme")
    idle, busy, other = (make_task(project, t) for t in ("Idle", "Busy", "Other"))
    alice, bob = claude_session("alice", roots), claude_session("bob", roots)  # working
    bind(busy, alice)
    bind(other, bob)
    t = alice.bindings.get().bound_at + timedelta(seconds=1)
    say(alice, assistant("a", t, input_=1000, output=200))
    say(bob, assistant("b", t, model="mystery-9", input_=50, output=5))
    counted(alice, roots)
    counted(bob, roots)
    TaskEffort.objects.filter(task=idle).delete()  # as a task older than issue 31
    effort_backfill()  # the one-time step (migration effort 0002)
    now = timezone.now() + timedelta(minutes=10)  # two sessions working all along

    total = project_total(project, now=now)

    each = figures.efforts([idle, busy, other], now=now).values()
    assert total.tasks == 3
    assert total.agent_seconds == pytest.approx(sum(e.times.agent_seconds for e in each))
    assert total.agent_seconds > 2 * 600  # both sessions' ten minutes, grown to now
    assert total.tokens == sum((e.tokens for e in each), figures.Tokens())
    assert total.cost.usd == pytest.approx(sum(e.cost.usd for e in each))
    assert total.cost.unpriced == ("mystery-9",)
    assert TaskEffort.objects.filter(task=idle).exists()  # replayed once


@pytest.mark.parametrize("tasks", [3, 30])
def test_the_total_costs_the_same_queries_however_many_tasks(tasks: int) -> None:
    project = make_project("acme")
    for i in range(tasks):
        make_task(project, f"Task {i}")
    project_total(project)
    with CaptureQueriesContext(connection) as queries:
        project_total(project)
    assert len(queries) == 2
