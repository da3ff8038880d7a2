"""The event log: the one kind catalogue, the one append function and its descriptions.

`record_event` is called inside services only, in the transaction of the change; the row
reaches the live bus after commit. `describe` is the one-line text shared by
events_since, the Activity feed and the SSE `summary`.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.live import LiveMessage, bus
from core.rows import insert
from tasks.models import Event, Project, Task


class EventKind(StrEnum):
    PROJECT_CREATED = "project.created"
    PROJECT_UPDATED = "project.updated"
    TASK_CREATED = "task.created"
    TASK_UPDATED = "task.updated"
    TASK_STAGE_CHANGED = "task.stage_changed"
    TASK_SESSION_BOUND = "task.session_bound"
    TASK_SESSION_UNBOUND = "task.session_unbound"
    TASK_TRACKER_UNLOGGED = "task.tracker_unlogged"
    REPORT_ADDED = "report.added"
    DECISION_ADDED = "decision.added"
    SESSION_SEEN = "session.seen"
    SESSION_STATUS_CHANGED = "session.status_changed"
    SESSION_ALIAS_ADDED = "session.alias_added"
    SESSION_TODO_UPDATED = "session.todo_updated"
    SESSION_STUCK = "session.stuck"
    SESSION_FORGOTTEN = "session.forgotten"
    SESSION_COLLISION = "session.collision"
    COMMENT_ADDED = "comment.added"
    COMMENT_DELIVERED = "comment.delivered"
    COMMENT_READ = "comment.read"
    PLAN_SET = "plan.set"
    PLAN_STEP_UPDATED = "plan.step_updated"
    PLAN_ACCEPTED = "plan.accepted"
    REVIEW_STEP_ADDED = "review.step_added"
    REVIEW_STEP_UPDATED = "review.step_updated"
    REVIEW_STEP_REMOVED = "review.step_removed"
    REVIEW_STEP_ACCEPTED = "review.step_accepted"
    REVIEW_STEP_REJECTED = "review.step_rejected"
    ATTACHMENT_ADDED = "attachment.added"
    ATTACHMENT_UPDATED = "attachment.updated"
    ATTACHMENT_REMOVED = "attachment.removed"
    ENVIRONMENT_CREATED = "environment.created"
    ENVIRONMENT_UPDATED = "environment.updated"
    ENVIRONMENT_DELETED = "environment.deleted"
    ENVIRONMENT_ACCESS_ADDED = "environment.access_added"
    ENVIRONMENT_ACCESS_UPDATED = "environment.access_updated"
    ENVIRONMENT_ACCESS_REMOVED = "environment.access_removed"
    ENVIRONMENT_PROPOSED = "environment.proposed"
    ENVIRONMENT_PROPOSAL_ACCEPTED = "environment.proposal_accepted"
    ENVIRONMENT_PROPOSAL_REJECTED = "environment.proposal_rejected"
    LIVE_ACTION = "live.action"
    APPROVAL_REQUESTED = "approval.requested"
    APPROVAL_DECIDED = "approval.decided"
    DOCUMENT_UPDATED = "document.updated"
    MEMORY_ADDED = "memory.added"
    MEMORY_UPDATED = "memory.updated"
    BLOCK_UPDATED = "block.updated"
    POLICY_PROPOSED = "policy.proposed"
    POLICY_PROPOSAL_ACCEPTED = "policy.proposal_accepted"
    POLICY_PROPOSAL_REJECTED = "policy.proposal_rejected"
    POLICY_PROPOSAL_REOPENED = "policy.proposal_reopened"
    POLICY_UPDATED = "policy.updated"


KINDS = frozenset(k.value for k in EventKind)


class LiveNotice(StrEnum):
    """Kinds the live stream sends that are not events: never stored, never replayed."""

    # A task's tokens grew: at most one notice per task every few seconds
    # (effort/notify.py).
    EFFORT_UPDATED = "effort.updated"


# Every kind the live stream may send: the page's scripts listen for these.
STREAMED = KINDS | frozenset(k.value for k in LiveNotice)


EventObserver = Callable[[Event], None]
_observers: list[EventObserver] = []


def register_event_observer(fn: EventObserver) -> None:
    """Run `fn(event)` in the writer's transaction for every recorded event: how another app
    keeps its own rows in step with the base's writes (the memory's search index) without
    tasks importing it. Idempotent."""
    if fn not in _observers:
        _observers.append(fn)


def record_event(
    kind: EventKind,
    *,
    project: Project | None,
    task: Task | None = None,
    actor: str,
    payload: dict[str, Any] | None = None,
) -> Event:
    """Append one event in the caller's transaction; publish it only after commit."""
    event = insert(
        Event(
            kind=str(kind),
            project=project,
            task=task,
            actor=actor,
            payload=payload or {},
            created_at=timezone.now(),
        )
    )
    for observe in _observers:  # e.g. the memory's search index, kept in step (§8)
        observe(event)
    # Keep what the message needs now: after commit the caller's objects may have changed.
    message = to_message(event, project.slug if project else None, task.key if task else None)
    # robust: the row is committed whatever happens to the live copy; a failure is logged
    # instead of turning a successful write into an error for the caller.
    transaction.on_commit(lambda: bus.publish(message), robust=True)
    return event


def newest_event_id() -> int:
    return Event.objects.order_by("-id").values_list("id", flat=True).first() or 0


def live_messages_after(
    after_id: int, *, project: str | None = None, limit: int = 5000
) -> list[LiveMessage]:
    rows = Event.objects.filter(id__gt=after_id).select_related("project", "task").order_by("id")
    if project:
        rows = rows.filter(project__slug=project)
    return [
        to_message(e, e.project.slug if e.project else None, e.task.key if e.task else None)
        for e in rows[:limit]
    ]


def to_message(event: Event, project: str | None, key: str | None) -> LiveMessage:
    p = event.payload
    data = {
        "kind": event.kind,
        "project": project,
        "key": key,
        "stage": p.get("stage"),
        "from": p.get("from"),
        "to": p.get("to"),
        "session": p.get("session"),
        "summary": describe(event.kind, p),
    }
    if p.get("waiting"):  # what a session waits on: the browser notification names it
        data["waiting"] = p["waiting"]
    if p.get("approval"):  # a held hook waits for this request's outcome (the live bus)
        data["approval"] = p["approval"]
        data["outcome"] = p.get("outcome", "")
    if p.get("agent"):  # whose hooks: the notification names the agent
        data["agent"] = p["agent"]
    return LiveMessage(id=event.id, kind=event.kind, project=project, data=data)


# --- one-line descriptions ------------------------------------------------------------


def _task_updated(p: dict[str, Any]) -> str:
    # A next step written again unchanged is a confirmation (§1), not a change.
    parts = []
    if p.get("fields"):
        parts.append("changed " + ", ".join(p["fields"]))
    if p.get("confirmed"):
        parts.append("confirmed " + ", ".join(p["confirmed"]))
    return "; ".join(parts) or "changed"


def _plan_set(p: dict[str, Any]) -> str:
    if not p.get("steps"):
        text = "plan removed"
    else:
        text = f"plan set: {p.get('steps')} step(s), {p.get('status', '')}"
        if p.get("previous_status") == "accepted" and p.get("status") == "draft":
            text += " again (titles changed)"
    reason = p.get("reason")
    # The default reasons only repeat what the head says.
    plain = reason in (None, "", "plan written", "plan changed", "plan removed")
    return text if plain else f"{text} — {reason}"


def _plan_step_updated(p: dict[str, Any]) -> str:
    status, previous = p.get("status", ""), p.get("previous", "")
    move = f"{previous} → {status}" if previous and previous != status else status
    text = f"plan step {p.get('position')} '{p.get('title', '')}': {move}"
    if status == "done" and p.get("conformance"):
        text += f" ({p['conformance']})"
    if p.get("outcome"):
        text += f": {p['outcome']}"
    return text


def _comment_added(p: dict[str, Any]) -> str:
    # The excerpt is agent or owner text: the Activity template escapes it like any other.
    if p.get("author_kind") == "agent":
        head = f"reply #{p.get('comment_id')} by {p.get('author', '')}"
        if p.get("in_reply_to"):
            head += f" to #{p['in_reply_to']}"
    else:
        head = f"owner comment #{p.get('comment_id')}"
        head += f" for {p['session']}" if p.get("session") else " (no session bound)"
    return f"{head}: {p.get('excerpt', '')}"


def _comment_read(p: dict[str, Any]) -> str:
    ids = ", ".join(f"#{i}" for i in p.get("comment_ids") or [])
    if p.get("author_kind") == "agent":
        return f"agent repl{'y' if len(p.get('comment_ids') or []) == 1 else 'ies'} {ids} read"
    how = {"reply": "answered", "ack": "acknowledged"}.get(p.get("reason", ""), "read")
    return f"owner comment {ids} {how} by {p.get('by', '')}"


def _review_step(verb: str) -> Callable[[dict[str, Any]], str]:
    """review.step_*: "review step 2 'Login with 2FA' accepted by owner" (§1)."""

    def text(p: dict[str, Any]) -> str:
        line = f"review step {p.get('position')} '{p.get('title', '')}' {verb}"
        previous, status = p.get("previous"), p.get("status")
        if verb == "updated" and previous and previous != status:
            line += f" ({previous} → {status})"
        return line + (f" by {p['by']}" if p.get("by") else "")

    return text


def _live_action(p: dict[str, Any]) -> str:
    """live.action: "deny on live: Bash ssh prod-alias sudo … (read, ssh-remote-change)"."""
    why = ", ".join(part for part in (p.get("level"), p.get("rule")) if part)
    decision = p.get("decision", "")
    if p.get("sent") == "hold":  # the hook waited for the owner (approval.decided follows)
        decision = f"{decision} (held for the owner)"
    elif p.get("sent") and p["sent"] != decision:  # an agent that cannot ask was denied
        decision = f"{decision} (sent as {p['sent']})"
    text = f"{decision} on {p.get('environment', '')}: {p.get('tool', '')}"
    text += f" {p['command']}" if p.get("command") else ""
    return text + (f" ({why})" if why else "")


def _approval(p: dict[str, Any]) -> str:
    """approval.requested / .decided: "Bash rm -rf build (deploy, ask, rule) — approved
    after 42 s" — what was asked, on which stand and why, and how it ended."""
    why = ", ".join(part for part in (p.get("stand"), p.get("level"), p.get("rule")) if part)
    text = f"{p.get('tool', '')} {p.get('summary', '')}".strip() + (f" ({why})" if why else "")
    outcome = p.get("outcome")
    if not outcome:
        asker = "the guard's ask" if p.get("source") == "guard" else "its permission prompt"
        return f"{p.get('session', '')} waits for your approval ({asker}): {text}"
    said = {
        "approved": "approved",
        "denied": "denied",
        "terminal": "answered in the terminal",
        "timed_out": "not answered in time",
        "gone": "the hook went away",
    }.get(outcome, outcome)
    text = f"{text} — {said} after {p.get('waited', 0)} s"
    return text + (f": {p['message']}" if p.get("message") else "")


def _policy_updated(p: dict[str, Any]) -> str:
    """policy.updated: the scope, and what it widened on live (the owner confirmed it)."""
    text = f"policy of {p.get('scope', '')} changed"
    if p.get("proposal"):
        text += f" (proposal #{p['proposal']})"
    widens = p.get("widens") or []
    return text + (f"; widens live: {'; '.join(widens)}" if widens else "")


_DESCRIBERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "project.created": lambda p: f"project {p.get('slug', '')} created",
    "project.updated": lambda p: "changed " + ", ".join(p.get("fields", [])),
    "task.created": lambda p: f"created in {p.get('stage', 'plan')}: {p.get('title', '')}",
    "task.updated": lambda p: _task_updated(p),
    "task.stage_changed": lambda p: (
        f"{p.get('from')} → {p.get('to')}"
        + (f" ({len(p['warnings'])} rule warning(s))" if p.get("warnings") else "")
    ),
    "task.session_bound": lambda p: f"bound to {p.get('session', '')}",
    "task.session_unbound": lambda p: (
        f"unbound from {p.get('session', '')}" + (f" ({p['reason']})" if p.get("reason") else "")
    ),
    "task.tracker_unlogged": lambda p: f"tracker mark cleared ({p.get('reason', '')})",
    "report.added": lambda p: p.get("summary", "") or "report added",
    "decision.added": lambda p: (
        p.get("text", "") + (f" (supersedes #{p['supersedes']})" if p.get("supersedes") else "")
    ),
    "session.seen": lambda p: f"session {p.get('session', '')} seen",
    "session.status_changed": lambda p: (
        f"{p.get('session', '')}: {p.get('from') or 'no status'} → {p.get('to')}"
        + (f" ({p['waiting']})" if p.get("waiting") else "")
    ),
    "session.alias_added": lambda p: (
        f"{p.get('alias', '')} is now an alias of {p.get('session', '')}"
    ),
    "session.stuck": lambda p: f"{p.get('session', '')}: possibly stuck — {p.get('reason', '')}",
    "session.forgotten": lambda p: f"{p.get('session', '')}: forgotten — {p.get('reason', '')}",
    "session.collision": lambda p: (
        f"{p.get('session', '')} and {p.get('other', '')} both changing {p['path']}"
        if p.get("path")
        else f"{p.get('session', '')} and {p.get('other', '')} in one checkout on two branches"
    ),
    "session.todo_updated": lambda p: (
        f"{p.get('session', '')}: todo of {p.get('items', 0)} item(s)"
        + (f", now {p['in_progress']}" if p.get("in_progress") else "")
    ),
    "approval.requested": _approval,
    "approval.decided": _approval,
    "comment.added": _comment_added,
    "comment.delivered": lambda p: (
        f"owner comment #{p.get('comment_id')} delivered to {p.get('session', '')}"
        + (f" ({p['via']})" if p.get("via") else "")
    ),
    "comment.read": _comment_read,
    "plan.set": _plan_set,
    "plan.step_updated": _plan_step_updated,
    "plan.accepted": lambda p: f"plan accepted by {p.get('by', '')}",
    "review.step_added": _review_step("added"),
    "review.step_updated": _review_step("updated"),
    "review.step_removed": _review_step("removed"),
    "review.step_accepted": _review_step("accepted"),
    "review.step_rejected": _review_step("rejected"),
    "attachment.added": lambda p: (
        f"screenshot #{p.get('attachment_id')} attached"
        + (f" to step {p['step']}" if p.get("step") else "")
        + (f": {p['original_name']}" if p.get("original_name") else "")
    ),
    "attachment.updated": lambda p: f"screenshot #{p.get('attachment_id')} caption changed",
    "attachment.removed": lambda p: f"screenshot #{p.get('attachment_id')} removed",
    "environment.created": lambda p: (
        f"environment {p.get('environment', '')} ({p.get('kind', '')}) added"
    ),
    "environment.updated": lambda p: (
        f"environment {p.get('environment', '')} changed: " + ", ".join(p.get("fields") or [])
    ),
    "environment.deleted": lambda p: f"environment {p.get('environment', '')} deleted",
    "environment.access_added": lambda p: (
        f"{p.get('access_kind', '')} access #{p.get('entry')} added to {p.get('environment', '')}"
    ),
    "environment.access_updated": lambda p: (
        f"{p.get('access_kind', '')} access #{p.get('entry')} of {p.get('environment', '')} changed"
    ),
    "environment.access_removed": lambda p: (
        f"{p.get('access_kind', '')} access #{p.get('entry')} removed from "
        + p.get("environment", "")
    ),
    "environment.proposed": lambda p: (
        f"environment proposal #{p.get('proposal')} for {p.get('environment', '')}: "
        + p.get("reason", "")
    ),
    "environment.proposal_accepted": lambda p: (
        f"environment proposal #{p.get('proposal')} for {p.get('environment', '')} accepted"
    ),
    "environment.proposal_rejected": lambda p: (
        f"environment proposal #{p.get('proposal')} for {p.get('environment', '')} rejected"
    ),
    "live.action": _live_action,
    "document.updated": lambda p: (
        f"document {p.get('name', '')} v{p.get('version')}"
        + (f" (section {p['section']})" if p.get("section") else "")
        + (f": {p['reason']}" if p.get("reason") else "")
    ),
    "memory.added": lambda p: (
        f"memory note #{p.get('note')} ({p.get('scope', '')}): {p.get('title', '')}"
    ),
    "memory.updated": lambda p: (
        f"memory note #{p.get('note')} v{p.get('version')}: {p.get('title', '')}"
    ),
    "block.updated": lambda p: f"block {p.get('label', '')} v{p.get('version')}",
    "policy.proposed": lambda p: (
        f"policy proposal #{p.get('proposal')} for {p.get('scope', '')}: {p.get('reason', '')}"
        + (" (widens live)" if p.get("widens") else "")
    ),
    "policy.proposal_accepted": lambda p: (
        f"policy proposal #{p.get('proposal')} for {p.get('scope', '')} accepted"
    ),
    "policy.proposal_rejected": lambda p: (
        f"policy proposal #{p.get('proposal')} for {p.get('scope', '')} rejected"
    ),
    "policy.proposal_reopened": lambda p: (
        f"policy proposal #{p.get('proposal')} for {p.get('scope', '')} is pending again: "
        + p.get("error", "")
    ),
    "policy.updated": _policy_updated,
}


def describe(kind: str, payload: dict[str, Any]) -> str:
    """The short text of an event; a kind without its own describer shows its summary."""
    fn = _DESCRIBERS.get(kind)
    text = fn(payload) if fn else str(payload.get("summary") or payload.get("title") or "")
    # comment.added carries a whole 200-character excerpt after its head (§4: the
    # coordinator reads it in events_since), so its line may be longer.
    return text[: 300 if kind == "comment.added" else 200]
