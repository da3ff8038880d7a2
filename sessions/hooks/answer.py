"""The answer a hook event gets, composed from parts other apps plug in (§4).

The hook service builds one `HookCall` per event and one `HookAnswer`, then, inside the
request's transaction and after the status write (its own savepoint):

- SessionStart first gets "Your relaybay hook session: <id>. …";
- every context provider registered for the event's kind adds lines (owner comments, plan
  reminders, the guard's notes …) in `order`, sharing one 8000-character budget: a provider
  reads `answer.budget_left` and adds with `answer.add_context(text)`;
- before any of that, and before anything of the event is stored, the deciders run: the
  guard sets `answer.deny(reason)` or `answer.ask(reason)` on a PRE_TOOL and journals it,
  so its answer never depends on the session's bookkeeping;
- on STOP, the stop handlers are asked in turn for a `StopRequest`; the service grants the
  first one when the generic Stop rules allow a block (`stop_may_block`) and then calls its
  `on_blocked()` in the same transaction.

Both are agent-neutral (sessions/hooks/event.py): the agent's adapter renders the answer
into the JSON that agent reads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from django.db import transaction

from sessions.hooks.event import HookEvent
from sessions.selectors import tasks_bound_to

if TYPE_CHECKING:
    from sessions.models import Session
    from tasks.models import Task

log = logging.getLogger("relaybay.hooks")

CONTEXT_BUDGET = 8000
STOP_BLOCKS_PER_TURN = 2
DENY = "deny"
ASK = "ask"
ALLOW = "allow"  # only the owner's Approve on the board: relaybay never allows by itself


@dataclass(frozen=True)
class HookCall:
    """One hook event as the providers see it.

    `session` is the relaybay session the event was linked to (None only for events that
    create nothing); `exact` is True when that session is exactly linked to this very
    agent session id — only then may owner comments go to it (§4).
    """

    event: HookEvent
    session: Session | None
    exact: bool
    actor: str = "hook"  # who the hook service writes as (core.actor.HOOK); events use it

    @property
    def kind(self) -> str:
        return self.event.kind

    @property
    def agent_session_id(self) -> str:
        return self.event.session_id

    @cached_property
    def bound_tasks(self) -> list[Task]:
        """The tasks bound to the session now, read once per event: the guard, the owner
        comments and the plan reminder each need them, on every tool call."""
        if self.session is None:
            return []
        return tasks_bound_to(self.session)

    def share_bound_tasks(self, other: HookCall) -> None:
        """Hand the tasks read for this call (the decider's) to `other` (the providers'),
        when both are of one session whose bindings did not move in between."""
        if "bound_tasks" in self.__dict__:
            other.__dict__["bound_tasks"] = self.__dict__["bound_tasks"]


@dataclass
class HookAnswer:
    """What relaybay tells the agent: context lines, a decision on the tool call, a Stop
    block — in relaybay's words; the adapter writes the agent's JSON."""

    budget: int = CONTEXT_BUDGET
    lines: list[str] = field(default_factory=list)
    block_reason: str | None = None
    decision: str | None = None  # PRE_TOOL: DENY or ASK; ALLOW only as the owner's Approve
    decision_reason: str = ""
    # The guard's ask, for the owner: the stand, its level, the rule and the call as the
    # journal keeps it ({"stand", "level", "rule", "summary"}).
    asked: dict[str, str] = field(default_factory=dict)
    # The approval request this answer waits on (the door holds it for the owner).
    hold_id: int | None = None

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

    def deny(self, reason: str) -> None:
        self.decision, self.decision_reason = DENY, reason

    def ask(self, reason: str, **asked: str) -> None:
        self.decision, self.decision_reason = ASK, reason
        self.asked = asked

    def allow(self, reason: str) -> None:
        """The owner approved the call on the board (never relaybay on its own)."""
        self.decision, self.decision_reason = ALLOW, reason

    @property
    def context(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class StopRequest:
    """A stop handler's wish to block the end of the turn; `on_blocked` runs when granted
    (inside the hook's transaction), e.g. to mark comments delivered and count the block."""

    reason: str
    on_blocked: Callable[[], None]


ContextProvider = Callable[[HookCall, HookAnswer], None]
StopHandler = Callable[[HookCall], StopRequest | None]

_providers: list[tuple[int, frozenset[str], ContextProvider]] = []
_deciders: list[tuple[frozenset[str], ContextProvider]] = []
_stop_handlers: list[StopHandler] = []


def register_decider(kinds: frozenset[str], fn: ContextProvider) -> None:
    """Decide on the events of `kinds` before anything of the event is stored (the guard):
    the decision and whatever the decider records stand whether or not the session's
    bookkeeping succeeds after it (docs/policy.md "The guard never fails open")."""
    if any(registered is fn for _, registered in _deciders):
        return
    _deciders.append((frozenset(kinds), fn))


def register_context_provider(order: int, kinds: frozenset[str], fn: ContextProvider) -> None:
    """Add lines to the answers of the events of `kinds` (sessions/hooks/event.py; lower
    order first; registered in ready())."""
    if any(registered is fn for _, _, registered in _providers):
        return
    _providers.append((order, frozenset(kinds), fn))
    _providers.sort(key=lambda item: item[0])


def register_stop_handler(fn: StopHandler) -> None:
    """Ask for a Stop block; the first handler that returns a StopRequest is the one used."""
    if fn not in _stop_handlers:
        _stop_handlers.append(fn)


def session_start_line(agent_session_id: str, meta_links: bool = False) -> str:
    """The SessionStart line: the id an agent passes as hook_session, or, for an agent whose
    MCP calls carry it (Codex's _meta.sessionId), that they link it by themselves."""
    if meta_links:
        return (
            f"Your relaybay hook session: {agent_session_id}. Your relaybay calls carry it "
            "and link this session by themselves: pass session (your name) in writes."
        )
    return (
        f"Your relaybay hook session: {agent_session_id}. Pass it as hook_session in relaybay "
        "writes."
    )


def run_providers(call: HookCall, answer: HookAnswer) -> None:
    """Each provider in its own savepoint: one that fails is logged and skipped, and never
    costs the status write or the other providers their part."""
    for _, kinds, fn in list(_providers):
        if call.kind not in kinds:
            continue
        try:
            with transaction.atomic():
                fn(call, answer)
        except Exception:
            log.exception("hook context provider %r failed", fn)


def run_deciders(call: HookCall, answer: HookAnswer) -> None:
    """Each decider on its own, before the bookkeeping: one that fails is logged and the
    call goes on (§7: a guard error never stops an agent)."""
    for kinds, fn in list(_deciders):
        if call.kind not in kinds:
            continue
        try:
            fn(call, answer)
        except Exception:
            log.exception("hook decider %r failed", fn)


def stop_may_block(
    *, continued: bool, blocks_this_turn: int, limit: int = STOP_BLOCKS_PER_TURN
) -> bool:
    """The generic Stop rules of §4: at most `limit` blocks per turn per session (two, or
    what the agent's capabilities say), and none when another hook continued the turn
    (Claude Code's stop_hook_active) before relaybay blocked in it."""
    if blocks_this_turn >= limit:
        return False
    return not (continued and blocks_this_turn == 0)


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
