"""The board's Approve and Deny (sessions/approvals/views.py) on a real SQLite database: the
owner's writes (cookie and CSRF; the Bearer token refused 403 with its reason, so an agent
never answers its own request, and no MCP tool decides), a second answer 409 in the
service's words, a message too long 400 naming the limit, nothing lost; and where the owner
sees a request: the Inbox's first group and its badge, the task's card and Session panel,
Activity's lines, the notification's lookup."""

from __future__ import annotations

import asyncio
import re

import pytest
from django.db import transaction
from django.test import Client

from core import tokens
from core.security import COOKIE_NAME, current_token
from sessions import services as session_services
from sessions.approvals import services as approvals
from sessions.models import ApprovalRequest
from tasks.models import Event
from tasks.selectors import inbox as inbox_selectors
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db

EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)">'


@pytest.fixture
def web(client: Client) -> Client:
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client


@pytest.fixture(autouse=True)
def _fresh_badge():
    inbox_selectors.forget_badge()
    yield
    inbox_selectors.forget_badge()


def write_headers(htmx: bool = False) -> dict[str, str]:
    headers = {
        "HTTP_X_RELAYBAY_CSRF": tokens.csrf_token(current_token()),
        "HTTP_SEC_FETCH_SITE": "same-origin",
    }
    if htmx:
        headers["HTTP_HX_REQUEST"] = "true"
    return headers


def bearer() -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {current_token()}"}


def ask(
    *, summary: str = "./deploy.sh test", source: str = "guard", title: str = "Ship it"
) -> ApprovalRequest:
    """A guard's ask held for the owner, as the hook stores it (inside its transaction)."""
    project = make_project("acme-shop")
    task = make_task(project, title=title)
    session_services.task_bind_session(task=task, session="alice", actor="agent-x")
    alice = session_services.session_touch(session="alice", actor="agent-x").session
    alice.agent = "claude-code"
    asked = approvals.Asked(
        agent="claude-code",
        agent_session_id="cc-1",
        source=source,
        tool="Bash",
        summary=summary,
        stand="test" if source == "guard" else "",
        level="ask" if source == "guard" else "",
        rule="deploy" if source == "guard" else "",
    )
    with transaction.atomic():
        return approvals.approval_requested_step(
            asked, session=alice, task=task, seconds=540, actor="hook"
        )


def approve_url(request: ApprovalRequest) -> str:
    return f"/approvals/{request.pk}/approve"


def deny_url(request: ApprovalRequest) -> str:
    return f"/approvals/{request.pk}/deny"


def state(request: ApprovalRequest) -> tuple[str, str, str]:
    request.refresh_from_db()
    return request.state, request.message, request.decided_by


# --- the writes ---------------------------------------------------------------------------------


def test_approve_from_the_board_answers_the_block_in_its_new_state(web: Client) -> None:
    request = ask()
    response = web.post(approve_url(request), {"place": "card"}, **write_headers(htmx=True))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'id="approval-card-{request.pk}"' in html
    assert "Approved: the agent goes on." in html
    assert "<html" not in html
    assert state(request) == ("approved", "", "owner")
    decided = Event.objects.filter(kind="approval.decided").get()
    assert (decided.actor, decided.payload["outcome"]) == ("owner", "approved")


def test_a_plain_form_post_answers_303_back_where_it_came_from(web: Client) -> None:
    request = ask()
    response = web.post(
        deny_url(request),
        {
            "message": "not before the release",
            "next": "/inbox",
            "csrf_token": tokens.csrf_token(current_token()),
        },
        HTTP_SEC_FETCH_SITE="same-origin",
    )
    assert response.status_code == 303
    assert response["Location"] == "/inbox"
    assert state(request) == ("denied", "not before the release", "owner")


def test_a_next_that_leaves_the_board_goes_to_the_board_root(web: Client) -> None:
    request = ask()
    response = web.post(approve_url(request), {"next": "https://evil.example/"}, **write_headers())
    assert (response.status_code, response["Location"]) == (303, "/")


def test_deny_carries_the_owners_message_to_the_event(web: Client) -> None:
    request = ask()
    response = web.post(
        deny_url(request),
        {"place": "panel", "message": "  use the staging script  "},
        **write_headers(htmx=True),
    )
    assert response.status_code == 200
    assert "Denied: the agent was told “use the staging script”." in response.content.decode()
    assert state(request) == ("denied", "use the staging script", "owner")
    decided = Event.objects.filter(kind="approval.decided").get()
    assert decided.payload["message"] == "use the staging script"


def test_the_bearer_token_is_refused_403_with_its_reason_and_nothing_changes(
    client: Client,
) -> None:
    request = ask()
    before = Event.objects.count()
    for url in (approve_url(request), deny_url(request)):
        response = client.post(url, {"message": "x"}, **bearer())
        assert response.status_code == 403
        text = response.content.decode()
        assert "never with the Bearer token" in text
        assert "an agent cannot answer its own request" in text
    assert state(request) == ("pending", "", "")
    assert Event.objects.count() == before


def test_a_cookie_write_without_the_csrf_token_or_from_another_site_is_refused(
    web: Client,
) -> None:
    request = ask()
    assert web.post(approve_url(request), HTTP_SEC_FETCH_SITE="same-origin").status_code == 403
    cross = web.post(
        approve_url(request),
        HTTP_X_RELAYBAY_CSRF=tokens.csrf_token(current_token()),
        HTTP_SEC_FETCH_SITE="cross-site",
    )
    assert cross.status_code == 403
    assert state(request)[0] == "pending"


def test_no_mcp_tool_decides_a_request() -> None:
    from relaybay_site.mcp_server import build_server

    names = [tool.name for tool in asyncio.run(build_server().list_tools())]
    assert names, "the server lists its tools"
    deciding = [n for n in names if re.search(r"approv|deny|decid|permission", n)]
    assert deciding == []


def test_a_second_answer_is_409_in_the_services_words_and_keeps_the_first(
    web: Client,
) -> None:
    request = ask()
    assert web.post(approve_url(request), **write_headers()).status_code == 303
    before = Event.objects.count()

    plain = web.post(deny_url(request), {"message": "no"}, **write_headers())
    htmx = web.post(
        deny_url(request), {"message": "no", "place": "inbox"}, **write_headers(htmx=True)
    )

    words = f"Approval request #{request.pk} was already answered (approved): nothing changed."
    assert plain.status_code == 409
    assert plain.content.decode().strip() == words
    assert htmx.status_code == 409  # approvals.js lets htmx swap the block in
    html = htmx.content.decode()
    assert words in html
    assert "Approved: the agent goes on." in html
    assert state(request) == ("approved", "", "owner")
    assert Event.objects.count() == before


def test_a_message_too_long_is_400_naming_the_limit_and_keeps_what_was_typed(
    web: Client,
) -> None:
    request = ask()
    typed = "x" * 1001
    plain = web.post(deny_url(request), {"message": typed}, **write_headers())
    htmx = web.post(
        deny_url(request), {"message": typed, "place": "card"}, **write_headers(htmx=True)
    )
    assert plain.status_code == 400
    assert "at most 1000" in plain.content.decode()
    assert htmx.status_code == 400
    html = htmx.content.decode()
    assert "at most 1000" in html
    assert f">{typed}</textarea>" in html  # nothing lost
    assert re.search(r'<details class="approval-deny" data-keep-open="deny-\d+" open>', html)
    assert state(request) == ("pending", "", "")
    assert not Event.objects.filter(kind="approval.decided").exists()


def test_an_unknown_request_is_404_and_the_writes_are_post_only(web: Client) -> None:
    assert web.post("/approvals/999/approve", **write_headers()).status_code == 404
    assert web.post("/approvals/999/deny", **write_headers(htmx=True)).status_code == 404
    request = ask()
    assert web.get(approve_url(request)).status_code == 405


# --- where the owner looks --------------------------------------------------------------------


def test_the_inbox_shows_the_group_first_with_everything_a_decision_needs(web: Client) -> None:
    make_task(make_project("other"), "Mine", waiting_on="owner")  # another group after it
    request = ask(summary=EVIL)
    html = web.get("/inbox").content.decode()
    first = re.findall(r'<section class="inbox-group" id="inbox-([\w-]+)"', html)
    assert first[0] == "approvals"
    group = re.search(r'id="inbox-approvals".*?</section>', html, re.S).group(0)
    assert "Waiting for your approval" in group
    assert request.task.key in group
    assert "Claude Code · alice · Ship it" in group
    assert "stand <strong>test</strong> at level <strong>ask</strong>" in group
    assert "rule <code>deploy</code>" in group
    assert "Asked just now</time>" in group
    assert '<span class="inbox-row-project">acme-shop</span>' in group  # its name
    assert "9 min left" in group or "8 min left" in group
    assert f'action="/approvals/{request.pk}/approve"' in group
    assert f'action="/approvals/{request.pk}/deny"' in group
    assert 'maxlength="1000"' in group
    assert f'name="csrf_token" value="{tokens.csrf_token(current_token())}"' in group
    assert "<script>alert(1)" not in group  # the masked summary is escaped
    assert "&lt;script&gt;" in group


def test_the_badge_counts_pending_requests_and_forgets_them_once_answered(web: Client) -> None:
    request = ask()
    badge = web.get("/inbox/badge").content.decode()
    assert re.search(r'<span id="inbox-badge"[^>]*>1</span>', badge)
    web.post(approve_url(request), **write_headers())
    badge = web.get("/inbox/badge").content.decode()
    assert re.search(r'<span id="inbox-badge"[^>]* hidden>0</span>', badge)
    assert "inbox-approvals" not in web.get("/inbox").content.decode()


def test_the_card_and_the_session_panel_show_the_waiting_request(web: Client) -> None:
    request = ask(source="cli")
    key = request.task.key
    card = web.get(f"/p/acme-shop/card/{key}").content.decode()
    assert f'id="approval-card-{request.pk}"' in card
    assert "Its own permission prompt" in card
    assert "Waiting for your approval" in card
    assert f'hx-post="/approvals/{request.pk}/approve"' in card
    board = web.get("/p/acme-shop").content.decode()
    assert f'id="approval-card-{request.pk}"' in board
    panel = web.get(f"/p/acme-shop/t/{key}/session").content.decode()
    assert f'id="approval-panel-{request.pk}"' in panel
    assert f'hx-target="#approval-panel-{request.pk}"' in panel
    assert "Claude Code · alice" in panel

    approvals.approval_decide(approval_id=request.pk, approve=True, message="", actor="owner")
    assert "approval-card" not in web.get(f"/p/acme-shop/card/{key}").content.decode()
    assert "approval-panel" not in web.get(f"/p/acme-shop/t/{key}/session").content.decode()


def test_activity_shows_who_decided_on_the_tasks_row_in_every_feed(web: Client) -> None:
    """The feed's row names the task (its link) and the owner who decided, in the whole
    feed, the project's and the approval kind's."""
    request = ask()
    web.post(deny_url(request), {"message": "not on a Friday"}, **write_headers())
    line = "Bash ./deploy.sh test (test, ask, deploy) — denied after 0 s: not on a Friday"
    for url in (
        "/activity",
        "/activity?project=acme-shop",
        "/activity?kind=approval.decided",
    ):
        html = web.get(url).content.decode()
        row = re.search(
            r'<li class="activity-row[^"]*"[^>]*data-kind="approval.decided">.*?</li>', html, re.S
        )
        assert row is not None, url
        assert f">{request.task.key}</a>" in row.group(0)
        assert line in row.group(0)
        assert '<span class="activity-actor">owner</span>' in row.group(0)
    asked = web.get("/activity?kind=approval.requested").content.decode()
    assert "alice waits for your approval (the guard&#x27;s ask): Bash ./deploy.sh test" in asked


def test_the_notification_lookup_names_the_agent_the_task_and_the_call(web: Client) -> None:
    request = ask()
    info = web.get(f"/approvals/{request.pk}").json()
    assert info == {
        "id": request.pk,
        "state": "pending",
        "agent": "Claude Code",
        "session": "alice",
        "key": request.task.key,
        "title": "Ship it",
        "call": "Bash ./deploy.sh test",
        "stand": "test",
        "href": f"/p/acme-shop?task={request.task.key}",
    }
    assert web.get("/approvals/999").status_code == 404
    assert web.get("/approvals/x").status_code == 404


def test_the_live_message_of_a_request_carries_what_the_notification_needs() -> None:
    from tasks.events import live_messages_after

    request = ask()
    [message] = [m for m in live_messages_after(0) if m.kind == "approval.requested"]
    assert message.data["approval"] == request.pk
    assert message.data["agent"] == "claude-code"
    assert message.data["key"] == request.task.key
    assert message.data["session"] == "alice"
    assert message.data["waiting"] == "your approval: Bash ./deploy.sh test"
