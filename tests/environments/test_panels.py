"""The task dialog's and task page's "Actions on live" panel (§7 Journal).

environments registers it through tasks.extensions.register_task_panels; the rows are the
task's own live.action events, written by environments.services.live_action_record.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from environments import panels
from environments.services import live_action_record
from tasks import extensions
from tasks.models import Event, Project, Task
from tests.environments.factories import make_environment
from tests.support.board import signed_in_client
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> Client:
    return signed_in_client()


@pytest.fixture
def shop() -> Project:
    return make_project("shop", name="Shop Web")


def act(project: Project, task: Task | None, command: str, decision: str = "deny") -> Event:
    return live_action_record(
        project=project,
        environment="live",
        task=task,
        tool="Bash",
        command=command,
        decision=decision,
        level="read",
        rule="ssh-remote-change",
        actor="agent-7",
    )


def panel_html(client: Client, task: Task) -> str:
    response = client.get(f"/p/{task.project.slug}/t/{task.key}/panel/live-actions")
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


def row_ids(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'<li class="la-row" id="live-action-(\d+)"', html)]


def test_the_panel_lists_only_the_tasks_own_actions_newest_first(client, shop):
    task = make_task(shop, "Restart the app")
    other = make_task(shop, "Rotate the logs")
    mine = [act(shop, task, f"systemctl status app-{i}").id for i in range(3)]
    act(shop, other, "journalctl -u logs")
    act(shop, None, "uptime")  # no task bound: Activity only
    html = panel_html(client, task)
    assert row_ids(html) == mine[::-1]
    assert '<h3 class="td-h" id="panel-live-actions-title">Actions on live</h3>' in html
    assert "journalctl" not in html
    assert "uptime" not in html
    # The task's own rows: no project or task link, the environment and the session stay.
    assert f'href="/p/shop?task={task.key}"' not in html
    assert 'href="/p/shop">Shop Web</a>' not in html
    assert '<span class="la-where">on <span class="la-env" title="Environment">live</span>' in html
    assert "by agent-7" in html
    assert '<a href="/activity?project=shop&amp;kind=live.action">' in html


def test_the_command_is_escaped(client, shop):
    task = make_task(shop, "Hostile")
    act(shop, task, "echo <script>alert(1)</script> <img src=x onerror=alert(2)>")
    html = panel_html(client, task)
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert "echo &lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;" in html


def test_at_most_fifty_are_shown_with_a_note(client, shop):
    task = make_task(shop, "Busy")
    made = [act(shop, task, f"ls /srv/{i}", decision="log").id for i in range(52)]
    html = panel_html(client, task)
    assert row_ids(html) == made[::-1][:50]
    assert "The newest 50 are shown." in html


def test_the_dialog_and_the_page_carry_the_panel_as_a_live_section(client, shop):
    task = make_task(shop, "Restart the app")
    act(shop, task, "systemctl restart app")
    for url in (f"/p/shop/t/{task.key}/dialog", f"/t/{task.key}"):
        html = client.get(url).content.decode()
        section = re.search(r'<section class="td-panel" id="panel-live-actions"[^>]*>', html)
        assert section, url
        assert "data-live-section" in section[0]
        assert f'hx-get="/p/shop/t/{task.key}/panel/live-actions"' in section[0]
        assert "systemctl restart app" in html


def test_without_actions_the_panel_shows_only_where_a_live_stand_could_bring_one(client, shop):
    task = make_task(shop, "Quiet")
    assert panels.task_panels(task) == []
    dialog = client.get(f"/p/shop/t/{task.key}/dialog").content.decode()
    assert 'id="panel-live-actions"' not in dialog

    make_environment("shop", name="staging", kind="test")
    assert panels.task_panels(task) == []
    make_environment("shop", name="prod", kind="live")
    html = panel_html(client, task)
    assert "Nothing run on live for this task yet." in html
    assert row_ids(html) == []


def test_the_panel_is_registered_once_in_the_overview(shop):
    from django.apps import apps

    apps.get_app_config("environments").ready()
    found = [fn for _, fn in extensions._panels if fn is panels.task_panels]
    assert len(found) == 1
    task = make_task(shop, "Any")
    act(shop, task, "ls")
    (panel,) = panels.task_panels(task)
    assert (panel.id, panel.title, panel.tab) == ("live-actions", "Actions on live", "overview")
