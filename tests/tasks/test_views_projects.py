"""The projects page `/` and its live fragment (§2 Projects)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.support.board import signed_in_client
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> Client:
    return signed_in_client()


def test_the_projects_page_says_how_to_start_when_there_are_none(client: Client) -> None:
    html = client.get("/").content.decode()
    assert "No projects yet" in html
    assert 'hx-get="/projects/list"' in html


def test_the_projects_page_counts_tasks_per_stage(client: Client) -> None:
    project = make_project("acme-shop")
    make_task(project, title="One")
    make_task(project, title="Two", stage="dev")
    html = client.get("/projects/list").content.decode()
    assert "acme-shop" in html
    assert "2 tasks" in html
    assert "No projects yet" not in html
    assert "<html" not in html  # a fragment, not a page


def test_project_names_are_escaped(client: Client) -> None:
    make_project("evil", name="<script>alert(1)</script>")
    html = client.get("/projects/list").content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;" in html


def test_the_fragment_needs_sign_in() -> None:
    response = Client().get("/projects/list")
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=")
