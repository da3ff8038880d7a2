"""The write path of the Claude Code hooks (§4): one service, `hook_event`, per hook request.

One transaction: link the event to a session (sessions.linking), store the todo (before
the activity coalescing, so a change is never lost), write the hook status, unbind on
SessionEnd, then compose the answer (sessions.hook_answer: the SessionStart line, the
context providers, the Stop handlers under the generic Stop rules).

Lives beside the session services (sessions/services/) rather than among them: the steps
it shares with them (`_take_over`, `_status_events`, `_close`) are in
sessions/services/_steps.py, and the 5 s activity window is sessions/activity.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from core import actor as actors
from sessions import activity as window
from sessions import hook_answer, linking, todo_capture, waiting
from sessions.fields import _CC_ID
from sessions.hook_answer import HookAnswer, HookCall
from sessions.models import (
    ENDED,
    IDLE,
    KIND_DESKTOP,
    KIND_HOOK,
    LINK_AGENT,
    LINK_ENV,
    LINK_GUESS,
    WAITING,
    WORKING,
    Session,
    TaskBinding,
)
from sessions.services._steps import HOOK_STATE_FIELDS, _close, _status_events, _take_over
from tasks.events import EventKind, record_event
from tasks.models import Event

ACTIVITY_MAX = 200
NOTIFICATION_MAX = 120
SESSION_END_REASON = "session_end"
# SessionEnd reasons after which the session lives on (§4): /clear and /resume.
KEEPS_BINDINGS = frozenset({"clear", "resume"})


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _str(payload: Mapping[str, Any], key: str) -> str:
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def _pre_tool_use(p: Mapping[str, Any]) -> tuple[str, str]:
    """Working with the tool's name, or waiting with what an AskUserQuestion / ExitPlanMode
    asks (sessions.waiting: the one redacted summary of a tool input that is stored)."""
    line = waiting.asking(p)
    if line is not None:
        return WAITING, line
    return WORKING, _cut(_str(p, "tool_name") or "tool", ACTIVITY_MAX)


def _notification(p: Mapping[str, Any]) -> tuple[str, str]:
    """Waiting: on a permission (the pending call's summary), on input, or the message."""
    line = waiting.notified(p)
    if line is not None:
        return WAITING, line
    return WAITING, _cut(_str(p, "message") or "waiting for you", NOTIFICATION_MAX)


# Event → (status, activity). Prompt text is never read here, and tool input only for the
# waiting summary (§9.8, sessions/waiting.py).
STATUS: dict[str, Callable[[Mapping[str, Any]], tuple[str, str]]] = {
    "SessionStart": lambda p: (WORKING, _cut(f"started ({_str(p, 'source') or '?'})", 200)),
    "UserPromptSubmit": lambda p: (WORKING, "prompt"),
    "PreToolUse": _pre_tool_use,
    "PostToolUse": lambda p: (WORKING, _cut(_str(p, "tool_name") or "tool", ACTIVITY_MAX)),
    "Notification": _notification,
    "Stop": lambda p: (IDLE, "turn finished"),
    "SessionEnd": lambda p: (ENDED, _cut(f"ended ({_str(p, 'reason') or '?'})", 200)),
}
HANDLED = frozenset(STATUS)
# Events after which the last PreToolUse is no longer pending (sessions/waiting.py).
CALL_ENDS = frozenset({"PostToolUse", "UserPromptSubmit", "Stop", "SessionEnd"})


@dataclass(frozen=True)
class HookResult:
    """The answer body (None → 204), the session the event belongs to and its events."""

    answer: dict[str, Any] | None
    session: Session | None = None
    events: tuple[Event, ...] = ()
    ignored: bool = False  # an event relaybay does not handle, or no usable session_id
    dropped: bool = False  # a SessionEnd for an id no session holds
    flush_in: float | None = None  # an activity is pending: flush_pending_activity after this


def hook_event(
    *,
    payload: Mapping[str, Any],
    headers: Mapping[str, str] | None = None,
    actor: str = actors.HOOK,
) -> HookResult:
    """Handle one Claude Code hook input (§4): status, links, todo, answer.

    `headers` are the request's headers, lower-cased (the http hook's
    X-Relaybay-Host-Session / X-Relaybay-Host-Attended). Unknown fields are ignored.
    """
    event = payload.get("hook_event_name")
    cc_id = payload.get("session_id")
    if not isinstance(event, str) or event not in HANDLED or not _valid_id(cc_id):
        return HookResult(answer=None, ignored=True)
    headers = headers or {}
    now = timezone.now()
    with transaction.atomic():
        if event in CALL_ENDS:
            waiting.call_ended(cc_id)
        link = linking.decide(cc_id, event, payload, headers)
        if link.action == linking.DROP:
            return HookResult(answer=None, dropped=True)
        session, before, events = _apply_link(link, cc_id, payload, actor=actor, now=now)
        if event == "PostToolUse":
            events += todo_capture.capture(session, cc_id, payload, actor=actor)
        # A new link or a new process is news, like a status change: written at once.
        at_once = link.action != linking.EXISTING or event == "SessionStart"
        events += _write_status(
            session, event, payload, before, at_once=at_once, actor=actor, now=now
        )
        if event == "SessionEnd":
            events += _unbind_on_end(session, _str(payload, "reason"), actor=actor, now=now)
        if event == "UserPromptSubmit" and session.stop_blocks:
            _set_stop_blocks(session, 0)
        call = HookCall(
            event=event,
            payload=payload,
            cc_session_id=cc_id,
            session=session,
            exact=session.cc_exact and session.cc_session_id == cc_id,
            headers=headers,
            actor=actor,
        )
        answer = HookAnswer()
        if event == "SessionStart":
            answer.add_context(hook_answer.session_start_line(cc_id))
        hook_answer.run_providers(call, answer)
        if event == "Stop":
            _stop(call, session, answer)
    return HookResult(
        answer=answer.to_json(event),
        session=session,
        events=tuple(events),
        flush_in=window.activity_clock.next_due_in(),
    )


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) and _CC_ID.fullmatch(value) is not None


# --- linking ----------------------------------------------------------------------------


def _apply_link(
    link: linking.Link, cc_id: str, payload: Mapping[str, Any], *, actor: str, now: datetime
) -> tuple[Session, str, list[Event]]:
    """The session the event belongs to, its status before the event, and events."""
    if link.action == linking.EXISTING:
        assert link.session is not None
        return link.session, link.session.hook_status, []
    if link.action in (linking.ENV, linking.GUESS):
        session = link.session
        assert session is not None
        before = session.hook_status
        if session.cc_session_id == cc_id:
            exact_before = session.cc_link == LINK_AGENT
        else:
            exact_before = False
            if link.holder is not None:
                _take_over(link.holder, session)
            else:
                session.stop_blocks = 0  # a new Claude Code id: a new turn count
        session.cc_session_id = cc_id
        if link.action == linking.ENV:
            session.cc_exact = True
            session.cc_link = LINK_AGENT if exact_before else LINK_ENV
        else:
            session.cc_exact = False
            session.cc_link = LINK_GUESS
        session.unlinked_reason = ""
        session.save(update_fields=["cc_session_id", "cc_exact", "cc_link", *HOOK_STATE_FIELDS])
        return session, before, []
    return _new_hook_row(link, cc_id, payload, actor=actor, now=now)


def _new_hook_row(
    link: linking.Link, cc_id: str, payload: Mapping[str, Any], *, actor: str, now: datetime
) -> tuple[Session, str, list[Event]]:
    """A hook session of its own (§4 steps 4 and 5), named after the folder."""
    session = Session.objects.create(
        name=link.folder,
        kind=KIND_HOOK,
        project=link.project,
        cc_session_id=cc_id,
        cc_exact=False,
        cwd=_str(payload, "cwd")[:1000],
        unlinked_reason=link.reason,
        created_at=now,
    )
    event = record_event(
        EventKind.SESSION_SEEN,
        project=link.project,
        actor=actor,
        payload={"session": session.name, "kind": KIND_HOOK, "title": "", "created": True},
    )
    return session, "", [event]


# --- status, activity, SessionEnd -------------------------------------------------------


def _write_status(
    session: Session,
    event: str,
    payload: Mapping[str, Any],
    before: str,
    *,
    at_once: bool,
    actor: str,
    now: datetime,
) -> list[Event]:
    status, activity = STATUS[event](payload)
    changed = at_once or status != before or session.hook_status != status
    if not changed and status == WORKING and not window.activity_clock.due(session.pk):
        # Inside the window: the latest is kept and written when the window ends (§4).
        pending = window.PendingActivity(activity, now, _str(payload, "cwd")[:1000])
        window.activity_clock.hold(session.pk, pending)
        return []
    session.hook_status = status
    session.activity = activity
    session.activity_at = now
    fields = ["hook_status", "activity", "activity_at"]
    cwd = _str(payload, "cwd")[:1000]
    if cwd and cwd != session.cwd:
        session.cwd = cwd
        fields.append("cwd")
    session.save(update_fields=fields)
    window.activity_clock.written(session.pk)
    return _status_events(session, before, actor) if status != before else []


def _unbind_on_end(session: Session, reason: str, *, actor: str, now: datetime) -> list[Event]:
    """SessionEnd unbinds the session from its tasks (history kept), except after /clear or
    /resume and for desktop sessions, whose local_… id outlives the process (§4)."""
    if session.kind == KIND_DESKTOP or reason in KEEPS_BINDINGS:
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


# --- Stop -------------------------------------------------------------------------------


def _stop(call: HookCall, session: Session, answer: HookAnswer) -> None:
    """Grant the first stop handler's request when the generic rules allow a block; an
    allowed Stop resets the turn's counter (§4)."""
    blocks = session.stop_blocks
    request = None
    if hook_answer.stop_may_block(
        stop_hook_active=call.payload.get("stop_hook_active") is True, blocks_this_turn=blocks
    ):
        request = hook_answer.ask_stop_handlers(call)
    if request is not None and hook_answer.grant(request):
        _set_stop_blocks(session, blocks + 1)
        answer.block_reason = request.reason
    elif blocks:
        _set_stop_blocks(session, 0)


def _set_stop_blocks(session: Session, value: int) -> None:
    session.stop_blocks = value
    session.save(update_fields=["stop_blocks"])
