"""The Activity feed and its rows fragment (§2 Activity)."""

from __future__ import annotations

import re

import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tasks import selectors, services
from tasks.events import EventKind, record_event
from tasks.models import Event
from tasks.selectors.activity import PAGE_SIZE
from tests.support.board import signed_in_client
from tests.tasks.factories import ACTOR, add_report, make_project, make_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> Client:
    return signed_in_client()


def get(client: Client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, response.content[:800]
    return response.content.decode()


def row_ids(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'<li class="activity-row[^"]*" id="event-(\d+)"', html)]


def row_of(html: str, event_id: int) -> str:
    return re.search(rf'<li class="activity-row[^"]*" id="event-{event_id}".*?</li>', html, re.S)[0]


def status_change(task, before: str, after: str) -> Event:
    # No tasks service emits hook status changes (the sessions app does, from hooks).
    with transaction.atomic():
        return record_event(
            EventKind.SESSION_STATUS_CHANGED,
            project=task.project,
            task=task,
            actor="hook",
            payload={"session": "Shop work", "from": before, "to": after},
        )


def many_events(project, n: int) -> None:
    task = make_task(project, "Busy")
    for i in range(n - 1):
        services.task_update(key=task.key, actor=ACTOR, next_step=f"step {i}")


# --- the page ----------------------------------------------------------------------------------


def test_an_empty_log_says_so(client):
    html = get(client, "/activity")
    assert "No events yet." in html
    assert row_ids(html) == []
    assert 'id="activity-more-link"' not in html
    assert '<a href="/activity" aria-current="page">' in html


def test_events_are_listed_newest_first_with_age_kind_link_text_and_actor(client):
    project = make_project("acme", name="Acme Shop")
    task = make_task(project, "Checkout flow", size="M")
    services.task_set_stage(key=task.key, stage="dev", actor="agent-7")
    html = get(client, "/activity")
    ids = row_ids(html)
    assert ids == sorted(ids, reverse=True)
    assert len(ids) == 3  # project.created, task.created, task.stage_changed

    moved = row_of(html, ids[0])
    event = Event.objects.get(id=ids[0])
    assert 'class="kind-chip kind-task">task.stage_changed<' in moved
    assert f'<a href="/p/acme?task={task.key}" title="Acme Shop">{task.key}</a>' in moved
    assert '<span class="activity-text">plan → dev (1 rule warning(s))</span>' in moved
    assert '<span class="activity-actor">agent-7</span>' in moved
    utc = event.created_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    assert re.search(
        rf'<time class="activity-age" datetime="[^"]+" title="{utc}">just now</time>', moved
    )

    created = row_of(html, ids[-1])
    assert "project.created" in created
    assert '<a href="/p/acme">Acme Shop</a>' in created


def test_the_description_is_the_same_as_events_since(client):
    project = make_project("acme")
    task = make_task(project, "Report me")
    add_report(task, body="changed · S · wired the form")
    services.task_update(key=task.key, actor=ACTOR, progress="half", branch="feat/x")
    html = get(client, "/activity")
    for line in selectors.events_since(0):
        assert f'<span class="activity-text">{line.text}</span>' in row_of(html, line.id)


def test_fifty_a_page_with_load_more_as_a_plain_link_and_a_fragment(client):
    project = make_project("acme")
    many_events(project, 2 * PAGE_SIZE + 10)  # plus project.created
    newest = list(Event.objects.order_by("-id").values_list("id", flat=True))

    first = get(client, "/activity")
    assert row_ids(first) == newest[:PAGE_SIZE]
    link = re.search(r'<a id="activity-more-link"[^>]*>', first)[0]
    assert f'href="/activity?before={newest[PAGE_SIZE - 1]}"' in link
    assert f'hx-get="/activity/rows?before={newest[PAGE_SIZE - 1]}"' in link
    assert 'hx-target="#activity-rows" hx-swap="beforeend"' in link

    # Without scripts: the link opens the older page, which links back to the newest.
    second = get(client, f"/activity?before={newest[PAGE_SIZE - 1]}")
    assert row_ids(second) == newest[PAGE_SIZE : 2 * PAGE_SIZE]
    assert '<a href="/activity">← Newest events</a>' in second
    assert 'id="activity-live"' not in second

    # With htmx: the fragment holds the rows and the next Load more, out of band.
    fragment = get(client, f"/activity/rows?before={newest[2 * PAGE_SIZE - 1]}")
    assert row_ids(fragment) == newest[2 * PAGE_SIZE :]
    assert '<div id="activity-more" class="activity-more" hx-swap-oob="true">' in fragment
    assert "activity-more-link" not in fragment
    assert "That is the beginning of the log." in fragment
    assert "<html" not in fragment


def test_filters_by_project_and_kind_keep_their_values_in_load_more(client):
    shop = make_project("shop")
    other = make_project("other")
    many_events(shop, PAGE_SIZE + 5)
    make_task(other, "Elsewhere")
    html = get(client, "/activity?project=shop&kind=task.updated")
    ids = row_ids(html)
    assert len(ids) == PAGE_SIZE
    assert set(Event.objects.filter(id__in=ids).values_list("kind", flat=True)) == {"task.updated"}
    assert '<option value="shop" selected>' in html
    assert '<option value="task.updated" selected>' in html
    assert f"/activity?project=shop&amp;kind=task.updated&amp;before={ids[-1]}" in html
    assert f"/activity/rows?project=shop&amp;kind=task.updated&amp;before={ids[-1]}" in html

    only_other = get(client, "/activity?project=OTHER")
    kinds = Event.objects.filter(id__in=row_ids(only_other)).values_list("project__slug", flat=True)
    assert set(kinds) == {"other"}


def test_a_filter_that_matches_nothing_says_so(client):
    make_project("acme")
    html = get(client, "/activity?kind=decision.added")
    assert "No events match these filters yet." in html
    assert '<a class="filters-clear" href="/activity">Clear filters</a>' in html


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("kind=task.exploded", "Unknown event kind &#x27;task.exploded&#x27;."),
        ("project=nope", "Unknown project &#x27;nope&#x27;."),
        ("before=abc", "before must be an event id (a positive number), not &#x27;abc&#x27;."),
        ("before=-5", "before must be an event id"),
        ("kind=%3Cscript%3E", "Unknown event kind &#x27;&lt;script&gt;&#x27;."),
    ],
)
def test_an_unknown_filter_is_a_400_page_with_the_reason(client, query, reason):
    html = get(client, f"/activity?{query}", status=400)
    assert reason in html
    assert '<section class="activity-problem" role="alert"' in html
    assert '<a href="/activity">Show all activity</a>' in html
    assert "<script>" not in html.split("</head>")[1]


@pytest.mark.parametrize(
    "query", ["kind=nope", "project=nope", "after=x", "before=1e3", "after=99999999999999999999"]
)
def test_the_rows_fragment_answers_a_bad_request_with_the_reason(client, query):
    response = client.get(f"/activity/rows?{query}")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode().strip()


def test_hook_status_changes_show_only_when_their_kind_is_selected(client):
    task = make_task(make_project("acme"), "Watched")
    change = status_change(task, "working", "idle")
    everything = get(client, "/activity")
    assert change.id not in row_ids(everything)
    assert "Hook status changes (session.status_changed) show only when you pick that kind." in (
        everything
    )
    assert change.id not in row_ids(get(client, f"/activity/rows?after={change.id - 1}"))

    chosen = get(client, "/activity?kind=session.status_changed")
    assert row_ids(chosen) == [change.id]
    assert "Shop work: working → idle" in chosen


def test_signed_out_visitors_are_sent_to_sign_in():
    for url in ("/activity", "/activity/rows?after=0"):
        response = Client().get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/login?next=")


# --- live prepend ------------------------------------------------------------------------------


def test_the_first_page_listens_for_new_events_after_its_newest_row(client):
    project = make_project("acme")
    make_task(project, "One")
    newest = Event.objects.order_by("-id").first().id
    html = get(client, "/activity?kind=task.created")
    live = re.search(r'<div id="activity-live".*?</div>', html, re.S)[0]
    assert 'hx-get="/activity/rows?kind=task.created"' in live
    assert 'hx-trigger="rb-activity-changed from:body"' in live
    assert 'hx-include="#activity-after"' in live
    assert 'hx-target="#activity-rows" hx-swap="afterbegin"' in live
    assert f'<input type="hidden" id="activity-after" name="after" value="{newest}">' in live


def test_live_rows_are_the_newer_ones_newest_first_and_move_the_anchor(client):
    project = make_project("acme")
    first = make_task(project, "First")
    anchor = Event.objects.order_by("-id").first().id
    services.task_update(key=first.key, actor=ACTOR, next_step="go")
    make_task(project, "Second")
    newer = list(Event.objects.filter(id__gt=anchor).order_by("-id").values_list("id", flat=True))

    html = get(client, f"/activity/rows?after={anchor}")
    assert row_ids(html) == newer
    assert 'class="activity-row is-fresh"' in html
    assert (
        f'<input type="hidden" id="activity-after" name="after" value="{newer[0]}" '
        'hx-swap-oob="true">'
    ) in html
    assert "activity-more" not in html

    quiet = get(client, f"/activity/rows?after={newer[0]}")
    assert row_ids(quiet) == []
    assert f'name="after" value="{newer[0]}" hx-swap-oob="true"' in quiet


def test_live_rows_respect_the_filters(client):
    shop = make_project("shop")
    other = make_project("other")
    make_task(shop, "Shop task")
    make_task(other, "Other task")
    html = get(client, "/activity/rows?after=0&project=shop&kind=task.created")
    ids = row_ids(html)
    assert len(ids) == 1
    assert Event.objects.get(id=ids[0]).project.slug == "shop"
    assert f'value="{ids[0]}" hx-swap-oob="true"' in html


# --- untrusted text and query counts -----------------------------------------------------------


def test_agent_text_is_escaped_in_every_row(client):
    project = make_project("acme", name="<b>Acme</b>")
    task = make_task(project, "<script>alert(1)</script>")
    add_report(task, body="changed · S · <img src=x onerror=alert(2)>")
    services.decision_add(
        project="acme", text="<a href=javascript:alert(3)>x</a>", actor="<i>me</i>"
    )
    for url in ("/activity", "/activity/rows?after=0", "/activity/rows"):
        html = get(client, url)
        assert "<script>alert(1)" not in html
        assert "<img src=x" not in html
        assert "<a href=javascript" not in html
        assert "<i>me</i>" not in html
        assert "<b>Acme</b>" not in html
        assert "created in plan: &lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "&lt;img src=x onerror=alert(2)&gt;" in html
        assert "&lt;i&gt;me&lt;/i&gt;" in html


@pytest.mark.parametrize(
    "url", ["/activity", "/activity?project=p1", "/activity/rows?after=0", "/activity/rows"]
)
def test_query_counts_do_not_grow_with_the_rows(client, url):
    p1 = make_project("p1")
    make_task(p1, "Few")
    with CaptureQueriesContext(connection) as few:
        get(client, url)
    for i in range(3):
        many_events(make_project(f"more-{i}"), 10)
        many_events(p1, 10)
    with CaptureQueriesContext(connection) as many:
        get(client, url)
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]
