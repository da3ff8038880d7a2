"""Every page rendered once after a start (relaybay_site/warm.py, run by `serve`'s warm-up
thread once daphne listens): the frame's pages and each page of the projects changed last,
each answering 200 through Django's handler and middleware signed in with the token; the
rows they keep are kept for the first real view, and nothing is written."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from core import row_html
from core.security import current_token
from relaybay_site import warm
from sessions import services as session_services
from tasks.models import Event, Project
from tests.tasks.factories import ACTOR, make_project, make_task

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_the_test_transaction() -> Iterator[None]:
    """The handler closes the thread's connection after each request, as a server thread's
    should; inside a test's transaction it must not (Django's test client does the same)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def test_the_pages_are_the_frames_then_each_recent_projects() -> None:
    for n in range(3):
        make_project(f"p{n}")
    Project.objects.filter(slug="p0").update(updated_at=datetime(2020, 1, 1, tzinfo=UTC))

    found = warm.pages(projects=2)

    assert found[: len(warm.GLOBAL_PAGES)] == [
        "/",
        "/inbox",
        "/activity",
        "/sessions",
        "/settings/policy",
        "/settings/storage",
    ]
    boards = [p for p in found if p.startswith("/p/") and p.count("/") == 2]
    assert sorted(boards) == ["/p/p1", "/p/p2"]  # p0 changed longest ago: not warmed
    assert "/p/p1/docs" in found
    assert "/p/p2/effort" in found


def test_every_page_renders_and_keeps_its_rows_writing_nothing() -> None:
    project = make_project("acme")
    for n in range(3):
        task = make_task(project, f"Task {n}")
    session_services.task_bind_session(task=task, session="alice", actor=ACTOR)
    row_html.reset()
    events = Event.objects.count()

    statuses = warm.warm_pages("127.0.0.1:8765", current_token(), pause=0)

    assert statuses, "no page was rendered"
    assert set(statuses.values()) == {200}, statuses
    assert row_html.info().size > 0  # the board's cards, kept for the first real view
    assert Event.objects.count() == events


def test_a_page_that_fails_is_skipped_and_the_rest_still_render() -> None:
    make_project("acme")

    statuses = warm.warm_pages("127.0.0.1:8765", current_token(), ["/p/missing", "/inbox"], pause=0)

    assert statuses == {"/p/missing": 404, "/inbox": 200}
