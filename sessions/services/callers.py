"""session_touch: who is calling a write tool, resolved inside that write (§1, §4 step 2)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from sessions.fields import (
    parse_hook_session,
    parse_session,
    parse_title,
    stored_agent_id,
    valid_agent_session_id,
)
from sessions.models import (
    Session,
)
from sessions.selectors import session_by_agent_id
from sessions.services._steps import _link_exact, _mark_seen, _resolve
from tasks.extensions import refuse_secrets
from tasks.models import Event, Task


@dataclass(frozen=True)
class TouchResult:
    """The calling session (None when the write named none) and notes for the answer."""

    session: Session | None
    created: bool = False
    notes: tuple[str, ...] = ()
    events: tuple[Event, ...] = ()


def session_touch(
    *,
    session: str | None,
    session_title: str | None = None,
    hook_session: str | None = None,
    call_session: str | None = None,
    actor: str,
    task: Task | None = None,
) -> TouchResult:
    """Resolve who is calling a write tool (its `session`, `session_title`, `hook_session`).

    local_<uuid> → the desktop session (created if new; its title set when given); a plain
    name → the session it is an alias of, else the named session (created if new).
    hook_session links that agent session id exactly to the caller (§4 step 2);
    `call_session`, the id the MCP call itself carried (Codex's _meta.sessionId), does the
    same when no hook_session is given and a hook session already reports that id — by the
    same rules, silently otherwise. `task` only places a session.seen event in the task's
    project feed.
    """
    refuse_secrets(
        task.project if task is not None else None,
        values={"session": session, "hook_session": hook_session},
        texts={"session_title": session_title},
    )
    ident = parse_session(session)
    title = parse_title(session_title)
    agent_id = parse_hook_session(hook_session)
    if call_session:  # observed, not written: kept as the hooks keep it (masked, never refused)
        call_session = stored_agent_id(call_session)
    by_call = agent_id is None and _reported(call_session)
    if ident is None:
        notes = ()
        if agent_id:
            notes = (
                "Note: hook_session was not linked: pass session (your local_… id or your "
                "name) with it.",
            )
        return TouchResult(session=None, notes=notes)
    now = timezone.now()
    # No savepoint: inside a write (caller_in) a failure here refuses the whole write
    # anyway, and SAVEPOINT + RELEASE were two of the fifteen statements of every move.
    with transaction.atomic(savepoint=False):
        found, created, events = _resolve(ident, title, actor=actor, task=task, now=now)
        notes: list[str] = []
        if agent_id:
            notes += _link_exact(found, agent_id, actor=actor, now=now, events=events)
        elif by_call and call_session:
            _link_exact(found, call_session, actor=actor, now=now, events=events)
        _mark_seen(found, now)
    return TouchResult(session=found, created=created, notes=tuple(notes), events=tuple(events))


def _reported(call_session: str | None) -> bool:
    """Whether a hook session reports the id the MCP call carried (only then it links)."""
    if not call_session or not valid_agent_session_id(call_session):
        return False
    return session_by_agent_id(call_session) is not None
