"""Steps the session writes share, run inside the caller's transaction: resolving who a
session is, linking a Claude Code id exactly, taking a session over, closing a binding.

Used by the services beside this module and by the hook path (sessions/hook_service.py),
which is why they live apart from any one service.
"""

from __future__ import annotations

from datetime import datetime

from core.rows import fetch_one, update
from sessions import sql
from sessions.fields import Ident
from sessions.models import (
    ENDED,
    KIND_DESKTOP,
    KIND_HOOK,
    LINK_AGENT,
    WAITING,
    Session,
    SessionTodo,
    TaskBinding,
)
from sessions.selectors import SESSION_COLUMNS, session_by_agent_id
from tasks.events import EventKind, record_event
from tasks.models import Event, Task

# The hook state a session takes over with a Claude Code id (saved together, §4 step 2).
HOOK_STATE_FIELDS = (
    "unlinked_reason",
    "hook_status",
    "activity",
    "activity_at",
    "cwd",
    "agent",
    "transcript_path",
    "stop_blocks",
)


def _resolve(
    ident: Ident, title: str | None, *, actor: str, task: Task | None, now: datetime
) -> tuple[Session, bool, list[Event]]:
    """The session an identity names, created if new, with its title updated when given.

    A session.seen event only when a session is created or its title changes — not on
    every call: agents pass `session` on every write and the log must not fill with noise.
    """
    found = _desktop(ident.name) if ident.kind == KIND_DESKTOP else _named(ident.name)
    created = found is None
    if found is None:
        found = Session.objects.create(
            name=ident.name,
            kind=ident.kind,
            desktop_id=ident.name if ident.kind == KIND_DESKTOP else None,
            title=title or "",
            created_at=now,
        )
    elif title is not None and title != found.title:
        found.title = title
        found.save(update_fields=["title"])
    else:
        return found, False, []
    event = record_event(
        EventKind.SESSION_SEEN,
        project=task.project if task else None,
        task=task,
        actor=actor,
        payload={
            "session": found.name,
            "kind": found.kind,
            "title": found.title,
            "created": created,
        },
    )
    return found, created, [event]


# "Last seen" is shown as an age ("just now" under 45 s): a write within this many seconds
# of the last mark leaves it, sparing an UPDATE on most of an agent's writes.
SEEN_GRAIN_SECONDS = 15


# One statement on every agent write, so written as SQL once (sessions/sql.py; the ORM
# spent longer building it than SQLite running it).
def _named(name: str) -> Session | None:
    row = fetch_one(sql.SESSION_BY_NAME.text, [name, name])
    return None if row is None else SESSION_COLUMNS.build(row)


def _desktop(desktop_id: str) -> Session | None:
    row = fetch_one(sql.SESSION_BY_DESKTOP.text, [desktop_id])
    return None if row is None else SESSION_COLUMNS.build(row)


def _mark_seen(session: Session, now: datetime) -> None:
    # A plain column update, no event: "last seen" is a board detail, not log material.
    seen = session.last_seen_at
    if seen is not None and 0 <= (now - seen).total_seconds() < SEEN_GRAIN_SECONDS:
        return
    Session.objects.filter(pk=session.pk).update(last_seen_at=now)
    session.last_seen_at = now


def _link_exact(
    session: Session, agent_id: str, *, actor: str, now: datetime, events: list[Event]
) -> list[str]:
    """Link a Claude Code session id exactly to `session` (§4 step 2); notes for the answer."""
    if session.agent_session_id == agent_id:
        if not session.agent_exact or session.agent_link != LINK_AGENT:
            session.agent_exact = True
            session.agent_link = LINK_AGENT
            session.save(update_fields=["agent_exact", "agent_link"])
        return []
    holder = session_by_agent_id(agent_id)
    before = session.hook_status
    if holder is not None:
        if holder.agent_exact and holder.hook_status != ENDED:
            return [
                f"Warning: hook_session {agent_id} belongs to another session ({holder.name}); "
                "not relinked."
            ]
        _take_over(holder, session)
    else:
        session.stop_blocks = 0  # a new Claude Code id: a new turn count
    session.agent_session_id = agent_id
    session.agent_exact = True
    session.agent_link = LINK_AGENT
    session.unlinked_reason = ""
    session.save(
        update_fields=["agent_session_id", "agent_exact", "agent_link", *HOOK_STATE_FIELDS]
    )
    if session.hook_status != before:
        events += _status_events(session, before, actor)
    return []


def _take_over(holder: Session, session: Session) -> None:
    """The id's previous holder hands its hook state over (the state is the process's).

    A row the hooks created by guess (kind hook, not exact) is removed, its bindings
    moving to `session`; any other holder (a guessed or ended link) just loses the id.
    The todo written under the id moves too (§4 Todo capture). The caller saves
    `session` with HOOK_STATE_FIELDS.
    """
    session.hook_status = holder.hook_status
    session.activity = holder.activity
    session.activity_at = holder.activity_at
    session.cwd = holder.cwd or session.cwd
    session.agent = holder.agent or session.agent
    session.transcript_path = holder.transcript_path or session.transcript_path
    session.stop_blocks = holder.stop_blocks
    session.unlinked_reason = ""
    SessionTodo.objects.filter(session=session, agent_session_id=holder.agent_session_id).delete()
    SessionTodo.objects.filter(session=holder, agent_session_id=holder.agent_session_id).update(
        session=session
    )
    if holder.kind == KIND_HOOK and not holder.agent_exact:
        TaskBinding.objects.filter(session=holder).update(session=session)
        holder.delete()
        return
    holder.agent_session_id = None
    holder.agent_exact = False
    holder.agent_link = ""
    holder.hook_status = ""
    holder.activity = ""
    holder.activity_at = None
    holder.stop_blocks = 0
    holder.save(
        update_fields=[
            "agent_session_id",
            "agent_exact",
            "agent_link",
            "hook_status",
            "activity",
            "activity_at",
            "stop_blocks",
        ]
    )


def _status_events(session: Session, before: str, actor: str) -> list[Event]:
    """session.status_changed for each task bound to the session now (§4)."""
    bindings = TaskBinding.objects.select_related("task__project").filter(
        session=session, unbound_at__isnull=True
    )
    payload = {"session": session.name, "from": before, "to": session.hook_status}
    if session.hook_status == WAITING and session.activity:
        payload["waiting"] = session.activity  # what on (sessions/waiting.py), redacted
    return [
        record_event(
            EventKind.SESSION_STATUS_CHANGED,
            project=b.task.project,
            task=b.task,
            actor=actor,
            payload=payload,
        )
        for b in bindings
    ]


def _close(binding: TaskBinding, *, actor: str, reason: str, now: datetime) -> None:
    """End a binding, kept in the history: save(update_fields=…)'s UPDATE, written once."""
    binding.unbound_at = now
    binding.unbound_by = actor
    binding.unbind_reason = reason
    values = {"unbound_at": now, "unbound_by": actor, "unbind_reason": reason}
    update(TaskBinding, values, where={"id": binding.pk})


def _stuck_event(task: Task, session_name: str, reason: str, *, actor: str) -> Event:
    """session.stuck for one task (a repeated call from the hook, long work from the sweep)."""
    return record_event(
        EventKind.SESSION_STUCK,
        project=task.project,
        task=task,
        actor=actor,
        payload={"session": session_name, "reason": reason},
    )
