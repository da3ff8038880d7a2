"""Migration 0002_hooks: links made before it keep their meaning (cc_link backfill)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

# Historical models have no services: the rows of the old schema are made directly.
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("migrations_restored"),
]

BEFORE = [("agent_sessions", "0001_initial")]
AFTER = [("agent_sessions", "0002_hooks")]


def test_earlier_exact_links_count_as_the_agents_and_the_others_as_guesses():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps.get_model("agent_sessions", "Session")
    now = timezone.now()
    rows = {
        "agent": old.objects.create(
            name="alice", kind="named", cc_session_id="a-1", cc_exact=True, created_at=now
        ),
        "guess": old.objects.create(
            name="local_x",
            kind="desktop",
            desktop_id="local_x",
            cc_session_id="g-1",
            created_at=now,
        ),
        "hook": old.objects.create(name="shop", kind="hook", cc_session_id="h-1", created_at=now),
        "none": old.objects.create(name="bob", kind="named", created_at=now),
    }

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps.get_model("agent_sessions", "Session")

    links = {key: new.objects.get(pk=row.pk).cc_link for key, row in rows.items()}
    assert links == {"agent": "agent", "guess": "guess", "hook": "", "none": ""}
    assert {new.objects.get(pk=row.pk).stop_blocks for row in rows.values()} == {0}
