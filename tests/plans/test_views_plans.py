"""The Plan tab (§2 Plan tab) and its Accept plan button through Django's test client.

Data is made through the services (plans.services, sessions.services, the todo through the
hook service as Claude Code's PostToolUse would write it).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents.claude_code.hooks import hook_event
from core import tokens
from core.security import COOKIE_NAME, current_token
from plans import panels, services
from sessions import services as session_services
from sessions.hooks import activity
from tasks.models import Event, Task
from tests.sessions.hook_payloads import payload
from tests.tasks.factories import ACTOR, add_report, make_project, make_task, reload

pytestmark = pytest.mark.django_db

AGENT_ID = "78a6a9df-545d-4090-8a48-00105ebe22e7"
EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)">'


@pytest.fixture
def web(client):
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client


@pytest.fixture(autouse=True)
def _fresh_clock() -> Any:
    activity.activity_clock.clear()
    yield
    activity.activity_clock.clear()


def write_headers(htmx: bool = False, csrf: bool = True) -> dict[str, str]:
    headers = {"HTTP_SEC_FETCH_SITE": "same-origin"}
    if csrf:
        headers["HTTP_X_RELAYBAY_CSRF"] = tokens.csrf_token(current_token())
    if htmx:
        headers["HTTP_HX_REQUEST"] = "true"
    return headers


def panel_html(client, task: Task) -> str:
    response = client.get(f"/p/{task.project.slug}/t/{task.key}/panel/plan")
    assert response.status_code == 200
    return response.content.decode()


def accept_url(task: Task) -> str:
    return f"/p/{task.project.slug}/t/{task.key}/plan/accept"


def planned(title: str = "Checkout", steps: list[Any] | None = None) -> Task:
    task = make_task(make_project("acme"), title=title)
    services.plan_set(
        key=task.key,
        steps=steps or [{"title": "Model", "details": "**why** the model"}, "API", "UI", "Tests"],
        actor=ACTOR,
    )
    return reload(task)


def todo(task: Task, todos: list[dict[str, str]]) -> None:
    """The bound session's todo, as the PostToolUse hook of TodoWrite writes it."""
    session_services.task_bind_session(task=task, session="alice", actor="tester")
    session_services.session_touch(session="alice", hook_session=AGENT_ID, actor="tester")
    hook_event(
        payload=payload(
            "PostToolUse.Bash",
            session_id=AGENT_ID,
            tool_name="TodoWrite",
            tool_input={"todos": todos},
        )
    )


# --- what the tab shows ----------------------------------------------------------------------


def test_the_dialog_has_the_plan_tab_between_overview_and_review(web) -> None:
    task = planned()
    html = web.get(f"/p/acme/t/{task.key}/dialog?tab=plan").content.decode()
    tabs = [t for t in ("td-tab-overview", "td-tab-plan", "td-tab-review") if t in html]
    assert tabs[:2] == ["td-tab-overview", "td-tab-plan"]
    assert html.index("td-tab-overview") < html.index("td-tab-plan")
    assert f'id="plan-panel-{task.key}"' in html
    page = web.get(f"/t/{task.key}").content.decode()
    assert 'id="tp-plan-title"' in page
    assert f'id="plan-panel-{task.key}"' in page


def test_a_draft_plan_shows_the_accept_button_counts_deviation_and_checkpoints(web) -> None:
    task = planned()
    report = add_report(task)
    services.plan_step_update(
        key=task.key, step=1, status="done", conformance="as planned", link=str(report.id),
        outcome="model ready", actor=ACTOR,
    )  # fmt: skip
    services.plan_step_update(
        key=task.key, step=2, status="done", conformance="deviation: no pagination",
        link="https://example.com/pr/7", actor=ACTOR,
    )  # fmt: skip
    services.plan_step_update(key=task.key, step=3, status="in_progress", actor=ACTOR)

    html = panel_html(web, task)

    assert ">Draft<" in html
    assert ">Accept plan</button>" in html
    assert f'hx-post="{accept_url(task)}"' in html
    assert 'name="csrf_token"' in html
    assert "2 of 4 done · 1 deviation" in html
    assert "<strong>why</strong> the model" in html
    assert f'href="/t/{task.key}#report-{report.id}">report #{report.id}</a>' in html
    assert 'href="https://example.com/pr/7" rel="noopener noreferrer"' in html
    assert "model ready" in html
    assert "as planned" in html
    assert f'id="plan-step-{task.key}-2" data-status="done"' in html
    assert 'class="pl-step is-done is-deviation"' in html
    assert 'class="pl-step is-in_progress is-current"' in html
    assert ">in progress<" in html


def test_an_accepted_plan_shows_who_and_when_and_no_button(web) -> None:
    task = planned()
    services.plan_accept(key=task.key, actor="coordinator")
    html = panel_html(web, task)
    assert ">Accepted<" in html
    assert "by coordinator" in html
    assert 'title="20' in html  # the exact UTC time on hover
    assert "Accept plan" not in html


def test_now_doing_and_the_todo_sit_under_the_first_step_not_done(web) -> None:
    task = planned()
    services.plan_step_update(
        key=task.key, step=1, status="done", conformance="as planned", actor=ACTOR
    )
    todo(
        task,
        [
            {"content": "Write the model", "status": "completed", "activeForm": "Writing it"},
            {"content": "Wire the API", "status": "in_progress", "activeForm": "Wiring the API"},
            {"content": "Test it", "status": "pending", "activeForm": "Testing"},
        ],
    )
    html = panel_html(web, task)
    step2 = html.index(f'id="plan-step-{task.key}-2"')
    step3 = html.index(f'id="plan-step-{task.key}-3"')
    now = html.index("Now doing:")
    assert step2 < now < step3
    assert '<span class="pl-now-text">Wiring the API</span>' in html
    assert '<details class="pl-todo" data-keep-open="todo">' in html  # collapsed
    assert "(1 of 3 done)" in html
    assert 'data-live-session="alice"' in html


def test_without_steps_the_todo_is_the_agents_plan_not_accepted(web) -> None:
    task = make_task(make_project("acme"))
    todo(task, [{"content": "Read the code", "status": "in_progress", "activeForm": "Reading"}])
    html = panel_html(web, task)
    assert "Agent's plan, not accepted" in html
    assert "Read the code" in html
    assert "Accept plan" not in html


def test_without_steps_or_todo_a_note_says_how_the_agent_writes_a_plan(web) -> None:
    task = make_task(make_project("acme"))
    html = panel_html(web, task)
    assert "No plan yet" in html
    assert "<code>plan_set</code>" in html
    assert "History" not in html


def test_history_lists_revisions_newest_first_with_title_changes(web) -> None:
    task = planned(steps=["Model", "API"])
    services.plan_set(
        key=task.key, steps=["Model", "REST API", "Docs"], actor="bob", reason="split"
    )
    html = panel_html(web, task)
    assert "History (2)" in html
    first, second = html.index("split"), html.index("plan written")
    assert first < second
    changes = html[first:second]
    assert "<code>- 2. API</code>" in changes
    assert "<code>+ 2. REST API</code>" in changes
    assert "<code>+ 3. Docs</code>" in changes
    assert "- 1. Model" not in changes
    assert "bob" in changes
    assert "<code>+ 1. Model</code>" in html[second:]


def test_title_changes_name_removed_and_added_positions() -> None:
    lines = panels.title_changes(["A", "B", "C"], ["A", "X"])
    assert [f"{d.sign} {d.text}" for d in lines] == ["- 2. B", "+ 2. X", "- 3. C"]


def test_agent_text_is_escaped_everywhere(web) -> None:
    task = planned(steps=[{"title": EVIL, "details": EVIL}, "Two"])
    services.plan_step_update(
        key=task.key, step=1, status="done", conformance=f"deviation: {EVIL}", outcome=EVIL,
        actor=ACTOR,
    )  # fmt: skip
    services.plan_step_update(key=task.key, step=2, status="in_progress", actor=ACTOR)
    todo(task, [{"content": EVIL, "status": "in_progress", "activeForm": EVIL}])
    html = panel_html(web, task)
    assert "<script>" not in html
    assert "<img" not in html
    assert "&lt;script&gt;" in html


def test_the_query_count_stays_flat_with_more_steps(web) -> None:
    small = planned(steps=["One", "Two"])
    big = make_task(make_project("big"))
    services.plan_set(key=big.key, steps=[f"Step {n}" for n in range(1, 31)], actor=ACTOR)
    for n in range(1, 11):
        services.plan_step_update(
            key=big.key, step=n, status="done", conformance="as planned", actor=ACTOR
        )
    panel_html(web, small)  # warm up
    with CaptureQueriesContext(connection) as few:
        panel_html(web, small)
    with CaptureQueriesContext(connection) as many:
        panel_html(web, big)
    assert len(many) == len(few)


# --- Accept plan -----------------------------------------------------------------------------


def test_accept_plan_with_the_cookie_and_csrf_answers_the_panel_and_writes_the_event(web) -> None:
    task = planned()
    response = web.post(accept_url(task), **write_headers(htmx=True))
    assert response.status_code == 200
    html = response.content.decode()
    assert ">Accepted<" in html
    assert "by owner" in html
    assert reload(task).plan_status == "accepted"
    event = Event.objects.filter(task=task, kind="plan.accepted").get()
    assert event.actor == "owner"
    assert event.payload == {"by": "owner"}


def test_a_plain_form_post_redirects_to_the_task_page(web) -> None:
    task = planned()
    response = web.post(
        accept_url(task), {"csrf_token": tokens.csrf_token(current_token())},
        HTTP_SEC_FETCH_SITE="same-origin",
    )  # fmt: skip
    assert response.status_code == 303
    assert response["Location"] == f"/t/{task.key}"
    assert reload(task).plan_status == "accepted"


def test_accept_plan_without_csrf_is_refused(web) -> None:
    task = planned()
    response = web.post(accept_url(task), **write_headers(csrf=False))
    assert response.status_code == 403
    assert reload(task).plan_status == "draft"
    assert not Event.objects.filter(kind="plan.accepted").exists()


def test_accept_plan_with_the_bearer_token_is_refused(client) -> None:
    task = planned()
    response = client.post(accept_url(task), HTTP_AUTHORIZATION=f"Bearer {current_token()}")
    assert response.status_code == 403
    assert "board" in response.content.decode()
    assert reload(task).plan_status == "draft"
    assert not Event.objects.filter(kind="plan.accepted").exists()


def test_accepting_a_task_without_a_plan_shows_why_in_the_panel(web) -> None:
    task = make_task(make_project("acme"))
    response = web.post(accept_url(task), **write_headers(htmx=True))
    assert response.status_code == 200
    assert "has no plan to accept" in response.content.decode()
    plain = web.post(accept_url(task), **write_headers())
    assert plain.status_code == 400


def test_accept_plan_of_a_task_of_another_project_is_404(web) -> None:
    task = planned()
    make_project("other")
    response = web.post(f"/p/other/t/{task.key}/plan/accept", **write_headers(htmx=True))
    assert response.status_code == 404
    assert reload(task).plan_status == "draft"
