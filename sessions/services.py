"""Writes about sessions: who is calling, binding tasks, aliases, exact hook links (§1, §4).

Every public function is keyword-only and one transaction, and appends its events in that
transaction. Shared steps are private helpers that run inside the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from core.errors import InvalidField, NotFound
from sessions.fields import Ident, given, parse_hook_session, parse_session, parse_title
from sessions.models import (
    ENDED,
    KIND_DESKTOP,
    KIND_HOOK,
    KIND_NAMED,
    LINK_AGENT,
    Session,
    SessionAlias,
    SessionTodo,
    TaskBinding,
)
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.models import Event, Task
from tasks.selectors import get_task

REASON_MAX = 200
# The hook state a session takes over with a Claude Code id (saved together, §4 step 2).
HOOK_STATE_FIELDS = (
    "unlinked_reason",
    "hook_status",
    "activity",
    "activity_at",
    "cwd",
    "stop_blocks",
)


# --- results -------------------------------------------------------------------------


@dataclass(frozen=True)
class TouchResult:
    """The calling session (None when the write named none) and notes for the answer."""

    session: Session | None
    created: bool = False
    notes: tuple[str, ...] = ()
    events: tuple[Event, ...] = ()


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


# --- public services -----------------------------------------------------------------


def session_touch(
    *,
    session: str | None,
    session_title: str | None = None,
    hook_session: str | None = None,
    actor: str,
    task: Task | None = None,
) -> TouchResult:
    """Resolve who is calling a write tool (its `session`, `session_title`, `hook_session`).

    local_<uuid> → the desktop session (created if new; its title set when given); a plain
    name → the session it is an alias of, else the named session (created if new).
    hook_session links that Claude Code id exactly to the caller (§4 step 2). `task` only
    places a session.seen event in the task's project feed.
    """
    ident = parse_session(session)
    title = parse_title(session_title)
    cc_id = parse_hook_session(hook_session)
    if ident is None:
        notes = ()
        if cc_id:
            notes = (
                "Note: hook_session was not linked: pass session (your local_… id or your "
                "name) with it.",
            )
        return TouchResult(session=None, notes=notes)
    now = timezone.now()
    with transaction.atomic():
        found, created, events = _resolve(ident, title, actor=actor, task=task, now=now)
        notes: list[str] = []
        if cc_id:
            notes += _link_exact(found, cc_id, actor=actor, now=now, events=events)
        _mark_seen(found, now)
    return TouchResult(session=found, created=created, notes=tuple(notes), events=tuple(events))


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
    with transaction.atomic():
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
    with transaction.atomic():
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
    with transaction.atomic():
        task = _task_of(task)
        who = caller_in(actor, task_key=task.key)
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


# --- private steps (inside the caller's transaction) ---------------------------------


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
    TaskBinding.objects.create(task=task, session=target, bound_at=now, bound_by=actor)
    events.append(
        record_event(
            EventKind.TASK_SESSION_BOUND,
            project=task.project,
            task=task,
            actor=actor,
            payload={"session": target.name, "previous": previous.name if previous else None},
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
    return (
        TaskBinding.objects.select_related("session")
        .filter(task=task, unbound_at__isnull=True)
        .first()
    )


def _close(binding: TaskBinding, *, actor: str, reason: str, now: datetime) -> None:
    binding.unbound_at = now
    binding.unbound_by = actor
    binding.unbind_reason = reason
    binding.save(update_fields=["unbound_at", "unbound_by", "unbind_reason"])


def _resolve(
    ident: Ident, title: str | None, *, actor: str, task: Task | None, now: datetime
) -> tuple[Session, bool, list[Event]]:
    """The session an identity names, created if new, with its title updated when given.

    A session.seen event only when a session is created or its title changes — not on
    every call: agents pass `session` on every write and the log must not fill with noise.
    """
    if ident.kind == KIND_DESKTOP:
        found = Session.objects.filter(desktop_id=ident.name).first()
    else:
        alias = SessionAlias.objects.select_related("session").filter(name=ident.name).first()
        found = (
            alias.session
            if alias
            else Session.objects.filter(kind=KIND_NAMED, name=ident.name).first()
        )
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


def _mark_seen(session: Session, now: datetime) -> None:
    # A plain column update, no event: "last seen" is a board detail, not log material.
    Session.objects.filter(pk=session.pk).update(last_seen_at=now)
    session.last_seen_at = now


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


def _link_exact(
    session: Session, cc_id: str, *, actor: str, now: datetime, events: list[Event]
) -> list[str]:
    """Link a Claude Code session id exactly to `session` (§4 step 2); notes for the answer."""
    if session.cc_session_id == cc_id:
        if not session.cc_exact or session.cc_link != LINK_AGENT:
            session.cc_exact = True
            session.cc_link = LINK_AGENT
            session.save(update_fields=["cc_exact", "cc_link"])
        return []
    holder = Session.objects.filter(cc_session_id=cc_id).first()
    before = session.hook_status
    if holder is not None:
        if holder.cc_exact and holder.hook_status != ENDED:
            return [
                f"Warning: hook_session {cc_id} belongs to another session ({holder.name}); "
                "not relinked."
            ]
        _take_over(holder, session)
    else:
        session.stop_blocks = 0  # a new Claude Code id: a new turn count
    session.cc_session_id = cc_id
    session.cc_exact = True
    session.cc_link = LINK_AGENT
    session.unlinked_reason = ""
    session.save(update_fields=["cc_session_id", "cc_exact", "cc_link", *HOOK_STATE_FIELDS])
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
    session.stop_blocks = holder.stop_blocks
    session.unlinked_reason = ""
    SessionTodo.objects.filter(session=session, cc_session_id=holder.cc_session_id).delete()
    SessionTodo.objects.filter(session=holder, cc_session_id=holder.cc_session_id).update(
        session=session
    )
    if holder.kind == KIND_HOOK and not holder.cc_exact:
        TaskBinding.objects.filter(session=holder).update(session=session)
        holder.delete()
        return
    holder.cc_session_id = None
    holder.cc_exact = False
    holder.cc_link = ""
    holder.hook_status = ""
    holder.activity = ""
    holder.activity_at = None
    holder.stop_blocks = 0
    holder.save(
        update_fields=[
            "cc_session_id",
            "cc_exact",
            "cc_link",
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
    return [
        record_event(
            EventKind.SESSION_STATUS_CHANGED,
            project=b.task.project,
            task=b.task,
            actor=actor,
            payload={"session": session.name, "from": before, "to": session.hook_status},
        )
        for b in bindings
    ]
