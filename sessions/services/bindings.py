"""task_bind_session / task_unbind_session: which session works on a task (§1).

A plain name for a task bound to a desktop session becomes an alias, never a rebind; a
binding that ends keeps its history (unbound_at, by, reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from core.errors import InvalidField, NotFound
from core.rows import insert
from sessions.fields import given, parse_session, parse_title
from sessions.models import (
    KIND_DESKTOP,
    KIND_NAMED,
    Session,
    SessionAlias,
    TaskBinding,
)
from sessions.selectors import binding_history
from sessions.services._steps import _close, _resolve
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in, refuse_secrets
from tasks.models import Event, Task
from tasks.selectors import get_task

REASON_MAX = 200


@dataclass(frozen=True)
class BindResult:
    """What task_bind_session did: bound (changed), kept (no-op), aliased or refused."""

    task: Task
    session: Session | None  # the session bound to the task after the call
    previous: Session | None = None  # the session it was bound to before, when rebound
    changed: bool = False
    alias: str | None = None  # the alias created instead of rebinding
    events: tuple[Event, ...] = ()
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class UnbindResult:
    task: Task
    session: Session | None  # the session that was bound; None when none was
    event: Event | None = None
    caller_notes: tuple[str, ...] = ()  # what resolving the calling session had to say


def _task_of(task: Task | str) -> Task:
    """A Task as the board has it, or a key as an MCP tool passes it (loaded here, inside
    the service's transaction, so the tool makes no read of its own first)."""
    return task if isinstance(task, Task) else get_task(task)


def _reason(value: str) -> str:
    text = " ".join((value or "").split())
    if len(text) > REASON_MAX:
        raise InvalidField(
            "reason", f"reason is at most {REASON_MAX} characters. Pass a shorter reason."
        )
    return text


def task_bind_session(
    *,
    task: Task | str,
    session: str = "",
    session_id: int | None = None,
    session_title: str | None = None,
    hook_session: str | None = None,
    actor: str,
) -> BindResult:
    """Bind a task to a session, keeping the previous binding in the history (§1).

    A plain name for a task bound to a desktop session does not rebind: it becomes that
    session's alias, unless a named session of that name exists (then nothing changes).
    hook_session is never linked here: the caller may be binding another session.
    session_id (the board's session picker) binds that exact session instead: the owner
    chose it from a list, so neither name resolution nor the alias rule applies, and it
    also reaches hook sessions, whose folder name is no identity. task: the Task, or its key
    (the MCP tool), loaded inside this transaction.
    """
    if session_id is not None:
        return _bind_by_id(task, session_id, actor=actor)
    refuse_secrets(
        task.project if isinstance(task, Task) else None,
        values={"session": session},
        texts={"session_title": session_title},
    )
    ident = parse_session(session)
    if ident is None:
        raise InvalidField(
            "session",
            "Pass the session to bind: your local_… desktop session id (with session_title) "
            "or a plain name.",
        )
    title = parse_title(session_title)
    notes: list[str] = []
    if given(hook_session):
        notes.append(
            "Note: task_bind_session does not link hook_session (it may bind another "
            "session). Pass hook_session with session on a write of your own session "
            "instead, e.g. task_update or report_add."
        )
    now = timezone.now()
    with transaction.atomic(durable=True):
        task = _task_of(task)
        current = _current_binding(task)
        if (
            ident.kind == KIND_NAMED
            and current is not None
            and current.session.kind == KIND_DESKTOP
            and not SessionAlias.objects.filter(name=ident.name).exists()
        ):
            return _alias_instead(task, current.session, ident.name, actor, now, notes)
        target, _created, events = _resolve(ident, title, actor=actor, task=task, now=now)
        return _rebind(task, current, target, actor=actor, now=now, events=events, notes=notes)


def _bind_by_id(task: Task | str, session_id: int, *, actor: str) -> BindResult:
    with transaction.atomic(durable=True):
        task = _task_of(task)
        target = Session.objects.filter(pk=session_id).first()
        if target is None:
            raise NotFound(
                f"Unknown session {session_id}. Reload the page to see the sessions there are."
            )
        current = _current_binding(task)
        return _rebind(task, current, target, actor=actor, now=timezone.now(), events=[], notes=[])


def task_unbind_session(*, task: Task | str, actor: Actor, reason: str = "") -> UnbindResult:
    """Unbind the task's session; the binding stays in the history with the reason.

    actor: the board's name, or the calling agent's CallerRef, resolved inside this
    transaction so a refused unbind records no session either.
    """
    reason = _reason(reason)
    with transaction.atomic(durable=True):
        task = _task_of(task)
        refuse_secrets(task.project, texts={"reason": reason})
        who = caller_in(actor, task=task)
        current = _current_binding(task)
        if current is None:
            return UnbindResult(task=task, session=None, caller_notes=who.notes)
        _close(current, actor=who.name, reason=reason, now=timezone.now())
        event = record_event(
            EventKind.TASK_SESSION_UNBOUND,
            project=task.project,
            task=task,
            actor=who.name,
            payload={"session": current.session.name, "reason": reason},
        )
    return UnbindResult(task=task, session=current.session, event=event, caller_notes=who.notes)


def _rebind(
    task: Task,
    current: TaskBinding | None,
    target: Session,
    *,
    actor: str,
    now: datetime,
    events: list[Event],
    notes: list[str],
) -> BindResult:
    """Bind `target`, closing the current binding; binding the bound session is a no-op."""
    if current is not None and current.session_id == target.id:
        return BindResult(task=task, session=target, events=tuple(events), notes=tuple(notes))
    previous = current.session if current else None
    if current is not None:
        _close(current, actor=actor, reason=f"rebound to {target.name}", now=now)
    insert(TaskBinding(task=task, session=target, bound_at=now, bound_by=actor))
    events.append(
        record_event(
            EventKind.TASK_SESSION_BOUND,
            project=task.project,
            task=task,
            actor=actor,
            payload={"session": target.name, "previous": previous.name if previous else None}
            # the session's hook status: where the task's agent time starts (effort/intervals.py)
            | ({"status": target.hook_status} if target.hook_status else {}),
        )
    )
    return BindResult(
        task=task,
        session=target,
        previous=previous,
        changed=True,
        events=tuple(events),
        notes=tuple(notes),
    )


def _current_binding(task: Task) -> TaskBinding | None:
    """The task's open binding with its session: the latest binding, when it is open (a new
    one is made only after the open one is closed), in one statement written once."""
    latest = binding_history(task, 1)
    return latest[0] if latest and latest[0].unbound_at is None else None


def _alias_instead(
    task: Task, desktop: Session, name: str, actor: str, now: datetime, notes: list[str]
) -> BindResult:
    """A plain name for a task bound to a desktop session: alias it, never rebind (§1)."""
    if Session.objects.filter(kind=KIND_NAMED, name=name).exists():
        notes.insert(
            0,
            f"Warning: {task.key} is bound to desktop session {desktop.name}; '{name}' was "
            f"not made its alias because a session named {name} already exists. Nothing "
            "changed. A desktop session passes its local_… id; to move the task to "
            f"{name}, call task_unbind_session first and bind again.",
        )
        return BindResult(task=task, session=desktop, notes=tuple(notes))
    SessionAlias.objects.create(name=name, session=desktop, created_by=actor, created_at=now)
    event = record_event(
        EventKind.SESSION_ALIAS_ADDED,
        project=task.project,
        task=task,
        actor=actor,
        payload={"alias": name, "session": desktop.name},
    )
    return BindResult(task=task, session=desktop, alias=name, events=(event,), notes=tuple(notes))
