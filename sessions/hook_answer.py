"""The answer a hook event gets, composed from parts other apps plug in (§4).

The hook service builds one `HookCall` per event and one `HookAnswer`, then, inside the
request's transaction and after the status write:

- SessionStart first gets "Your relaybay hook session: <id>. …";
- every context provider registered for the event adds lines (owner comments, plan
  reminders, the guard's notes …) in `order`, sharing one 8000-character budget: a provider
  reads `answer.budget_left` and adds with `answer.add_context(text)`;
- on Stop, the stop handlers are asked in turn for a `StopRequest`; the service grants the
  first one when the generic Stop rules allow a block (`stop_may_block`) and then calls its
  `on_blocked()` in the same transaction.

`to_json(event)` is the body Claude Code reads, or None for a 204.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from django.db import transaction

from sessions.selectors import tasks_bound_to

if TYPE_CHECKING:
    from sessions.models import Session
    from tasks.models import Task

log = logging.getLogger("relaybay.hooks")

CONTEXT_BUDGET = 8000
# The events whose answer may carry hookSpecificOutput.additionalContext (§4).
CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"})
STOP_BLOCKS_PER_TURN = 2


@dataclass(frozen=True)
class HookCall:
    """One hook event as the providers see it.

    `session` is the relaybay session the event was linked to (None only for events that
    create nothing); `exact` is True when that session is cc_exact-linked to this very
    Claude Code id — only then may owner comments go to it (§4).
    """

    event: str
    payload: Mapping[str, Any]
    cc_session_id: str
    session: Session | None
    exact: bool
    headers: Mapping[str, str] = field(default_factory=dict)
    actor: str = "hook"  # who the hook service writes as (core.actor.HOOK); events use it

    @cached_property
    def bound_tasks(self) -> list[Task]:
        """The tasks bound to the session now, read once per event: the guard, the owner
        comments and the plan reminder each need them, on every tool call (issue 18)."""
        if self.session is None:
            return []
        return tasks_bound_to(self.session)


@dataclass
class HookAnswer:
    """What relaybay tells the agent: context lines, a Stop block, extra output fields."""

    budget: int = CONTEXT_BUDGET
    lines: list[str] = field(default_factory=list)
    block_reason: str | None = None
    # More hookSpecificOutput fields, e.g. the guard's permissionDecision on PreToolUse.
    hook_output: dict[str, Any] = field(default_factory=dict)

    @property
    def used(self) -> int:
        """Characters the context takes so far (lines joined by new lines)."""
        return sum(len(line) for line in self.lines) + max(0, len(self.lines) - 1)

    @property
    def budget_left(self) -> int:
        """What one more line may hold (its separating new line already counted)."""
        separator = 1 if self.lines else 0
        return max(0, self.budget - self.used - separator)

    def add_context(self, text: str) -> None:
        """Add one context line. The caller checks budget_left first; nothing is cut here
        (owner comments must reach the agent whole, at least one per answer)."""
        if text:
            self.lines.append(text)

    @property
    def context(self) -> str:
        return "\n".join(self.lines)

    def to_json(self, event: str) -> dict[str, Any] | None:
        """The JSON body for Claude Code, or None when there is nothing to say (204)."""
        if event == "Stop":
            if self.block_reason:
                return {"decision": "block", "reason": self.block_reason}
            return None
        if event not in CONTEXT_EVENTS:
            return None
        output: dict[str, Any] = dict(self.hook_output)
        if self.lines:
            output["additionalContext"] = self.context
        if not output:
            return None
        return {"hookSpecificOutput": {"hookEventName": event, **output}}


@dataclass(frozen=True)
class StopRequest:
    """A stop handler's wish to block the end of the turn; `on_blocked` runs when granted
    (inside the hook's transaction), e.g. to mark comments delivered and count the block."""

    reason: str
    on_blocked: Callable[[], None]


ContextProvider = Callable[[HookCall, HookAnswer], None]
StopHandler = Callable[[HookCall], StopRequest | None]

_providers: list[tuple[int, frozenset[str], ContextProvider]] = []
_stop_handlers: list[StopHandler] = []


def register_context_provider(order: int, events: frozenset[str], fn: ContextProvider) -> None:
    """Add lines to the answers of `events` (lower order first; registered in ready())."""
    if any(registered is fn for _, _, registered in _providers):
        return
    _providers.append((order, frozenset(events), fn))
    _providers.sort(key=lambda item: item[0])


def register_stop_handler(fn: StopHandler) -> None:
    """Ask for a Stop block; the first handler that returns a StopRequest is the one used."""
    if fn not in _stop_handlers:
        _stop_handlers.append(fn)


def session_start_line(cc_session_id: str) -> str:
    return (
        f"Your relaybay hook session: {cc_session_id}. Pass it as hook_session in relaybay writes."
    )


def run_providers(call: HookCall, answer: HookAnswer) -> None:
    """Each provider in its own savepoint: one that fails is logged and skipped, and never
    costs the status write or the other providers their part."""
    for _, events, fn in list(_providers):
        if call.event not in events:
            continue
        try:
            with transaction.atomic():
                fn(call, answer)
        except Exception:
            log.exception("hook context provider %r failed", fn)


def stop_may_block(*, stop_hook_active: bool, blocks_this_turn: int) -> bool:
    """The generic Stop rules of §4: at most two blocks per turn per session, and none when
    another hook continued the turn (stop_hook_active) before relaybay blocked in it."""
    if blocks_this_turn >= STOP_BLOCKS_PER_TURN:
        return False
    return not (stop_hook_active and blocks_this_turn == 0)


def ask_stop_handlers(call: HookCall) -> StopRequest | None:
    for fn in list(_stop_handlers):
        try:
            with transaction.atomic():
                request = fn(call)
        except Exception:
            log.exception("hook stop handler %r failed", fn)
            continue
        if request is not None:
            return request
    return None


def grant(request: StopRequest) -> bool:
    """Run on_blocked in a savepoint; False (no block) when it fails."""
    try:
        with transaction.atomic():
            request.on_blocked()
    except Exception:
        log.exception("on_blocked of a Stop request failed; the turn ends normally")
        return False
    return True
