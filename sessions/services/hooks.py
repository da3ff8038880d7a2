"""The writes of the hook room (§4): every row the hook pipeline changes, here, so sessions'
one write path holds them all (docs/architecture.md §1).

sessions.hooks.service.hook_event is the public service and owns the transaction; these
are its steps, each inside that transaction: apply a link decision, write a status, unbind
on a SESSION_END, count Stop blocks, store the agent's todo. The activity window's flush
(`activity_flush`) is a service of its own, one transaction per session.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction

from sessions.models import (
    KIND_DESKTOP,
    KIND_HOOK,
    LINK_AGENT,
    LINK_ENV,
    LINK_GUESS,
    WORKING,
    Session,
    SessionTodo,
    TaskBinding,
)
from sessions.services._steps import (
    HOOK_STATE_FIELDS,
    _close,
    _status_events,
    _stuck_event,
    _take_over,
)
from tasks.events import EventKind, record_event
from tasks.models import Event, Project, Task

if TYPE_CHECKING:
    from sessions.hooks.event import TodoItem

SESSION_END_REASON = "session_end"
CWD_MAX = 1000
PATH_MAX = 1000  # of a transcript path


def link_to(
    session: Session, agent_id: str, *, agent: str, exact: bool, take_from: Session | None
) -> str:
    """Link `session` to the agent's session id (§4 steps 1 and 3): exactly (the
    environment named it) or by guess; `take_from` is another session holding the id.
    Returns the session's status before the event."""
    before = session.hook_status
    if session.agent_session_id == agent_id:
        exact_before = session.agent_link == LINK_AGENT
    else:
        exact_before = False
        if take_from is not None:
            _take_over(take_from, session)
        else:
            session.stop_blocks = 0  # a new agent session id: a new turn count
    session.agent_session_id = agent_id
    if exact:
        session.agent_exact = True
        session.agent_link = LINK_AGENT if exact_before else LINK_ENV
    else:
        session.agent_exact = False
        session.agent_link = LINK_GUESS
    session.unlinked_reason = ""
    session.agent = agent
    session.save(
        update_fields=["agent_session_id", "agent_exact", "agent_link", "agent", *HOOK_STATE_FIELDS]
    )
    return before


def new_hook_session(
    *,
    name: str,
    project: Project | None,
    agent: str,
    agent_id: str,
    cwd: str,
    transcript_path: str,
    reason: str,
    actor: str,
    now: datetime,
) -> tuple[Session, Event]:
    """A hook session of its own (§4 steps 4 and 5), named after the folder."""
    session = Session.objects.create(
        name=name,
        kind=KIND_HOOK,
        project=project,
        agent_session_id=agent_id,
        agent_exact=False,
        cwd=cwd[:CWD_MAX],
        agent=agent,
        transcript_path=transcript_path[:PATH_MAX],
        unlinked_reason=reason,
        created_at=now,
    )
    event = record_event(
        EventKind.SESSION_SEEN,
        project=project,
        actor=actor,
        payload={"session": session.name, "kind": KIND_HOOK, "title": "", "created": True},
    )
    return session, event


def write_status(
    session: Session,
    *,
    status: str,
    activity: str,
    cwd: str,
    transcript_path: str = "",
    agent: str = "",
    before: str,
    actor: str,
    now: datetime,
) -> list[Event]:
    """The hook status and activity now (and the cwd and transcript when they moved);
    session.status_changed when the status changed."""
    session.hook_status = status
    session.activity = activity
    session.activity_at = now
    fields = ["hook_status", "activity", "activity_at"]
    cwd, transcript_path = cwd[:CWD_MAX], transcript_path[:PATH_MAX]
    if cwd and cwd != session.cwd:
        session.cwd = cwd
        fields.append("cwd")
    if transcript_path and transcript_path != session.transcript_path:
        session.transcript_path = transcript_path
        fields.append("transcript_path")
    if agent and agent != session.agent:  # a session an agent linked before its hooks came
        session.agent = agent
        fields.append("agent")
    session.save(update_fields=fields)
    return _status_events(session, before, actor) if status != before else []


def unbind_on_end(session: Session, *, actor: str, now: datetime) -> list[Event]:
    """A SESSION_END that ends the work unbinds the session from its tasks (history kept),
    except for desktop sessions, whose local_… id outlives the process (§4)."""
    if session.kind == KIND_DESKTOP:
        return []
    bindings = TaskBinding.objects.select_related("task__project").filter(
        session=session, unbound_at__isnull=True
    )
    events = []
    for binding in bindings:
        _close(binding, actor=actor, reason=SESSION_END_REASON, now=now)
        events.append(
            record_event(
                EventKind.TASK_SESSION_UNBOUND,
                project=binding.task.project,
                task=binding.task,
                actor=actor,
                payload={"session": session.name, "reason": SESSION_END_REASON},
            )
        )
    return events


def set_stop_blocks(session: Session, value: int) -> None:
    session.stop_blocks = value
    session.save(update_fields=["stop_blocks"])


def store_todo(
    session: Session, agent_id: str, items: Sequence[TodoItem], *, actor: str
) -> list[Event]:
    """The agent's todo list of this agent session id, replacing the session's older lists
    (a new id after /clear starts a fresh one); session.todo_updated per bound task."""
    SessionTodo.objects.filter(session=session).delete()
    SessionTodo.objects.bulk_create(
        SessionTodo(
            session=session,
            agent_session_id=agent_id,
            item_id=item.item_id,
            subject=item.subject,
            status=item.status,
            active_form=item.active_form,
            position=position,
        )
        for position, item in enumerate(items)
    )
    bindings = TaskBinding.objects.select_related("task__project").filter(
        session=session, unbound_at__isnull=True
    )
    return [
        record_event(
            EventKind.SESSION_TODO_UPDATED,
            project=binding.task.project,
            task=binding.task,
            actor=actor,
            payload=_todo_payload(session, items),
        )
        for binding in bindings
    ]


def _todo_payload(session: Session, items: Sequence[TodoItem]) -> dict[str, object]:
    """What the agent is doing now: the active form of the first item in progress."""
    doing = next((i.active_form or i.subject for i in items if i.status == "in_progress"), "")
    return {"session": session.name, "items": len(items), "in_progress": doing}


def activity_flush(session_id: int, *, activity: str, at: datetime, cwd: str) -> bool:
    """Write a working session's latest activity held in its 5 s window (§4 "the latest
    wins"); False when the session is no longer working or has a newer one. One
    transaction, like the hook event that would have written it."""
    with transaction.atomic(durable=True):
        session = Session.objects.filter(pk=session_id, hook_status=WORKING).first()
        if session is None or (session.activity_at and session.activity_at > at):
            return False
        session.activity = activity
        session.activity_at = at
        fields = ["activity", "activity_at"]
        if cwd and cwd != session.cwd:
            session.cwd = cwd
            fields.append("cwd")
        session.save(update_fields=fields)
    return True


def record_stuck(session: Session, tasks: Sequence[Task], reason: str, *, actor: str) -> None:
    """session.stuck for each open task of a session that repeats one call,
    inside the hook's transaction."""
    for task in tasks:
        _stuck_event(task, session.name, reason, actor=actor)
