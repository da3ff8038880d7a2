"""The write path of the hooks (§4): one service, `hook_event`, per neutral hook event.

One transaction: link the event to a session (linking.py), store the todo (before the
activity coalescing, so a change is never lost), write the hook status, unbind on a
SESSION_END that ends the work, then compose the answer (answer.py: the SessionStart line,
the context providers, the Stop handlers under the generic Stop rules). The event and the
answer are agent-neutral (event.py); the agent's adapter parses and renders them.

Every row it changes is written by sessions.services.hooks (the one write path of the app);
the 5 s activity window is activity.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from django.db import DatabaseError, transaction
from django.utils import timezone

from core import actor as actors
from core.errors import SecretRefused
from core.no_secrets import masked
from environments import selectors as env_selectors
from sessions.fields import stored_agent_id, valid_agent_session_id
from sessions.hooks import activity as window
from sessions.hooks import answer as hook_answer
from sessions.hooks import approvals as held
from sessions.hooks import carried, linking, registry, todos, waiting
from sessions.hooks import event as ev
from sessions.hooks.answer import HookAnswer, HookCall
from sessions.hooks.event import HookEvent
from sessions.hooks.observed import observed as observe
from sessions.models import ENDED, IDLE, WAITING, WORKING, Session
from sessions.services import collisions as collision_steps
from sessions.services import hooks as hook_steps
from tasks.models import Event

log = logging.getLogger("relaybay.hooks")
ACTIVITY_MAX = 200
NOTIFICATION_MAX = 120


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pre_tool(e: HookEvent) -> tuple[str, str]:
    """Working with the tool's name, or waiting with what a question or a plan to approve
    asks (waiting.py: the one redacted summary of a tool input that is stored)."""
    line = waiting.asking(e)
    if line is not None:
        return WAITING, line
    return WORKING, _cut(e.tool.name if e.tool else "tool", ACTIVITY_MAX)


def _notice(e: HookEvent) -> tuple[str, str]:
    """Waiting: on a permission (the pending call's summary), on input, or the message."""
    line = waiting.notified(e)
    if line is not None:
        return WAITING, line
    message = e.notice.message if e.notice else ""
    return WAITING, _cut(message or "waiting for you", NOTIFICATION_MAX)


# Event kind → (status, activity). Prompt text is never read here, and tool input only for
# the waiting summary (§9.8, waiting.py).
STATUS: dict[str, Callable[[HookEvent], tuple[str, str]]] = {
    ev.SESSION_START: lambda e: (WORKING, _cut(f"started ({e.source or '?'})", 200)),
    ev.PROMPT: lambda e: (WORKING, "prompt"),
    ev.PRE_TOOL: _pre_tool,
    ev.POST_TOOL: lambda e: (WORKING, _cut(e.tool.name if e.tool else "tool", ACTIVITY_MAX)),
    ev.NOTICE: _notice,
    ev.APPROVAL: lambda e: (
        WAITING,
        waiting.summary(e.tool.name, e.tool.waits_on, e.test_values) if e.tool else "approval",
    ),
    ev.STOP: lambda e: (IDLE, "turn finished"),
    ev.SESSION_END: lambda e: (
        (IDLE if e.process_only else ENDED),
        _cut(f"{'process ended' if e.process_only else 'ended'} ({e.reason or '?'})", 200),
    ),
}
# Events after which the last PRE_TOOL is no longer pending (waiting.py).
CALL_ENDS = frozenset({ev.POST_TOOL, ev.PROMPT, ev.STOP, ev.SESSION_END})


@dataclass(frozen=True)
class Handled:
    """The neutral answer (None: the event was ignored or dropped), the session the event
    belongs to and its events."""

    answer: HookAnswer | None
    session: Session | None = None
    events: tuple[Event, ...] = ()
    ignored: bool = False  # an event relaybay does not handle, or no usable session id
    dropped: bool = False  # a SESSION_END for an id no session holds
    flush_in: float | None = None  # an activity is pending: flush_pending_activity after this


def hook_event(event: HookEvent, *, actor: str = actors.HOOK) -> Handled:
    """Handle one neutral hook event (§4): decide, then store, then answer.

    The deciders (the guard) answer first, from the event as it came and the session it
    belongs to as read so far; the bookkeeping (link, todo, status, unbinding) stores the
    event as observed (observed.py: masked, never refused) in a savepoint of its own; the
    providers and the Stop handlers answer last. A failure of the bookkeeping is one log
    line and costs the answer nothing (docs/policy.md "The guard never fails open").

    Context the agent would not read on this event waits for its next one it reads
    (carried.py); that one's answer starts with it."""
    handled = _handle(event, actor=actor)
    answer = handled.answer
    unread = registry.CONTEXT_KINDS - registry.capabilities(event.agent).context_on
    if answer is not None and answer.lines and event.kind in unread:
        carried.hold(event.agent, stored_agent_id(event.session_id), answer.lines)
        answer.lines = []
    return handled


def _handle(event: HookEvent, *, actor: str) -> Handled:
    if event.kind not in STATUS or not valid_agent_session_id(event.session_id):
        return Handled(answer=None, ignored=True)
    now = timezone.now()
    seen = observe(event, env_selectors.stored_test_values())
    link = linking.decide(seen)
    if link.action == linking.DROP:
        return Handled(answer=None, dropped=True)
    caps = registry.capabilities(seen.agent)
    answer = HookAnswer()
    if seen.kind in caps.context_on:
        for line in carried.take(seen.agent, seen.session_id):
            answer.add_context(line)
    if seen.kind == ev.SESSION_START:
        answer.add_context(hook_answer.session_start_line(seen.session_id, caps.meta_links))
    if _continues(seen, link, caps):
        seen = replace(seen, continues_turn=True)
    known = link.session if link.action in _KNOWN else None
    decided = HookCall(event=event, session=known, exact=False, actor=actor)
    hook_answer.run_deciders(decided, answer)
    try:
        with transaction.atomic(durable=True):
            stored = _store(seen, link, actor=actor, now=now)
            session, events = stored if stored is not None else (_reread(known), [])
            if session is None:
                return Handled(answer=answer)
            exact = session.agent_exact and session.agent_session_id == seen.session_id
            call = HookCall(event=seen, session=session, exact=exact, actor=actor)
            if link.action == linking.EXISTING and stored is not None:
                decided.share_bound_tasks(call)  # no binding moved: one read for both
            hook_answer.run_providers(call, answer)
            if seen.kind == ev.STOP:
                _stop(call, session, answer)
            held.terminal_step(call)  # the person answered the CLI's prompt meanwhile
            held.request_step(call, answer)  # the owner may decide on the board
    except DatabaseError as exc:  # the database itself failed: the decision still goes out
        log.error("%s hook %s: nothing stored (%s)", event.agent, event.name, _said(exc))
        return Handled(answer=answer)
    except Exception:  # a bug: its traceback is worth a look, and the answer still goes out
        log.exception("%s hook %s failed after its decision", event.agent, event.name)
        return Handled(answer=answer)
    return Handled(
        answer=answer,
        session=session,
        events=tuple(events),
        flush_in=window.activity_clock.next_due_in(),
    )


def _continues(seen: HookEvent, link: linking.Link, caps: registry.Capabilities) -> bool:
    """A PROMPT that is the agent's continuation after relaybay blocked its turn's end:
    the agent's block returns as a prompt, and the session's turn holds a block."""
    session = link.session if link.action == linking.EXISTING else None
    return (
        seen.kind == ev.PROMPT
        and caps.block_returns_as_prompt
        and session is not None
        and session.stop_blocks > 0
    )


def _turn_starts(seen: HookEvent) -> bool:
    """A person's prompt starts a turn; so does a new process of an agent whose prompts
    do not (its continuation is a prompt: a run that died in one must not hold its
    block count)."""
    if seen.kind == ev.PROMPT:
        return not seen.continues_turn
    return (
        seen.kind == ev.SESSION_START and registry.capabilities(seen.agent).block_returns_as_prompt
    )


def _reread(session: Session | None) -> Session | None:
    """The session as stored, after a bookkeeping that failed may have changed it in memory."""
    return None if session is None else Session.objects.filter(pk=session.pk).first()


# The links whose session exists before the event is stored: the guard's scope.
_KNOWN = frozenset({linking.EXISTING, linking.ENV, linking.GUESS})


def _store(
    seen: HookEvent, link: linking.Link, *, actor: str, now: datetime
) -> tuple[Session, list[Event]] | None:
    """The bookkeeping of one event in its own savepoint: the link, the todo, the status,
    the unbinding on a SESSION_END. None, logged once, when it failed: a refusal of the
    database's last line here is a bug (an observation reached it unmasked), never a
    reason to leave the agent without its answer."""
    try:
        with transaction.atomic():
            if seen.kind in CALL_ENDS:
                waiting.call_ended(seen.session_id)
            session, before, events = _apply_link(link, seen, actor=actor, now=now)
            if seen.todo is not None:
                events += todos.capture(session, seen.session_id, seen.todo, actor=actor)
            # A new link or a new process is news, like a status change: written at once.
            at_once = link.action != linking.EXISTING or seen.kind == ev.SESSION_START
            events += _write_status(session, seen, before, at_once=at_once, actor=actor, now=now)
            if seen.kind == ev.SESSION_END and not seen.keeps_bindings:
                events += hook_steps.unbind_on_end(session, actor=actor, now=now)
            if seen.kind == ev.SESSION_END and session.hook_status == ENDED:
                # an ended session's paths end with it (collision warnings)
                collision_steps.forget_paths_step(session)
            if session.stop_blocks and _turn_starts(seen):
                hook_steps.set_stop_blocks(session, 0)
    except SecretRefused as exc:
        log.error(
            "%s hook %s: the database refused the session's bookkeeping, a bug: %s",
            seen.agent,
            seen.name,
            _said(exc),
        )
        return None
    except DatabaseError as exc:
        log.error("%s hook %s: the bookkeeping failed: %s", seen.agent, seen.name, _said(exc))
        return None
    except Exception:
        log.exception("%s hook %s: the bookkeeping failed", seen.agent, seen.name)
        return None
    return session, events


def _said(exc: Exception) -> str:
    """An error as one log line: its kind and its message, every token shape masked."""
    return masked(f"{type(exc).__name__}: {' '.join(str(exc).split())}")[:300]


# --- linking, status ---------------------------------------------------------------------


def _apply_link(
    link: linking.Link, event: HookEvent, *, actor: str, now: datetime
) -> tuple[Session, str, list[Event]]:
    """The session the event belongs to, its status before the event, and events."""
    if link.action == linking.EXISTING:
        assert link.session is not None
        return link.session, link.session.hook_status, []
    if link.action in (linking.ENV, linking.GUESS):
        assert link.session is not None
        before = hook_steps.link_to(
            link.session,
            event.session_id,
            agent=event.agent,
            exact=link.action == linking.ENV,
            take_from=link.holder,
        )
        return link.session, before, []
    session, seen = hook_steps.new_hook_session(
        name=link.folder,
        project=link.project,
        agent=event.agent,
        agent_id=event.session_id,
        cwd=event.cwd,
        transcript_path=event.transcript_path,
        reason=link.reason,
        actor=actor,
        now=now,
    )
    return session, "", [seen]


def _write_status(
    session: Session, event: HookEvent, before: str, *, at_once: bool, actor: str, now: datetime
) -> list[Event]:
    status, activity = STATUS[event.kind](event)
    changed = at_once or status != before or session.hook_status != status
    # A transcript named anew is written at once: the effort reader goes by it.
    renamed = bool(event.transcript_path) and event.transcript_path != session.transcript_path
    changed = changed or renamed
    if not changed and status == WORKING and not window.activity_clock.due(session.pk):
        # Inside the window: the latest is kept and written when the window ends (§4).
        pending = window.PendingActivity(activity, now, event.cwd[: hook_steps.CWD_MAX])
        window.activity_clock.hold(session.pk, pending)
        return []
    events = hook_steps.write_status(
        session,
        status=status,
        activity=activity,
        cwd=event.cwd,
        transcript_path=event.transcript_path,
        agent=event.agent,
        before=before,
        actor=actor,
        now=now,
    )
    window.activity_clock.written(session.pk)
    return events


# --- Stop -------------------------------------------------------------------------------


def _stop(call: HookCall, session: Session, answer: HookAnswer) -> None:
    """Grant the first stop handler's request when the generic rules allow a block; an
    allowed Stop resets the turn's counter (§4)."""
    blocks = session.stop_blocks
    limit = registry.capabilities(call.event.agent).turn_end_blocks
    request = None
    if hook_answer.stop_may_block(
        continued=call.event.stop_continued, blocks_this_turn=blocks, limit=limit
    ):
        request = hook_answer.ask_stop_handlers(call)
    if request is not None and hook_answer.grant(request):
        hook_steps.set_stop_blocks(session, blocks + 1)
        answer.block_reason = request.reason
    elif blocks:
        hook_steps.set_stop_blocks(session, 0)
