"""Activity's "Actions on live" block and its fragment (§2 Activity, §7 Journal).

The rows are live.action events made through environments.services.live_action_record, the
one write the guard calls; tasks itself only reads them back.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from environments.services import live_action_record
from tasks.live_refresh import hx_trigger
from tasks.models import Event, Project, Task
from tests.support.board import signed_in_client
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db

BLOCK = re.compile(r'<div id="live-actions".*?\n</div>', re.S)


@pytest.fixture
def client() -> Client:
    return signed_in_client()


def get(client: Client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, response.content[:800]
    return response.content.decode()


def act(
    project: Project,
    task: Task | None = None,
    *,
    decision: str = "deny",
    command: str = "ssh prod-alias sudo systemctl restart app",
    environment: str = "live",
    actor: str = "agent-7",
) -> Event:
    return live_action_record(
        project=project,
        environment=environment,
        task=task,
        tool="Bash",
        command=command,
        decision=decision,
        level="read",
        rule="ssh-remote-change" if decision == "deny" else "",
        actor=actor,
    )


def block(html: str) -> str:
    found = BLOCK.search(html)
    assert found, "no Actions on live block"
    return found[0]


def row_ids(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'<li class="la-row" id="live-action-(\d+)"', html)]


def row_of(html: str, event_id: int) -> str:
    return re.search(rf'<li class="la-row" id="live-action-{event_id}".*?</li>', html, re.S)[0]


# --- the block on the Activity page ------------------------------------------------------------


def test_the_block_shows_the_newest_twenty_above_the_feed_and_links_to_all(client):
    shop = make_project("shop", name="Shop")
    made = [act(shop, command=f"kubectl get pods -n web-{i}").id for i in range(25)]
    html = get(client, "/activity")
    shown = block(html)
    assert row_ids(shown) == made[::-1][:20]
    assert '<h2 id="live-actions-title">Actions on live</h2>' in shown
    assert '<a class="la-all" href="/activity?kind=live.action">All actions on live →</a>' in shown
    assert html.index('id="live-actions"') < html.index('id="activity-rows"')


def test_a_row_shows_time_project_environment_decision_call_level_rule_session_and_task(client):
    shop = make_project("shop", name="Shop Web")
    task = make_task(shop, "Restart the app")
    event = act(shop, task, environment="prod")
    row = row_of(get(client, "/activity"), event.id)
    stamp = r'<time class="la-age" datetime="[^"]+" title="\d{4}-\d\d-\d\d [\d:]+ UTC">'
    assert re.search(stamp, row)
    assert "just now</time>" in row
    assert '<span class="la-decision is-deny">deny</span>' in row
    assert '<span class="la-tool">Bash</span>' in row
    assert '<code class="la-command">ssh prod-alias sudo systemctl restart app</code>' in row
    where = '<a href="/p/shop">Shop Web</a> / <span class="la-env" title="Environment">prod</span>'
    assert where in row
    assert '<span class="la-level">level read</span>' in row
    assert '<span class="la-rule">rule <code>ssh-remote-change</code></span>' in row
    assert '<span class="la-actor" title="Session">by agent-7</span>' in row
    assert f'<a class="la-task" href="/p/shop?task={task.key}">{task.key}</a>' in row


def test_each_decision_has_its_badge(client):
    shop = make_project("shop")
    tones = {"deny": "deny", "ask": "ask", "warn": "warn", "log": "quiet", "allow": "quiet"}
    events = {decision: act(shop, decision=decision) for decision in tones}
    html = get(client, "/activity")
    for decision, tone in tones.items():
        row = row_of(html, events[decision].id)
        assert f'data-decision="{decision}"' in row
        assert f'<span class="la-decision is-{tone}">{decision}</span>' in row
    # A call without a rule shows no empty "rule".
    assert "la-rule" not in row_of(html, events["ask"].id)


def test_the_block_follows_the_project_filter_and_keeps_it_in_its_links(client):
    shop = make_project("shop")
    other = make_project("other")
    mine = act(shop).id
    act(other)
    shown = block(get(client, "/activity?project=shop"))
    assert row_ids(shown) == [mine]
    assert 'href="/activity?project=shop&amp;kind=live.action"' in shown
    assert 'hx-get="/activity/live-actions?project=shop"' in shown


def test_the_agent_text_of_a_call_is_escaped(client):
    shop = make_project("shop", name="<b>Shop</b>")
    event = act(
        shop,
        command="echo <script>alert(1)</script> && curl '<img src=x onerror=alert(2)>'",
        environment="<i>live</i>",
        actor="<u>agent</u>",
    )
    for url in ("/activity", "/activity/live-actions"):
        row = row_of(get(client, url), event.id)
        assert "<script>" not in row
        assert "<img" not in row
        assert "<i>live" not in row
        assert "<u>agent" not in row
        assert "<b>Shop" not in row
        assert "echo &lt;script&gt;alert(1)&lt;/script&gt; &amp;&amp; curl" in row
        assert "&lt;i&gt;live&lt;/i&gt;" in row


def test_the_block_refetches_its_content_on_live_action(client):
    act(make_project("shop"))
    wrapper = block(get(client, "/activity")).split("\n", 1)[0]
    assert 'hx-get="/activity/live-actions"' in wrapper
    assert f'hx-trigger="{hx_trigger("live_actions")}"' in wrapper
    assert hx_trigger("live_actions") == "rb-live-action from:body"
    assert 'hx-select="#live-actions > *" hx-swap="innerHTML"' in wrapper
    assert 'hx-sync="this:queue last"' in wrapper


def test_with_no_action_on_live_only_the_empty_wrapper_is_there(client):
    make_task(make_project("shop"), "Quiet")
    shown = block(get(client, "/activity"))
    assert "la-block" not in shown
    assert row_ids(shown) == []


def test_the_block_stays_with_another_kind_and_leaves_for_the_journal_itself(client):
    shop = make_project("shop")
    event = act(shop)
    assert row_ids(block(get(client, "/activity?kind=task.created"))) == [event.id]
    journal = get(client, "/activity?kind=live.action")
    assert 'id="live-actions"' not in journal
    assert f'id="event-{event.id}"' in journal  # the feed itself is the whole journal
    older = get(client, f"/activity?before={event.id}")
    assert 'id="live-actions"' not in older


# --- the fragment ------------------------------------------------------------------------------


def test_the_fragment_answers_the_same_rows_as_the_page(client):
    shop = make_project("shop")
    other = make_project("other")
    for i in range(12):
        act(shop if i % 2 else other, decision=("deny", "ask", "log")[i % 3])
    for query in ("", "?project=shop"):
        page = block(get(client, f"/activity{query}"))
        fragment = get(client, f"/activity/live-actions{query}")
        assert fragment.strip().startswith('<div id="live-actions"')
        assert row_ids(fragment) == row_ids(page)
        assert row_ids(fragment)


def test_an_unknown_project_is_a_400_with_the_reason(client):
    page = get(client, "/activity?project=nope", status=400)
    assert "Unknown project &#x27;nope&#x27;. Pick a project from the list." in page
    assert 'id="live-actions"' not in page
    response = client.get("/activity/live-actions?project=nope")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == "Unknown project 'nope'. Pick a project from the list.\n"


def test_signed_out_visitors_are_sent_to_sign_in():
    response = Client().get("/activity/live-actions")
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=")


def test_the_block_costs_one_query_whatever_it_holds(client):
    shop = make_project("shop")
    act(shop)
    with CaptureQueriesContext(connection) as few:
        get(client, "/activity/live-actions?project=shop")
    for i in range(30):
        act(shop, make_task(shop, f"Task {i}") if i % 3 == 0 else None)
    with CaptureQueriesContext(connection) as many:
        get(client, "/activity/live-actions?project=shop")
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]
