"""The approval requests' one write path: asked inside the hook's transaction, decided once
by the owner, ended without them (timed out, gone, answered in the terminal), each with its
event; the pending ones read back for the board."""

from __future__ import annotations

import pytest
from django.db import transaction

from core.errors import InvalidField, NotFound
from sessions import services as session_services
from sessions.approvals import selectors
from sessions.approvals import services as approvals
from sessions.models import ApprovalRequest
from tasks.models import Event
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db


def ask(source: str = "guard", tool: str = "Bash", summary: str = "./deploy.sh") -> ApprovalRequest:
    task = make_task(make_project("acme-shop"), title="Ship it")
    session_services.task_bind_session(task=task, session="alice", actor="agent-x")
    alice = session_services.session_touch(session="alice", actor="agent-x").session
    asked = approvals.Asked(
        agent="claude-code",
        agent_session_id="cc-1",
        source=source,
        tool=tool,
        summary=summary,
        stand="live" if source == "guard" else "",
        level="ask" if source == "guard" else "",
    )
    with transaction.atomic():
        return approvals.approval_requested_step(
            asked, session=alice, task=task, seconds=540, actor="hook"
        )


def kinds() -> list[str]:
    return list(Event.objects.order_by("id").values_list("kind", flat=True))


def test_a_request_is_pending_for_its_task_and_session_until_the_owner_decides() -> None:
    request = ask()
    assert kinds()[-1] == "approval.requested"
    [row] = selectors.pending()
    assert (row.id, row.agent, row.session, row.task_key, row.tool) == (
        request.pk,
        "Claude Code",
        "alice",
        request.task.key,
        "Bash",
    )
    assert selectors.by_task([request.task_id]) == {request.task_id: [row]}
    assert selectors.pending(session_id=request.session_id) == [row]
    assert selectors.pending_count() == 1

    approvals.approval_decide(approval_id=request.pk, approve=True, message="", actor="owner")
    assert selectors.pending() == []
    request.refresh_from_db()
    assert (request.state, request.decided_by) == ("approved", "owner")
    event = Event.objects.order_by("-id").first()
    assert (event.kind, event.payload["outcome"]) == ("approval.decided", "approved")


def test_a_deny_keeps_the_owners_message_and_a_second_answer_changes_nothing() -> None:
    request = ask()
    approvals.approval_decide(
        approval_id=request.pk, approve=False, message="  not today  ", actor="owner"
    )
    request.refresh_from_db()
    assert (request.state, request.message) == ("denied", "not today")
    before = kinds()
    with pytest.raises(InvalidField, match="already answered \\(denied\\)"):
        approvals.approval_decide(approval_id=request.pk, approve=True, message="", actor="owner")
    assert approvals.approval_ended(approval_id=request.pk, state="timed_out", actor="hook") is None
    assert kinds() == before
    request.refresh_from_db()
    assert request.state == "denied"


def test_a_message_too_long_is_refused_by_its_length_and_the_request_stays_pending() -> None:
    request = ask()
    with pytest.raises(InvalidField, match="2000 characters; at most 1000"):
        approvals.approval_decide(
            approval_id=request.pk, approve=False, message="x" * 2000, actor="owner"
        )
    request.refresh_from_db()
    assert request.state == "pending"


def test_an_unknown_request_is_not_found() -> None:
    with pytest.raises(NotFound):
        approvals.approval_decide(approval_id=999, approve=True, message="", actor="owner")


def test_time_running_out_ends_the_request_once() -> None:
    request = ask()
    ended = approvals.approval_ended(approval_id=request.pk, state="timed_out", actor="hook")
    assert ended is not None
    assert ended.state == "timed_out"
    assert Event.objects.order_by("-id").first().payload["outcome"] == "timed_out"


def test_the_terminal_answers_only_the_clis_own_prompts() -> None:
    cli = ask(source="cli", tool="Write", summary="notes.txt")
    guard_session = cli.session
    with transaction.atomic():
        guard = approvals.approval_requested_step(
            approvals.Asked("claude-code", "cc-1", "guard", "Bash", "./deploy.sh"),
            session=guard_session,
            task=cli.task,
            seconds=540,
            actor="hook",
        )
        ids = approvals.answered_in_terminal_step(guard_session, actor="hook")
    assert ids == [cli.pk]
    cli.refresh_from_db()
    guard.refresh_from_db()
    assert (cli.state, guard.state) == ("terminal", "pending")


def test_a_wait_the_owner_can_answer_on_the_board_is_listed_once() -> None:
    """The CLI's prompt makes the session wait; its request is in "Waiting for your approval",
    so "Agents waiting for an answer" leaves it out while the request waits."""
    from sessions.models import WAITING, Session
    from sessions.selectors import waiting_count, waiting_sessions

    request = ask(source="cli", tool="Write", summary="notes.txt")
    Session.objects.filter(pk=request.session_id).update(hook_status=WAITING)
    assert (waiting_count(), waiting_sessions()) == (0, [])
    approvals.approval_ended(approval_id=request.pk, state="terminal", actor="hook")
    assert waiting_count() == 1
    assert [w.name for w in waiting_sessions()] == ["alice"]


def test_the_owners_answer_ends_the_sessions_wait_at_once() -> None:
    """The owner approved the CLI's prompt: the session works again on the board now, not
    only at its next hook event (the Inbox's waiting group no longer lists it)."""
    from sessions.models import WAITING, WORKING, Session

    request = ask(source="cli", tool="Write", summary="notes.txt")
    Session.objects.filter(pk=request.session_id).update(hook_status=WAITING)
    approvals.approval_decide(approval_id=request.pk, approve=True, message="", actor="owner")
    session = Session.objects.get(pk=request.session_id)
    assert (session.hook_status, session.activity) == (WORKING, "Write approved on the board")
    assert kinds()[-2:] == ["approval.decided", "session.status_changed"]


def test_a_secret_in_the_deny_message_is_refused_without_being_repeated() -> None:
    """The owner's message is a deliberate write: a token in it is refused by the write door,
    the request stays pending, and the refusal does not say the token back."""
    from core.errors import DomainError
    from tests.support.tokens import github

    request = ask()
    token = github()
    with pytest.raises(DomainError) as refused:
        approvals.approval_decide(
            approval_id=request.pk, approve=False, message=f"use {token}", actor="owner"
        )
    assert token not in str(refused.value)
    request.refresh_from_db()
    assert (request.state, request.message) == ("pending", "")
