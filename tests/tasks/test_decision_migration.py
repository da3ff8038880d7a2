"""Migration 0004_decision_memory: decisions from before it get their scope and time axes
(§8: recorded_at and valid_from are their creation time)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.tasks.factories import make_project, make_task

# Historical models have no services: the old decision rows are made directly.
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("migrations_restored"),
]

BEFORE = [("tasks", "0003_comment_step")]
AFTER = [("tasks", "0004_decision_memory")]


def test_old_decisions_get_scope_recorded_at_and_valid_from() -> None:
    project = make_project("acme")
    task = make_task(project)
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps.get_model("tasks", "Decision")
    then = timezone.now() - timedelta(days=30)
    on_project = old.objects.create(project_id=project.id, text="Use SQLite", created_at=then)
    on_task = old.objects.create(
        project_id=project.id, task_id=task.id, text="Cache carts", created_at=then
    )

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps.get_model("tasks", "Decision")
    a, b = new.objects.get(pk=on_project.pk), new.objects.get(pk=on_task.pk)
    assert (a.scope, b.scope) == ("project", "task")
    assert a.recorded_at == a.valid_from == then
    assert a.superseded_at is None
