"""Whether a hook waits for the owner, as a step of the hook service (§7 level ask, the
owner approves from the board; docs/agents.md "Approvals").

A PRE_TOOL the guard asks about, and an APPROVAL (the CLI's own permission prompt), become
an approval request when the hook's client can wait (the event's `hold`, its
X-Relaybay-Hold) and `approval_wait_seconds` is not 0: the door then holds the answer
until the owner decides, the time is up, or the hook goes away (sessions/approvals/room.py).
A request that cannot be stored leaves the answer as it was: the guard's ask (or the deny
of an agent that cannot ask) goes out at once, the CLI's prompt gets no answer — never an
allow. The session's next tool result, prompt or turn end means the person answered the
CLI's own prompt in the terminal: those requests end there.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction

from core import caches
from core.actor import HOOK
from environments.secrets import mask
from sessions.approvals import services as approvals
from sessions.hooks import event as ev
from sessions.hooks.answer import ASK, HookAnswer, HookCall
from sessions.models import (
    APPROVED,
    DENIED,
    FROM_CLI,
    FROM_GUARD,
    GONE,
    TERMINAL,
    TIMED_OUT,
    ApprovalRequest,
)

log = logging.getLogger("relaybay.hooks")

# The door answers this long before the client stops waiting (its network, its start-up).
MARGIN_SECONDS = 10.0
TERMINAL_KINDS = frozenset({ev.POST_TOOL, ev.PROMPT, ev.STOP, ev.SESSION_END})
SUMMARY_MAX = 2000
# Sessions with a CLI prompt waiting on the board, so that their other events cost no query
# (a restart forgets them: their held hooks are gone, and a request past its deadline is
# no longer pending for the board).
_asking_sessions: set[int] = set()
caches.register(
    "sessions.hooks.approvals._asking_sessions",
    key="a session's id",
    bound="the sessions with a held permission prompt",
    invalidation="the session's next tool result, prompt, turn end or end takes it out",
    reset="`approvals.forget()` (the autouse fixture)",
)


def hold_seconds(event: ev.HookEvent) -> float:
    """How long this event's answer may wait for the owner: 0 when it may not."""
    wait = float(settings.RELAYBAY.approval_wait_seconds)
    if event.hold <= MARGIN_SECONDS or wait <= 0:
        return 0.0
    return min(wait, event.hold - MARGIN_SECONDS)


def request_step(call: HookCall, answer: HookAnswer) -> None:
    """Store the request this answer will wait on (inside the hook's transaction, in a
    savepoint of its own); nothing when the answer does not wait."""
    seconds = hold_seconds(call.event)
    tool = call.event.tool
    if seconds <= 0 or call.session is None or tool is None:
        return
    if call.kind == ev.PRE_TOOL and answer.decision == ASK:
        asked = approvals.Asked(
            agent=call.event.agent,
            agent_session_id=call.agent_session_id,
            source=FROM_GUARD,
            tool=tool.name,
            summary=answer.asked.get("summary", ""),
            stand=answer.asked.get("stand", ""),
            level=answer.asked.get("level", ""),
            rule=answer.asked.get("rule", ""),
            reason=answer.decision_reason,
        )
    elif call.kind == ev.APPROVAL:
        raw = (
            tool.command
            or tool.waits_on
            or " ".join(filter(None, (tool.mcp_server, tool.mcp_tool)))
        )
        summary = mask(" ".join(raw.split()), test_values=call.event.test_values)[:SUMMARY_MAX]
        asked = approvals.Asked(
            agent=call.event.agent,
            agent_session_id=call.agent_session_id,
            source=FROM_CLI,
            tool=tool.name,
            summary=summary,
        )
    else:
        return
    task = call.bound_tasks[0] if call.bound_tasks else None
    try:
        with transaction.atomic():
            request = approvals.approval_requested_step(
                asked, session=call.session, task=task, seconds=seconds, actor=call.actor
            )
    except Exception:
        log.exception("%s: the approval request could not be stored", call.event.name)
        return
    answer.hold_id = request.pk
    if asked.source == FROM_CLI:
        _asking_sessions.add(call.session.pk)


def terminal_step(call: HookCall) -> None:
    """The session went on: its CLI's own prompts were answered in the terminal."""
    session = call.session
    if call.kind not in TERMINAL_KINDS or session is None or session.pk not in _asking_sessions:
        return
    _asking_sessions.discard(session.pk)
    approvals.answered_in_terminal_step(session, actor=call.actor)


NOT_ANSWERED = (
    "The owner did not answer on the relaybay board within {minutes} min, so this call was "
    "not run. Ask the owner before you try it again."
)
APPROVED_LINE = "The owner approved this on the relaybay board."
DENIED_LINE = "The owner denied this on the relaybay board"


def settle(answer: HookAnswer, event: ev.HookEvent, outcome: str) -> None:
    """The held answer once the hold ended: the owner's Approve (allow) or Deny (deny with
    their words); otherwise, for the guard's ask a deny saying the owner did not answer
    (fail closed), for the CLI's own prompt no answer (the CLI asks in its own way). A
    hold that ended without the owner ends the request (timed out, gone)."""
    approval_id = answer.hold_id
    if approval_id is None:
        return
    if outcome not in (APPROVED, DENIED, TERMINAL):
        state = GONE if outcome == GONE else TIMED_OUT
        approvals.approval_ended(approval_id=approval_id, state=state, actor=HOOK)
    request = ApprovalRequest.objects.filter(pk=approval_id).first()
    state = request.state if request is not None else GONE
    if state == APPROVED:
        answer.allow(APPROVED_LINE)
    elif state == DENIED:
        said = f": {request.message}" if request is not None and request.message else "."
        answer.deny(DENIED_LINE + said)
    elif event.kind == ev.PRE_TOOL:
        minutes = max(1, round(hold_seconds(event) / 60))
        answer.deny(NOT_ANSWERED.format(minutes=minutes))
    else:
        answer.decision, answer.decision_reason = None, ""


def forget() -> None:
    """Drop the sessions remembered (tests)."""
    _asking_sessions.clear()
