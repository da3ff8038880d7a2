"""Screenshots on the Review tab (§2 Review tab) through Django's test client: thumbnails
with escaped captions, "Other screenshots", the confirmed Remove and the Ctrl+V paste
(raw body, X-Relaybay-CSRF, board-only, the same checks as attach_file, 413 over the limit).

Images are generated with zlib/struct (tests/reviews/images.py).
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from django.conf import settings

from core import tokens
from core.security import COOKIE_NAME, current_token
from reviews import services
from reviews.models import Attachment
from tasks.models import Event, Task
from tests.reviews import images
from tests.tasks.factories import ACTOR, make_project, make_task, reload

pytestmark = pytest.mark.django_db

EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)">'


@pytest.fixture
def web(client):
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client


def bearer() -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {current_token()}"}


def write_headers(htmx: bool = True, csrf: bool = True) -> dict[str, str]:
    headers = {"HTTP_SEC_FETCH_SITE": "same-origin"}
    if csrf:
        headers["HTTP_X_RELAYBAY_CSRF"] = tokens.csrf_token(current_token())
    if htmx:
        headers["HTTP_HX_REQUEST"] = "true"
    return headers


def checked() -> Task:
    task = make_task(make_project("acme"), title="Login")
    services.review_steps_set(key=task.key, steps=["Login with 2FA", "Logout"], actor=ACTOR)
    return reload(task)


def attach(task: Task, shade: int, step: int | None = None, caption: str = "") -> Attachment:
    data = base64.b64encode(images.png(shade=shade)).decode()
    return services.attach_file(
        key=task.key, actor=ACTOR, content_base64=data, step=step, caption=caption
    ).obj


def panel_html(client, task: Task) -> str:
    response = client.get(f"/p/{task.project.slug}/t/{task.key}/panel/review")
    assert response.status_code == 200
    return response.content.decode()


def paste_url(task: Task, step: int) -> str:
    return f"/p/{task.project.slug}/t/{task.key}/review/{step}/paste"


def remove_url(task: Task, shot: Attachment) -> str:
    return f"/p/{task.project.slug}/t/{task.key}/review/shot/{shot.id}/remove"


def paste(client, task: Task, step: int, data: bytes, kind: str = "image/png", **headers: Any):
    return client.post(
        paste_url(task, step), data=data, content_type=kind, **(headers or write_headers())
    )


# --- thumbnails --------------------------------------------------------------------------


def test_thumbnails_sit_in_their_step_with_escaped_markdown_captions(web) -> None:
    task = checked()
    one = attach(task, 1, step=2, caption=f"The **menu** {EVIL}")
    two = attach(task, 2, step=1, caption="first")
    other = attach(task, 3, caption="*general*")

    html = panel_html(web, task)

    assert f'<img src="/files/{one.id}"' in html
    assert f'<img src="/files/{two.id}"' in html
    assert "<strong>menu</strong>" in html
    assert "<script>alert(1)</script>" not in html
    assert 'onerror="alert(2)"' not in html
    step1 = html.index(f'id="review-step-{task.key}-1"')
    step2 = html.index(f'id="review-step-{task.key}-2"')
    assert step1 < html.index(f"/files/{two.id}") < step2 < html.index(f"/files/{one.id}")
    assert html.index("Other screenshots") < html.index(f'<img src="/files/{other.id}"')
    assert "<em>general</em>" in html
    # Numbered across the task in the order shown: step 1, step 2, then the others.
    assert 'data-viewer-shot="1" aria-label="Open screenshot 1 of 3"' in html
    assert html.index(f"/files/{two.id}") < html.index('data-viewer-shot="2"')
    assert f'data-paste-url="{paste_url(task, 1)}"' in html
    assert html.count("Yes, remove</button>") == 3


def test_without_screenshots_there_is_no_other_section(web) -> None:
    task = checked()
    html = panel_html(web, task)
    assert "Other screenshots" not in html
    assert "rv-shots" not in html


def test_the_file_of_a_thumbnail_is_served(web) -> None:
    task = checked()
    shot = attach(task, 4, step=1)
    response = web.get(f"/files/{shot.id}")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"


# --- Remove ------------------------------------------------------------------------------


def test_remove_with_the_cookie_and_csrf_answers_the_panel(web) -> None:
    task = checked()
    shot = attach(task, 5, step=1, caption="gone soon")
    response = web.post(remove_url(task, shot), {}, **write_headers())
    assert response.status_code == 200
    html = response.content.decode()
    assert f'id="review-panel-{task.key}"' in html
    assert "gone soon" not in html
    assert not Attachment.objects.filter(id=shot.id).exists()
    last = Event.objects.filter(task=task).order_by("id").last()
    assert last.kind == "attachment.removed"
    assert last.actor == "owner"


def test_remove_without_htmx_redirects_to_the_task_page(web) -> None:
    task = checked()
    shot = attach(task, 6)
    response = web.post(remove_url(task, shot), {}, **write_headers(htmx=False))
    assert response.status_code == 303
    assert not Attachment.objects.filter(id=shot.id).exists()


def test_remove_is_refused_with_a_bearer_token_and_without_csrf(web, client) -> None:
    task = checked()
    shot = attach(task, 7)
    refused = web.post(remove_url(task, shot), {}, **write_headers(csrf=False))
    assert refused.status_code == 403
    client.cookies.clear()
    with_bearer = client.post(remove_url(task, shot), {}, **bearer())
    assert with_bearer.status_code == 403
    assert "Bearer" in with_bearer.content.decode()
    assert Attachment.objects.filter(id=shot.id).exists()


def test_remove_of_another_tasks_screenshot_is_404(web) -> None:
    task = checked()
    other = make_task(make_project("acme"), title="Other")
    shot = attach(other, 8)
    response = web.post(remove_url(task, shot), {}, **write_headers(htmx=False))
    assert response.status_code == 404
    assert Attachment.objects.filter(id=shot.id).exists()


# --- Ctrl+V paste ------------------------------------------------------------------------


def test_pasted_png_bytes_become_a_screenshot_of_that_step(web) -> None:
    task = checked()
    response = paste(web, task, 2, images.png(shade=9))
    assert response.status_code == 200
    shot = Attachment.objects.get(task=task)
    assert shot.step.position == 2
    assert shot.content_type == "image/png"
    assert shot.created_by == "owner"
    assert f'<img src="/files/{shot.id}"' in response.content.decode()


def test_pasted_svg_bytes_are_refused_with_the_reason(web) -> None:
    task = checked()
    response = paste(web, task, 1, images.SVG, kind="image/png")
    assert response.status_code == 400
    assert "not a" in response.content.decode()
    assert not Attachment.objects.filter(task=task).exists()


def test_a_paste_over_the_limit_is_413_with_the_reason(web, monkeypatch) -> None:
    monkeypatch.setitem(settings.RELAYBAY._values, "attachments_max_mb", 1)
    task = checked()
    big = images.png(shade=10) + b"\0" * (1024 * 1024)
    response = paste(web, task, 1, big)
    assert response.status_code == 413
    assert "attachments_max_mb" in response.content.decode()
    assert not Attachment.objects.filter(task=task).exists()


def test_a_paste_to_a_missing_step_is_404(web) -> None:
    task = checked()
    response = paste(web, task, 9, images.png(shade=11))
    assert response.status_code == 404


def test_a_paste_is_refused_with_a_bearer_token_and_without_csrf(web, client) -> None:
    task = checked()
    no_csrf = paste(web, task, 1, images.png(shade=12), **write_headers(csrf=False))
    assert no_csrf.status_code == 403
    client.cookies.clear()
    with_bearer = paste(client, task, 1, images.png(shade=12), **bearer())
    assert with_bearer.status_code == 403
    assert not Attachment.objects.filter(task=task).exists()
