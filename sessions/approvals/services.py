"""Every write of an approval request: asked (inside the hook's transaction), decided by the
owner on the board, or ended without them — answered in the terminal, timed out, the hook
gone. Each appends its event (approval.requested, approval.decided) in the same
transaction; the held hook learns the outcome from the live bus after commit."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from core.errors import InvalidField, NotFound
from sessions.models import (
    APPROVAL_MESSAGE_MAX,
    APPROVAL_SUMMARY_MAX,
    APPROVED,
    DENIED,
    FROM_CLI,
    PENDING,
    TERMINAL,
    WAITING,
    WORKING,
    ApprovalRequest,
    Session,
)
from sessions.services.hooks import write_status
from tasks.events import EventKind, record_event
from tasks.models import Project, Task

OWNER_STATES = (APPROVED, DENIED)


class AlreadyAnswered(InvalidField):
    """A request that has ended is never decided again: a conflict (409), not a bad value."""

    status = 409


@dataclass(frozen=True)
class Asked:
    """What a held hook asks the owner: the call, and for the guard's ask why."""

    agent: str
    agent_session_id: str
    source: str  # FROM_CLI or FROM_GUARD
    tool: str
    summary: str  # the call's input, masked like the journal's
    stand: str = ""
    level: str = ""
    rule: str = ""
    reason: str = ""


def approval_requested_step(
    asked: Asked,
    *,
    session: Session | None,
    task: Task | None,
    seconds: float,
    actor: str,
) -> ApprovalRequest:
    """Store a request the hook will hold for `seconds` (inside the hook's transaction)."""
    now = timezone.now()
    project: Project | None = task.project if task is not None else None
    if project is None and session is not None:
        project = session.project
    approval = ApprovalRequest.objects.create(
        session=session,
        task=task,
        project=project,
        agent=asked.agent,
        agent_session_id=asked.agent_session_id,
        source=asked.source,
        tool=asked.tool[:200],
        summary=asked.summary[:APPROVAL_SUMMARY_MAX],
        stand=asked.stand[:100],
        level=asked.level[:40],
        rule=asked.rule[:200],
        reason=asked.reason[:APPROVAL_SUMMARY_MAX],
        requested_at=now,
        deadline=now + timedelta(seconds=seconds),
    )
    record_event(
        EventKind.APPROVAL_REQUESTED,
        project=project,
        task=task,
        actor=actor,
        payload={**_facts(approval), "waiting": waiting_line(approval)},
    )
    return approval


def approval_decide(
    *, approval_id: int, approve: bool, message: str, actor: str
) -> ApprovalRequest:
    """The owner's Approve or Deny (a board write: cookie and CSRF, never the Bearer token,
    never an MCP tool). Refused once the request has ended; the message goes with a Deny."""
    message = message.strip()
    if len(message) > APPROVAL_MESSAGE_MAX:
        raise InvalidField(
            "message",
            f"The message is {len(message)} characters; at most {APPROVAL_MESSAGE_MAX} go to "
            "the agent. Shorten it and press Deny again.",
        )
    with transaction.atomic(durable=True):
        approval = ApprovalRequest.objects.filter(pk=approval_id).first()
        if approval is None:
            raise NotFound(f"No approval request #{approval_id}: it may have been removed.")
        if approval.state != PENDING:
            raise AlreadyAnswered(
                "approval",
                f"Approval request #{approval_id} was already answered ({_said(approval)}): "
                "nothing changed.",
            )
        _end(approval, APPROVED if approve else DENIED, actor, message if not approve else "")
        return approval


def approval_ended(*, approval_id: int, state: str, actor: str) -> ApprovalRequest | None:
    """End a pending request without the owner (timed out, the hook gone, answered in the
    terminal); None when it had ended already (the owner was quicker)."""
    with transaction.atomic(durable=True):
        approval = ApprovalRequest.objects.filter(pk=approval_id, state=PENDING).first()
        if approval is None:
            return None
        _end(approval, state, actor, "")
        return approval


def answered_in_terminal_step(session: Session, *, actor: str) -> list[int]:
    """The session went on (its next tool result, prompt or turn end): the person answered
    its CLI's own prompt in the terminal; those requests leave the Inbox (inside the hook's
    transaction). The ids, so that their held hooks are let go."""
    pending = list(ApprovalRequest.objects.filter(session=session, state=PENDING, source=FROM_CLI))
    for approval in pending:
        _end(approval, TERMINAL, actor, "")
    return [r.pk for r in pending]


def _end(approval: ApprovalRequest, state: str, actor: str, message: str) -> None:
    now = timezone.now()
    approval.state, approval.message = state, message
    approval.decided_at, approval.decided_by = now, actor
    approval.save(update_fields=["state", "message", "decided_at", "decided_by"])
    waited = max(0, round((now - approval.requested_at).total_seconds()))
    payload = {**_facts(approval), "outcome": state, "waited": waited}
    if message:
        payload["message"] = message
    record_event(
        EventKind.APPROVAL_DECIDED,
        project=approval.project,
        task=approval.task,
        actor=actor,
        payload=payload,
    )
    if state in OWNER_STATES:
        _goes_on(approval, said=_said(approval), actor=actor, now=now)


def _goes_on(approval: ApprovalRequest, *, said: str, actor: str, now: datetime) -> None:
    """The owner answered: a session that waited on its CLI's prompt works again (its next
    hook event would say so too; the board should not wait for it)."""
    session = approval.session
    if session is None or session.hook_status != WAITING:
        return
    activity = f"{approval.tool} {said} on the board"[:200]
    write_status(
        session, status=WORKING, activity=activity, cwd="", before=WAITING, actor=actor, now=now
    )


def _facts(approval: ApprovalRequest) -> dict[str, object]:
    facts: dict[str, object] = {
        "approval": approval.pk,
        "agent": approval.agent,
        "source": approval.source,
        "tool": approval.tool,
        "summary": approval.summary,
        "session": approval.session.name if approval.session is not None else "",
    }
    for name in ("stand", "level", "rule"):
        if value := getattr(approval, name):
            facts[name] = value
    return facts


def waiting_line(approval: ApprovalRequest) -> str:
    """What the notification and the rows say the agent waits for."""
    what = f"{approval.tool} {approval.summary}".strip()
    return f"your approval: {what}"[:200]


def _said(approval: ApprovalRequest) -> str:
    return {
        APPROVED: "approved",
        DENIED: "denied",
        TERMINAL: "answered in the terminal",
    }.get(approval.state, approval.state.replace("_", " "))
