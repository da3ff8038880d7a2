"""The Review tab (§2 Review tab) and its per-step decisions through Django's test client.

Data is made through the services (tasks.services, reviews.services.review_steps_set).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core import tokens
from core.security import COOKIE_NAME, current_token
from reviews import services
from reviews.models import ReviewStep
from tasks.models import Comment, Event, Task
from tests.tasks.factories import ACTOR, make_project, make_task, reload

pytestmark = pytest.mark.django_db

EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)">'


@pytest.fixture
def web(client):
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client


def write_headers(htmx: bool = False, csrf: bool = True) -> dict[str, str]:
    headers = {"HTTP_SEC_FETCH_SITE": "same-origin"}
    if csrf:
        headers["HTTP_X_RELAYBAY_CSRF"] = tokens.csrf_token(current_token())
    if htmx:
        headers["HTTP_HX_REQUEST"] = "true"
    return headers


def checked(title: str = "Login", steps: list[Any] | None = None) -> Task:
    task = make_task(make_project("acme"), title=title)
    services.review_steps_set(
        key=task.key,
        steps=steps
        or [
            {"title": "Login with 2FA", "details": "Open **/login**, enter the code."},
            "Logout",
            "Password reset",
        ],
        actor=ACTOR,
    )
    return reload(task)


def panel_html(client, task: Task) -> str:
    response = client.get(f"/p/{task.project.slug}/t/{task.key}/panel/review")
    assert response.status_code == 200
    return response.content.decode()


def decide_url(task: Task, step: int) -> str:
    return f"/p/{task.project.slug}/t/{task.key}/review/{step}/decide"


def decide(client, task: Task, step: int, htmx: bool = True, **data: str):
    return client.post(decide_url(task, step), data, **write_headers(htmx=htmx))


def statuses(task: Task) -> list[str]:
    return list(
        ReviewStep.objects.filter(task=task).order_by("position").values_list("status", flat=True)
    )


def owner_bodies(task: Task) -> list[str]:
    rows = Comment.objects.filter(task=task, author_kind="owner").order_by("id")
    return [c.body for c in rows]


# --- what the tab shows ----------------------------------------------------------------------


def test_the_dialog_has_the_review_tab_after_plan_and_the_page_a_review_section(web) -> None:
    task = checked()
    html = web.get(f"/p/acme/t/{task.key}/dialog?tab=review").content.decode()
    assert html.index("td-tab-overview") < html.index("td-tab-plan") < html.index("td-tab-review")
    assert f'id="review-panel-{task.key}"' in html
    page = web.get(f"/t/{task.key}").content.decode()
    assert f'id="review-panel-{task.key}"' in page


def test_the_panel_shows_counts_steps_details_and_the_forms(web) -> None:
    task = checked()
    services.review_step_decide(key=task.key, step=1, decision="accept")
    services.review_step_decide(key=task.key, step=2, decision="reject", comment="broken")

    html = panel_html(web, task)

    assert "1 of 3 accepted · 1 rejected" in html
    assert html.index("Login with 2FA") < html.index("Logout") < html.index("Password reset")
    assert "What, how and why" in html
    assert "<strong>/login</strong>" in html
    assert f'id="review-step-{task.key}-1"' in html
    assert 'class="rv-step is-accepted"' in html
    assert 'class="rv-step is-rejected"' in html
    assert f'id="review-accept-{task.key}-1" checked' in html
    assert f'id="review-accept-{task.key}-2">' in html
    assert "by owner" in html
    assert f'hx-post="{decide_url(task, 1)}"' in html
    assert 'hx-trigger="change"' in html
    assert html.count('name="csrf_token"') == 6
    for word in ("Comment", "Reject", "Accept"):
        assert f">{word}</button>" in html
    assert "<noscript>" in html


def test_without_steps_a_note_names_review_steps_set(web) -> None:
    task = make_task(make_project("acme"))
    html = panel_html(web, task)
    assert "No Owner check yet" in html
    assert "<code>review_steps_set</code>" in html
    assert "accepted" not in html.split("No Owner check")[0].split("data-review-panel")[-1]


def test_agent_text_is_escaped_and_details_go_through_the_safe_markdown(web) -> None:
    task = checked(steps=[{"title": EVIL, "details": EVIL}])
    html = panel_html(web, task)
    assert "<script>alert(1)" not in html
    assert "<img src=x" not in html
    assert "&lt;script&gt;" in html


def test_query_count_is_flat_with_more_steps(web) -> None:
    small = checked("Small", ["One"])
    big = make_task(make_project("acme"), title="Big")
    services.review_steps_set(key=big.key, steps=[f"Step {i}" for i in range(12)], actor=ACTOR)
    for i in range(1, 7):
        services.review_step_decide(key=big.key, step=i, decision="accept")
    big = reload(big)
    panel_html(web, small)
    with CaptureQueriesContext(connection) as few:
        panel_html(web, small)
    with CaptureQueriesContext(connection) as many:
        panel_html(web, big)
    assert len(many) == len(few)


# --- the owner's decisions -------------------------------------------------------------------


def test_the_checkbox_accepts_and_unchecking_reopens(web) -> None:
    task = checked()
    response = decide(web, task, 2, toggle="1", accepted="1")
    assert response.status_code == 200
    assert "1 of 3 accepted" in response.content.decode()
    assert f'id="review-panel-{task.key}"' in response.content.decode()
    assert statuses(task) == ["open", "accepted", "open"]
    assert owner_bodies(task) == ["Step 2 'Logout' accepted — continue with step 3"]
    event = Event.objects.get(kind="review.step_accepted")
    assert event.actor == "owner"
    assert event.payload["position"] == 2

    response = decide(web, task, 2, toggle="1")
    assert response.status_code == 200
    assert "0 of 3 accepted" in response.content.decode()
    assert statuses(task) == ["open", "open", "open"]
    assert owner_bodies(task)[-1] == "Step 2 'Logout' reopened"
    reopened = Event.objects.filter(kind="review.step_updated", actor="owner").get()
    assert reopened.payload["previous"] == "accepted"


def test_accepting_the_last_step_says_all_accepted(web) -> None:
    task = checked()
    decide(web, task, 1, toggle="1", accepted="1")
    decide(web, task, 2, decision="accept")
    response = decide(web, task, 3, decision="accept", comment="looks good")
    assert "3 of 3 accepted" in response.content.decode()
    assert owner_bodies(task) == [
        "Step 1 'Login with 2FA' accepted — continue with step 2",
        "Step 2 'Logout' accepted — continue with step 3",
        "Step 3 'Password reset' accepted — all 3 steps accepted\n\nlooks good",
    ]


def test_reject_with_a_comment_and_a_plain_comment(web) -> None:
    task = checked()
    response = decide(web, task, 1, decision="reject", comment="The code field is missing")
    assert "0 of 3 accepted · 1 rejected" in response.content.decode()
    decide(web, task, 3, decision="comment", comment="Use the staging mail")
    assert owner_bodies(task) == [
        "Step 1 'Login with 2FA' rejected: The code field is missing",
        "On step 3 'Password reset': Use the staging mail",
    ]
    rejected = Event.objects.get(kind="review.step_rejected")
    assert rejected.actor == "owner"
    comment = Comment.objects.filter(task=task).order_by("id").first()
    assert comment.step_id == ReviewStep.objects.get(task=task, position=1).id
    assert statuses(task) == ["rejected", "open", "open"]


def test_a_double_submit_writes_nothing_more(web) -> None:
    task = checked()
    decide(web, task, 1, toggle="1", accepted="1")
    comments, events = Comment.objects.count(), Event.objects.count()
    again = decide(web, task, 1, toggle="1", accepted="1")
    assert again.status_code == 200
    assert "1 of 3 accepted" in again.content.decode()
    decide(web, task, 2, toggle="1")  # already open
    assert (Comment.objects.count(), Event.objects.count()) == (comments, events)


def test_an_empty_comment_says_why_and_writes_nothing(web) -> None:
    task = checked()
    response = decide(web, task, 2, decision="comment", comment="  ")
    assert response.status_code == 200
    assert "comment is empty" in response.content.decode()
    assert not Comment.objects.exists()
    plain = decide(web, task, 2, htmx=False, decision="comment")
    assert plain.status_code == 400


def test_a_plain_post_answers_303_to_the_task_page(web) -> None:
    task = checked()
    response = decide(web, task, 1, htmx=False, toggle="1", accepted="1")
    assert response.status_code == 303
    assert response["Location"].startswith(f"/t/{task.key}")
    assert statuses(task)[0] == "accepted"


def test_an_unknown_step_is_404(web) -> None:
    task = checked()
    assert decide(web, task, 9, htmx=False, decision="accept").status_code == 404


def test_refused_without_csrf(web) -> None:
    task = checked()
    response = web.post(decide_url(task, 1), {"decision": "accept"}, **write_headers(csrf=False))
    assert response.status_code == 403
    assert statuses(task) == ["open", "open", "open"]
    assert not Comment.objects.exists()


def test_refused_with_a_bearer_token(client) -> None:
    task = checked()
    response = client.post(
        decide_url(task, 1),
        {"decision": "accept"},
        HTTP_AUTHORIZATION=f"Bearer {current_token()}",
    )
    assert response.status_code == 403
    assert statuses(task) == ["open", "open", "open"]
    assert not Event.objects.filter(kind="review.step_accepted").exists()
