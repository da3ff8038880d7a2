"""The Sessions pages, the task dialog's Session panel and its two writes through Django's
test client (§2 Sessions, Task dialog / page; §1 Session and binding). Data is made through
tasks.services and sessions.services; the hook state (status, activity, folder) has no
service of its own yet in this app's tests, so it is set the way test_services_sessions does.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core import tokens
from core.security import COOKIE_NAME, current_token
from sessions import panels, selectors, services
from sessions.models import KIND_HOOK, Session, TaskBinding
from tasks import extensions
from tasks.models import Event, Task
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db

DESKTOP = "local_1b4e28ba-2fa1-11d2-883f-0016d3cca427"
DESKTOP_2 = "local_7d444840-9dc0-11d1-b245-5ffdce74fad2"
EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)">'


@pytest.fixture
def web(client):
    """The test client signed in with the board cookie."""
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client


def write_headers(htmx: bool = False) -> dict[str, str]:
    headers = {
        "HTTP_X_RELAYBAY_CSRF": tokens.csrf_token(current_token()),
        "HTTP_SEC_FETCH_SITE": "same-origin",
    }
    if htmx:
        headers["HTTP_HX_REQUEST"] = "true"
    return headers


def bind(task: Task, session: str, **kw: object) -> services.BindResult:
    return services.task_bind_session(task=task, session=session, actor="agent-x", **kw)


def hook_state(name: str, **fields: object) -> Session:
    """What the hooks would have written (status, activity, folder) onto a session."""
    Session.objects.filter(name=name).update(**fields)
    return Session.objects.get(name=name)


def hook_row(name: str, project=None, **fields: object) -> Session:
    """A row the hooks created for an unknown Claude Code session (§4 step 5)."""
    return Session.objects.create(
        name=name, kind=KIND_HOOK, project=project, created_at=timezone.now(), **fields
    )


def sessions_in(html: str) -> list[str]:
    return re.findall(r'<li class="ss-row" id="session-(\d+)"', html)


def panel_of(client, task: Task):
    return client.get(f"/p/{task.project.slug}/t/{task.key}/session")


# --- the Sessions pages ---------------------------------------------------------------------


def test_the_project_sessions_page_lists_its_sessions_newest_activity_first(web) -> None:
    project, other = make_project("acme"), make_project("other")
    old, new = make_task(project), make_task(project)
    bind(old, DESKTOP, session_title="Fix login")
    bind(new, "alice")
    now = timezone.now()
    hook_state(DESKTOP, hook_status="working", activity="Edit", activity_at=now, cwd="/src/acme")
    hook_state("alice", last_seen_at=now - timedelta(hours=3))
    bind(make_task(other), "bob")
    placed = hook_row(
        "acme-folder",
        project=project,
        hook_status="idle",
        activity_at=now - timedelta(minutes=5),
        unlinked_reason="two desktop sessions in this folder",
    )

    response = web.get("/p/acme/sessions")

    assert response.status_code == 200
    html = response.content.decode()
    desktop = Session.objects.get(name=DESKTOP)
    alice = Session.objects.get(name="alice")
    assert sessions_in(html) == [str(desktop.id), str(placed.id), str(alice.id)]
    assert "bob" not in html
    assert "Fix login" in html
    assert DESKTOP in html
    assert 'href="claude://resume?session=' + DESKTOP + '"' in html
    assert "Open in desktop" in html
    assert "/src/acme" in html
    assert ">Edit<" in html
    assert "two desktop sessions in this folder" in html
    assert f'href="/p/acme?task={old.key}"' in html
    assert f'href="/p/acme?task={new.key}"' in html
    assert 'data-status="working"' in html
    assert ">working<" in html
    assert ">no hook status<" in html
    assert ">hook<" in html
    assert ">named<" in html
    assert ">desktop<" in html
    # The exact UTC time on hover.
    assert re.search(r'<time datetime="[^"]+Z" title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC">', html)
    assert 'hx-get="/p/acme/sessions/rows"' in html
    assert "relaybay/sessions.js" in html


def test_all_sessions_lists_every_project_with_links_to_their_task_dialogs(web) -> None:
    a, b = make_task(make_project("alpha")), make_task(make_project("beta"))
    bind(a, "alice")
    bind(b, "bob")
    hook_row("lonely")

    html = web.get("/sessions").content.decode()

    assert len(sessions_in(html)) == 3
    assert f'href="/p/alpha?task={a.key}"' in html
    assert f'href="/p/beta?task={b.key}"' in html
    assert "no task" in html  # the hook row bound to nothing
    assert '<span aria-current="page">All sessions</span>' in html


def test_a_session_bound_in_two_projects_shows_both_tasks(web) -> None:
    a, b = make_task(make_project("alpha")), make_task(make_project("beta"))
    bind(a, "alice")
    bind(b, "alice")

    html = web.get("/p/alpha/sessions").content.decode()

    assert f'href="/p/alpha?task={a.key}"' in html
    assert f'href="/p/beta?task={b.key}"' in html


def test_the_project_page_has_its_own_empty_state(web) -> None:
    make_project("acme")
    bind(make_task(make_project("other")), "bob")

    response = web.get("/p/acme/sessions")

    assert response.status_code == 200
    html = response.content.decode()
    assert "No sessions in this project yet" in html
    assert 'id="session-list"' in html  # the live refresh still has its target


def test_all_sessions_has_an_empty_state(web) -> None:
    html = web.get("/sessions").content.decode()
    assert "No sessions yet" in html


def test_an_unknown_project_is_a_404_page_and_its_rows_a_404(web) -> None:
    response = web.get("/p/nope/sessions")
    assert response.status_code == 404
    assert "There is no project “nope”" in response.content.decode()
    assert web.get("/p/nope/sessions/rows").status_code == 404


def test_the_rows_fragment_is_the_list_alone(web) -> None:
    bind(make_task(make_project("acme")), "alice")

    html = web.get("/p/acme/sessions/rows").content.decode()

    assert html.lstrip().startswith("{#") is False
    assert html.strip().startswith('<div class="ss-list" id="session-list"')
    assert "<html" not in html
    assert "alice" in html


def test_the_sessions_pages_are_capped_at_200(web) -> None:
    now = timezone.now()
    Session.objects.bulk_create(
        [Session(name=f"s{i}", kind="named", created_at=now, last_seen_at=now) for i in range(205)]
    )

    html = web.get("/sessions").content.decode()

    assert len(sessions_in(html)) == 200
    assert "the 200 with the newest activity" in html


def test_the_sidebar_shows_sessions_under_each_project(web) -> None:
    make_project("acme")
    html = web.get("/p/acme/sessions").content.decode()
    assert re.search(r'<a href="/p/acme/sessions"\s+aria-current="page">Sessions</a>', html)


def test_signed_out_visitors_are_sent_to_sign_in(client) -> None:
    response = client.get("/sessions")
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=/sessions")


def test_the_sessions_list_costs_the_same_queries_for_3_or_30_sessions(web) -> None:
    def count(n: int, slug: str) -> int:
        project = make_project(slug)
        for i in range(n):
            task = make_task(project)
            bind(task, f"{slug}-{i}")
            hook_row(f"{slug}-hook-{i}", project=project)
        with CaptureQueriesContext(connection) as ctx:
            assert web.get(f"/p/{slug}/sessions/rows").status_code == 200
        with CaptureQueriesContext(connection) as page:
            assert web.get(f"/p/{slug}/sessions").status_code == 200
        return len(ctx.captured_queries), len(page.captured_queries)

    assert count(3, "small") == count(30, "large")


# --- agent text is escaped ------------------------------------------------------------------


def test_agent_written_session_values_are_escaped_everywhere(web) -> None:
    task = make_task(make_project("acme"))
    bind(task, DESKTOP, session_title=EVIL.replace("\n", " "))
    hook_state(DESKTOP, activity=EVIL, cwd=EVIL, unlinked_reason=EVIL, hook_status="working")
    other = make_task(task.project)
    bind(other, "<b>bold</b> name")
    services.task_unbind_session(task=other, actor="x", reason="<img src=x onerror=alert(3)>")

    for url in (
        "/sessions",
        "/p/acme/sessions",
        f"/p/acme/t/{task.key}/session",
        f"/p/acme/t/{other.key}/session",
    ):
        html = web.get(url).content.decode()
        assert "<script>alert" not in html, url
        assert "<img src=x" not in html, url
        assert '<img src="x"' not in html, url
        assert "<b>bold</b>" not in html, url
    html = web.get(f"/p/acme/t/{other.key}/session").content.decode()
    assert "&lt;img src=x onerror=alert(3)&gt;" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in web.get("/sessions").content.decode()


# --- the Session panel ----------------------------------------------------------------------


def test_the_panel_shows_the_bound_desktop_session_its_status_and_history(web) -> None:
    task = make_task(make_project("acme"))
    bind(task, "alice")
    bind(task, DESKTOP, session_title="Fix login")
    hook_state(
        DESKTOP,
        hook_status="waiting",
        activity="AskUserQuestion",
        activity_at=timezone.now() - timedelta(minutes=3),
    )

    response = panel_of(web, task)

    assert response.status_code == 200
    html = response.content.decode()
    assert html.strip().startswith(f'<div class="sp" id="session-panel-{task.key}"')
    assert 'data-task-key="' + task.key + '"' in html
    assert "Fix login" in html
    assert DESKTOP in html
    assert ">waiting<" in html
    assert "AskUserQuestion" in html
    assert "3 min ago" in html
    assert f'href="claude://resume?session={DESKTOP}"' in html
    assert "Unbind…" in html
    assert "Unbind session" in html
    assert f'action="/p/acme/t/{task.key}/session/unbind"' in html
    assert f'name="csrf_token" value="{tokens.csrf_token(current_token())}"' in html
    # History, latest first: the desktop binding now, then alice's, closed by the rebind.
    history = html[html.index("Binding history") :]
    assert history.index("Fix login") < history.index("alice")
    assert f"rebound to {DESKTOP}" in history
    assert "Binding history" in html
    assert "(2)" in html


def test_the_panel_without_a_session_says_how_one_is_bound(web) -> None:
    task = make_task(make_project("acme"))

    html = panel_of(web, task).content.decode()

    assert "No session is bound" in html
    assert "Unbind" not in html
    assert "Binding history" not in html
    assert "Bind a session" in html
    assert "No sessions yet" in html


def test_a_named_session_without_hooks_has_no_hook_status_and_no_desktop_link(web) -> None:
    task = make_task(make_project("acme"))
    bind(task, "alice")
    assert "no activity yet" in panel_of(web, task).content.decode()
    hook_state("alice", last_seen_at=timezone.now() - timedelta(hours=2))

    html = panel_of(web, task).content.decode()

    assert ">no hook status<" in html
    assert "Open in desktop" not in html
    assert "last seen" in html
    assert "2 h ago" in html


def test_the_picker_lists_the_projects_sessions_first_most_recently_seen_first(web) -> None:
    project = make_project("acme")
    task = make_task(project)
    now = timezone.now()
    bind(make_task(project), "mine-old")
    bind(make_task(project), DESKTOP, session_title="Mine new")
    bind(make_task(make_project("other")), "elsewhere-new")
    hook_row("folder-row", project=project, activity_at=now - timedelta(hours=1))
    hook_state("mine-old", last_seen_at=now - timedelta(days=2))
    hook_state(DESKTOP, last_seen_at=now - timedelta(minutes=1))
    hook_state("elsewhere-new", last_seen_at=now)

    html = panel_of(web, task).content.decode()

    project_part = html[html.index("In this project") : html.index("Other sessions")]
    other_part = html[html.index("Other sessions") :]
    titles = re.findall(r'<span class="sp-option-title">([^<]+)</span>', project_part)
    assert titles == ["Mine new", "folder-row", "mine-old"]
    assert re.findall(r'<span class="sp-option-title">([^<]+)</span>', other_part)[0] == (
        "elsewhere-new"
    )
    # Title first, then kind, id and status small.
    entry = project_part[project_part.index("Mine new") :]
    assert entry.index("desktop") < entry.index(DESKTOP) < entry.index("no hook status")


def test_the_picker_leaves_out_the_session_bound_now(web) -> None:
    task = make_task(make_project("acme"))
    bind(task, "alice")
    bind(make_task(task.project), "bob")

    html = panel_of(web, task).content.decode()

    assert re.findall(r'<span class="sp-option-title">([^<]+)</span>', html) == ["bob"]
    assert "Bind another session" in html


def test_the_panel_of_a_task_in_another_project_is_a_404(web) -> None:
    task = make_task(make_project("acme"))
    make_project("other")
    assert web.get(f"/p/other/t/{task.key}/session").status_code == 404
    assert web.get("/p/acme/t/acme-999/session").status_code == 404


def test_the_task_panel_is_registered_for_the_overview_tab() -> None:
    task = make_task(make_project("acme"))
    [panel] = [p for p in extensions.task_panels(task) if p.id == "session"]
    assert (panel.title, panel.tab, panel.template) == (
        "Session",
        "overview",
        panels.PANEL_TEMPLATE,
    )
    assert panel.context["sp"].key == task.key


def test_the_panel_costs_the_same_queries_with_a_long_history_and_many_sessions(web) -> None:
    def count(n: int, slug: str) -> int:
        project = make_project(slug)
        task = make_task(project)
        for i in range(n):
            bind(task, f"{slug}-{i}")
            hook_row(f"{slug}-hook-{i}", project=project)
        with CaptureQueriesContext(connection) as ctx:
            assert panel_of(web, task).status_code == 200
        return len(ctx.captured_queries)

    assert count(2, "small") == count(25, "large")


# --- card extras ----------------------------------------------------------------------------


def test_card_extras_give_each_bound_tasks_session_status_and_link_in_one_query(
    django_assert_num_queries,
) -> None:
    project = make_project("acme")
    desk, named, free = make_task(project), make_task(project), make_task(project)
    bind(desk, DESKTOP, session_title="Fix login")
    bind(named, "alice")
    hook_state(DESKTOP, hook_status="working")

    with django_assert_num_queries(1):
        extras = panels.card_extras([desk, named, free])

    assert set(extras) == {desk.id, named.id}
    assert extras[desk.id].session_name == DESKTOP
    assert extras[desk.id].hook_status == "working"
    assert extras[desk.id].desktop_link == f"claude://resume?session={DESKTOP}"
    assert (extras[named.id].hook_status, extras[named.id].desktop_link) == ("", "")


def test_card_extras_are_registered_with_the_board() -> None:
    task = make_task(make_project("acme"))
    bind(task, "alice")
    assert [e.session_name for e in extensions.card_extras([task])[task.id]] == ["alice"]


# --- binding and unbinding from the board ---------------------------------------------------


def test_binding_from_the_picker_writes_the_history_and_event_with_actor_board(web) -> None:
    project = make_project("acme")
    task = make_task(project)
    bind(make_task(project), DESKTOP, session_title="Fix login")
    session = Session.objects.get(name=DESKTOP)

    response = web.post(
        f"/p/acme/t/{task.key}/session/bind", {"session_id": session.id}, **write_headers(True)
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert html.strip().startswith(f'<div class="sp" id="session-panel-{task.key}"')
    assert "Fix login" in html
    assert "Unbind…" in html
    binding = selectors.current_binding(task)
    assert (binding.session_id, binding.bound_by) == (session.id, "board")
    event = Event.objects.filter(kind="task.session_bound", task=task).get()
    assert event.actor == "board"
    assert event.payload == {"session": DESKTOP, "previous": None}


def test_binding_a_named_session_to_a_desktop_bound_task_rebinds_it(web) -> None:
    # An agent's plain name would become an alias here (§1); the owner's pick rebinds.
    task = make_task(make_project("acme"))
    bind(task, DESKTOP)
    alice = bind(make_task(task.project), "alice").session

    web.post(f"/p/acme/t/{task.key}/session/bind", {"session_id": alice.id}, **write_headers(True))

    assert selectors.bound_session(task) == alice
    history = selectors.binding_history(task)
    assert [b.session.name for b in history] == ["alice", DESKTOP]
    assert history[1].unbind_reason == "rebound to alice"
    assert history[1].unbound_by == "board"
    event = Event.objects.filter(kind="task.session_bound", task=task).last()
    assert (event.actor, event.payload["previous"]) == ("board", DESKTOP)


def test_a_hook_session_can_be_bound_from_the_picker(web) -> None:
    task = make_task(make_project("acme"))
    row = hook_row("acme-folder", project=task.project, hook_status="idle")

    web.post(f"/p/acme/t/{task.key}/session/bind", {"session_id": row.id}, **write_headers(True))

    assert selectors.bound_session(task) == row
    assert not Session.objects.filter(kind="named", name="acme-folder").exists()


def test_a_plain_form_post_binds_and_answers_303_to_the_task_page(web) -> None:
    task = make_task(make_project("acme"))
    alice = bind(make_task(task.project), "alice").session

    response = web.post(
        f"/p/acme/t/{task.key}/session/bind", {"session_id": alice.id}, **write_headers()
    )

    assert response.status_code == 303
    assert response["Location"] in (f"/t/{task.key}", f"/p/acme?task={task.key}")
    assert selectors.bound_session(task) == alice


def test_the_csrf_field_of_a_plain_form_is_enough(web) -> None:
    task = make_task(make_project("acme"))
    alice = bind(make_task(task.project), "alice").session

    response = web.post(
        f"/p/acme/t/{task.key}/session/bind",
        {"session_id": alice.id, "csrf_token": tokens.csrf_token(current_token())},
        HTTP_SEC_FETCH_SITE="same-origin",
    )

    assert response.status_code == 303
    assert selectors.bound_session(task) == alice


def test_binding_the_bound_session_again_changes_nothing(web) -> None:
    task = make_task(make_project("acme"))
    alice = bind(task, "alice").session
    before = Event.objects.count()

    response = web.post(
        f"/p/acme/t/{task.key}/session/bind", {"session_id": alice.id}, **write_headers(True)
    )

    assert response.status_code == 200
    assert Event.objects.count() == before
    assert TaskBinding.objects.filter(task=task).count() == 1


def test_an_unknown_or_missing_session_id_is_refused_and_says_why(web) -> None:
    task = make_task(make_project("acme"))
    url = f"/p/acme/t/{task.key}/session/bind"

    htmx = web.post(url, {"session_id": 99999}, **write_headers(True))
    plain = web.post(url, {"session_id": 99999}, **write_headers())
    empty = web.post(url, {"session_id": "x"}, **write_headers())

    assert htmx.status_code == 200  # htmx swaps 2xx only: the panel itself says why
    assert 'role="alert"' in htmx.content.decode()
    assert "Unknown session 99999" in htmx.content.decode()
    assert plain.status_code == 404
    assert empty.status_code == 400
    assert "Pick a session" in empty.content.decode()
    assert not TaskBinding.objects.filter(task=task).exists()


def test_unbinding_from_the_panel_keeps_the_history_with_actor_board_and_reason(web) -> None:
    task = make_task(make_project("acme"))
    bind(task, "alice")

    response = web.post(
        f"/p/acme/t/{task.key}/session/unbind", {"reason": "wrong task"}, **write_headers(True)
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert "No session is bound" in html
    assert "wrong task" in html  # the history line
    [binding] = selectors.binding_history(task)
    assert (binding.unbound_by, binding.unbind_reason) == ("board", "wrong task")
    event = Event.objects.filter(kind="task.session_unbound", task=task).get()
    assert event.actor == "board"
    assert event.payload == {"session": "alice", "reason": "wrong task"}


def test_a_plain_unbind_post_answers_303_and_a_too_long_reason_400(web) -> None:
    task = make_task(make_project("acme"))
    bind(task, "alice")
    url = f"/p/acme/t/{task.key}/session/unbind"

    assert web.post(url, {"reason": "x" * 201}, **write_headers()).status_code == 400
    assert selectors.bound_session(task) is not None
    assert web.post(url, {}, **write_headers()).status_code == 303
    assert selectors.bound_session(task) is None


def test_a_cookie_write_without_the_csrf_token_is_refused(web) -> None:
    task = make_task(make_project("acme"))
    alice = bind(task, "alice").session
    other = make_task(task.project)

    no_token = web.post(
        f"/p/acme/t/{other.key}/session/bind",
        {"session_id": alice.id},
        HTTP_SEC_FETCH_SITE="same-origin",
    )
    cross_site = web.post(
        f"/p/acme/t/{task.key}/session/unbind",
        {},
        HTTP_X_RELAYBAY_CSRF=tokens.csrf_token(current_token()),
        HTTP_SEC_FETCH_SITE="cross-site",
    )

    assert no_token.status_code == 403
    assert cross_site.status_code == 403
    assert selectors.bound_session(other) is None
    assert selectors.bound_session(task) == alice


def test_the_writes_answer_post_only_and_404_for_an_unknown_task(web) -> None:
    make_project("acme")
    assert web.get("/p/acme/t/acme-1/session/bind").status_code == 405
    assert web.post("/p/acme/t/acme-9/session/unbind", {}, **write_headers()).status_code == 404
