"""Every effort read is a read: the Effort page and its CSV, the task's Effort section and
task_get's line, and project_snapshot's total write nothing, not even for a task that has no
time tally — the one-time step (migration effort 0002, effort_backfill) gives such a task,
one from before tallies were kept, its tally, and only then is its time counted."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core import tokens
from core.security import COOKIE_NAME, current_token
from effort import figures, panel
from effort.extensions import effort_section, project_effort_lines
from effort.models import TaskEffort
from effort.paths import Roots
from effort.services.tally import effort_backfill
from effort.total import project_total
from tasks import services as task_services
from tests.effort.effort_support import assistant, bind, claude_session, counted, say
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db

WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def writes(queries: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"] for q in queries.captured_queries if q["sql"].lstrip().upper().startswith(WRITES)
    ]


def test_no_effort_read_writes_even_for_a_task_without_a_tally(client, roots: Roots) -> None:
    project = make_project("acme")
    worked_on, old = make_task(project, "Worked"), make_task(project, "Old")
    alice = claude_session("alice", roots)
    bind(worked_on, alice)
    say(alice, assistant("a", alice.bindings.get().bound_at + timedelta(seconds=1)))
    counted(alice, roots)
    TaskEffort.objects.filter(task=old).delete()  # as a task from before tallies were kept
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())

    with CaptureQueriesContext(connection) as queries:
        for url in ("/p/acme/effort", "/p/acme/effort/region", "/p/acme/effort.csv?range=all"):
            assert client.get(url).status_code == 200
        for task in (worked_on, old):
            panel.panel_context(task)
            effort_section(task)
        project_effort_lines(project)
        project_total(project)

    assert writes(queries) == []
    assert not TaskEffort.objects.filter(task=old).exists()


def test_a_task_from_before_tallies_is_counted_after_the_one_time_step(roots: Roots) -> None:
    project = make_project("acme")
    task = make_task(project, "Old")
    alice = claude_session("alice", roots)  # working
    bind(task, alice)
    task_services.task_set_stage(key=task.key, stage="dev", actor="tester")
    kept = TaskEffort.objects.get(task=task)
    now = kept.as_of + timedelta(minutes=5)
    TaskEffort.objects.all().delete()  # as a task from before tallies were kept
    assert figures.effort(task, now=now).times.agent_seconds == 0  # no time, and no write

    assert effort_backfill() == 1
    assert effort_backfill() == 0  # once: nothing is left to replay

    replayed = figures.effort(task, now=now).times
    assert replayed.agent_seconds == pytest.approx(300, abs=1)
    assert (replayed.sessions, replayed.turns) == (1, 1)
    assert project_total(project, now=now).agent_seconds == pytest.approx(300, abs=1)
