"""The comment thread of the task dialog and page, its writes and the Inbox group "Agent
replies" through Django's test client (§2 Comments, §2 Inbox, §9.6 CSRF, §9.8 untrusted text).

Data is made through services; the board's writes are posted the way htmx sends them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from core import tokens
from core.config import load_config
from core.security import COOKIE_NAME, current_token
from sessions import services as session_services
from tasks import services
from tasks.models import Comment, Event, Task
from tests.tasks.factories import ACTOR, make_project, make_task

pytestmark = pytest.mark.django_db

AGENT_ID = "78a6a9df-545d-4090-8a48-00105ebe22e7"
XSS = '<script>alert(1)</script> <img src=x onerror="alert(2)">'
BASE = "/p/acme-shop/t/acme-shop-1/comments"


@pytest.fixture
def web(client):
    """Signed in with the board cookie; `web.write(url, data)` posts like htmx does."""
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    headers = {
        "X-Relaybay-CSRF": tokens.csrf_token(current_token()),
        "Sec-Fetch-Site": "same-origin",
        "HX-Request": "true",
    }

    def write(url: str, data: dict[str, Any], htmx: bool = True, **changes: Any):
        sent = {**headers, **changes}
        if not htmx:
            sent.pop("HX-Request")
        return client.post(url, data, headers={k: v for k, v in sent.items() if v is not None})

    client.write = write
    return client


def task_of(*, bound: str | None = "alice", exact: bool = True) -> Task:
    task = make_task(make_project("acme-shop"), title="Login with 2FA")
    if bound:
        hook = AGENT_ID if exact else None
        session_services.session_touch(session=bound, hook_session=hook, actor=bound)
        session_services.task_bind_session(task=task, session=bound, actor=ACTOR)
    return task


def html(response) -> str:
    return response.content.decode()


def thread_html(web) -> str:
    response = web.get(f"{BASE}/thread")
    assert response.status_code == 200
    return html(response)


def items(page: str) -> list[str]:
    """The comment ids of a rendered thread, in page order."""
    return re.findall(r'data-comment-id="(\d+)"', page)


# --- the panel and the thread ---------------------------------------------------------------


def test_the_task_dialog_has_the_comment_thread_and_box(web):
    task_of()
    page = html(web.get("/p/acme-shop/t/acme-shop-1/dialog"))
    assert 'id="panel-comments"' in page
    assert 'id="comments-thread-acme-shop-1"' in page
    assert f'hx-post="{BASE}"' in page
    assert 'name="csrf_token"' in page
    assert 'maxlength="4000"' in page


def test_the_task_page_has_the_comment_thread_and_the_panel_refreshes_alone(web):
    task_of()
    assert 'id="comment-form-acme-shop-1"' in html(web.get("/t/acme-shop-1"))
    fragment = web.get("/p/acme-shop/t/acme-shop-1/panel/comments")
    assert fragment.status_code == 200
    assert 'id="comment-form-acme-shop-1"' in html(fragment)
    assert 'hx-preserve="true"' in html(fragment)  # a refresh never replaces a draft


def test_the_thread_lists_comments_oldest_first_with_their_states(web):
    task = task_of()
    alice = session_services.session_touch(session="alice", actor="alice").session
    first = services.owner_comment_add(key=task.key, body="First **remark**").obj
    second = services.owner_comment_add(key=task.key, body="Second").obj
    services.comments_deliver(
        comment_ids=[first.id], session_id=alice.id, session_name="alice", via="PostToolUse"
    )
    answer = services.comment_add(
        key=task.key, body="Done", actor="alice", in_reply_to=first.id
    ).obj

    page = thread_html(web)

    assert items(page) == [str(first.id), str(second.id), str(answer.id)]
    blocks = page.split('data-comment-id="')[1:]
    assert "<strong>remark</strong>" in blocks[0]
    assert "sent <time" in blocks[0]
    assert re.search(r"delivered <time [^>]*>just now</time> to alice", blocks[0])
    assert re.search(r"read <time [^>]*>just now</time>", blocks[0])
    assert "not delivered yet" in blocks[1]
    assert "read <time" not in blocks[1]
    assert '<span class="cm-author">alice</span>' in blocks[2]
    assert "unread" in blocks[2]
    assert f"↩ #{first.id}" in blocks[2]
    # The exact UTC time on hover.
    assert re.search(r'title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"', blocks[0])


def test_the_note_says_where_a_new_comment_goes(web):
    task_of(bound=None)
    assert "No session is bound to acme-shop-1: a new comment waits" in thread_html(web)


def test_the_note_names_the_bound_session(web):
    task_of()
    assert "New comments go to alice, with its next hook event." in thread_html(web)


def test_the_note_says_when_the_bound_session_has_not_linked_its_hooks(web):
    task_of(exact=False)
    assert "they reach its agent once it links its hook session" in thread_html(web)


def test_the_thread_refreshes_itself_on_comment_events_only_for_live_updates(web):
    task_of()
    page = thread_html(web)
    assert 'hx-get="/p/acme-shop/t/acme-shop-1/comments/thread"' in page
    for kind in ("rbp-comment-added", "rbp-comment-delivered", "rbp-comment-read"):
        assert f"{kind} from:body" in page
    assert "<form" not in page.split('class="cm-mark-read"')[0]  # the box is not in it


def test_an_unknown_task_is_a_404(web):
    make_project("acme-shop")
    assert web.get(f"{BASE}/thread").status_code == 404
    assert web.write(BASE, {"body": "x"}).status_code == 404
    assert not Comment.objects.exists()


# --- sending a comment --------------------------------------------------------------------------


def test_sending_a_comment_writes_it_as_the_owner_and_empties_the_box(web):
    task_of()
    response = web.write(BASE, {"body": "Please add a test."})

    assert response.status_code == 200
    page = html(response)
    c = Comment.objects.get()
    assert (c.author_kind, c.author_name, c.body) == ("owner", "owner", "Please add a test.")
    assert f'data-comment-id="{c.id}"' in page
    assert re.search(r"<textarea[^>]*></textarea>", page)  # empty again
    assert 'hx-preserve="true"' not in page  # the sent text must be replaced
    event = Event.objects.get(kind="comment.added")
    assert event.actor == "owner"
    assert event.payload["session"] == "alice"


def test_sending_a_comment_marks_the_tasks_replies_read(web):
    task = task_of()
    reply = services.comment_add(key=task.key, body="Question?", actor="alice").obj
    web.write(BASE, {"body": "Answer."})
    assert Comment.objects.get(pk=reply.pk).read_by == "owner"


@pytest.mark.parametrize(("body", "message"), [("   ", "body is empty"), ("x" * 4001, "4000")])
def test_a_refused_comment_keeps_the_draft_and_says_why(web, body, message):
    task_of()
    response = web.write(BASE, {"body": body})
    assert response.status_code == 200  # htmx swaps only 2xx answers
    page = html(response)
    assert message in page
    assert 'role="alert"' in page
    assert body.strip()[:50] in page
    assert "data-unsaved" in page
    assert not Comment.objects.exists()


def test_without_scripts_a_comment_redirects_back_and_a_refusal_is_a_400(web):
    task_of()
    sent = web.write(BASE, {"body": "Plain form"}, htmx=False)
    assert sent.status_code == 303
    assert sent["Location"] == "/t/acme-shop-1#comments-acme-shop-1"
    refused = web.write(BASE, {"body": ""}, htmx=False)
    assert refused.status_code == 400
    assert "body is empty" in html(refused)
    assert Comment.objects.count() == 1


@pytest.mark.parametrize(
    "changes",
    [
        {"X-Relaybay-CSRF": None},
        {"X-Relaybay-CSRF": "forged"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "http://evil.example"},
    ],
)
def test_a_write_without_the_csrf_token_or_from_another_site_is_refused(web, changes):
    task = task_of()
    services.comment_add(key=task.key, body="reply", actor="alice")
    assert web.write(BASE, {"body": "sneaky"}, **changes).status_code == 403
    assert web.write(f"{BASE}/read", {}, **changes).status_code == 403
    assert Comment.objects.count() == 1
    assert Comment.objects.get().read_at is None


def test_the_csrf_token_in_the_form_field_is_enough(web):
    task_of()
    token = tokens.csrf_token(current_token())
    response = web.write(
        BASE, {"body": "via field", "csrf_token": token}, **{"X-Relaybay-CSRF": None}
    )
    assert response.status_code == 200
    assert Comment.objects.get().body == "via field"


def test_the_thread_and_the_writes_need_the_board_sign_in(client):
    task_of()
    assert client.get(f"{BASE}/thread").status_code == 302
    assert client.post(BASE, {"body": "x"}).status_code == 401
    assert not Comment.objects.exists()


# --- Mark replies read ----------------------------------------------------------------------------


def test_mark_replies_read_marks_them_and_answers_the_thread(web):
    task = task_of()
    for text in ("one", "two"):
        services.comment_add(key=task.key, body=text, actor="alice")
    page = thread_html(web)
    assert "Mark replies read (2)" in page

    response = web.write(f"{BASE}/read", {})

    assert response.status_code == 200
    assert "Mark replies read" not in html(response)
    assert ">unread<" not in html(response)
    assert not Comment.objects.filter(read_at__isnull=True).exists()
    event = Event.objects.get(kind="comment.read")
    assert event.payload["reason"] == "owner"
    assert event.actor == "owner"


# --- untrusted text -------------------------------------------------------------------------------


def test_agent_text_and_names_are_escaped_in_the_thread(web):
    task = task_of()
    services.comment_add(key=task.key, body=XSS, actor="<b>mallory</b>")
    services.owner_comment_add(key=task.key, body="**ok** <script>x()</script>")
    page = thread_html(web)
    assert "<script>" not in page
    assert "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "onerror" in page  # shown as text …
    assert '<img src=x onerror="alert(2)">' not in page  # … never as an element
    assert "&lt;b&gt;mallory&lt;/b&gt;" in page
    assert "<strong>ok</strong>" in page


# --- the Inbox group "Agent replies" -----------------------------------------------------------


def test_the_inbox_lists_tasks_with_unread_replies_with_the_newest_one(web):
    task = task_of()
    services.comment_add(key=task.key, body="older reply", actor="alice")
    services.comment_add(key=task.key, body=XSS, actor="bob")
    other = make_task(task.project, title="Quiet task")
    services.owner_comment_add(key=other.key, body="owner text is not a reply")

    page = html(web.get("/inbox"))

    assert 'id="inbox-agent-replies"' in page
    group = page.split('id="inbox-agent-replies"')[1].split("</section>")[0]
    assert "acme-shop-1" in group
    assert "Quiet task" not in group
    assert "bob: &lt;script&gt;alert(1)&lt;/script&gt;" in group
    assert "(+1 more)" in group
    assert "<script>" not in page
    assert 'href="/p/acme-shop?task=acme-shop-1"' in group


def test_a_read_reply_leaves_the_inbox(web):
    task = task_of()
    services.comment_add(key=task.key, body="reply", actor="alice")
    web.write(f"{BASE}/read", {})
    assert 'id="inbox-agent-replies"' not in html(web.get("/inbox"))


def test_archived_done_tasks_are_left_out_of_agent_replies(web, settings, tmp_path):
    task = task_of()
    services.comment_add(key=task.key, body="late reply", actor="alice")
    services.task_set_stage(key=task.key, stage="done", actor=ACTOR)
    # A done window of 0 days archives a task the moment it is closed.
    settings.RELAYBAY = load_config(
        environ={"RELAYBAY_HOME": str(tmp_path), "RELAYBAY_DONE_WINDOW_DAYS": "0"}
    )
    assert 'id="inbox-agent-replies"' not in html(web.get("/inbox"))
