"""The generic Stop rules (§4): at most two relaybay blocks per turn per session, none when
another hook continued the turn before relaybay blocked in it; the counter resets on
UserPromptSubmit and whenever a Stop is allowed; a granted request's on_blocked runs in
the hook's transaction."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from agents.claude_code.hooks import HookResult, hook_event
from sessions.hooks import activity
from sessions.hooks import answer as hook_answer
from sessions.hooks import event as ev
from sessions.hooks.answer import HookCall, StopRequest, stop_may_block
from sessions.models import Session
from tests.sessions.hook_payloads import payload

pytestmark = pytest.mark.django_db

AGENT_ID = "40f76e57-78f2-4a22-82d2-11206736c928"  # Stop.first, Stop.after_block


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hook_answer, "_stop_handlers", [])
    monkeypatch.setattr(hook_answer, "_providers", [])
    activity.activity_clock.clear()


class Wanting:
    """A stop handler that asks for a block while `wants` is True, counting what happened."""

    def __init__(self, reason: str = "Handle owner comment #3 first.") -> None:
        self.reason = reason
        self.wants = True
        self.asked = 0
        self.blocked = 0
        self.in_transaction: list[bool] = []

    def __call__(self, call: HookCall) -> StopRequest | None:
        self.asked += 1
        assert call.kind == ev.STOP
        assert call.session is not None
        return StopRequest(self.reason, self.on_blocked) if self.wants else None

    def on_blocked(self) -> None:
        self.blocked += 1
        self.in_transaction.append(connection.in_atomic_block)


def stop(first: bool = True, **changes: Any) -> HookResult:
    return hook_event(payload=payload("Stop.first" if first else "Stop.after_block", **changes))


def prompt() -> HookResult:
    return hook_event(payload=payload("UserPromptSubmit.print", session_id=AGENT_ID))


def blocks() -> int:
    return Session.objects.get(agent_session_id=AGENT_ID).stop_blocks


@pytest.fixture
def handler() -> Wanting:
    wanting = Wanting()
    hook_answer.register_stop_handler(wanting)
    return wanting


def test_without_a_request_the_turn_ends_normally():
    assert stop().answer is None
    assert blocks() == 0


def test_a_granted_request_blocks_with_its_reason_and_runs_on_blocked(handler):
    result = stop()
    assert result.answer == {"decision": "block", "reason": "Handle owner comment #3 first."}
    assert (handler.blocked, handler.in_transaction) == (1, [True])
    assert blocks() == 1


def test_relaybay_blocks_at_most_twice_per_turn(handler):
    assert stop().answer is not None
    assert stop(first=False).answer is not None  # stop_hook_active, but relaybay blocked
    assert blocks() == 2
    third = stop(first=False)
    assert third.answer is None
    assert (handler.asked, handler.blocked) == (2, 2)
    assert blocks() == 0  # an allowed Stop resets the counter


def test_no_block_when_another_hook_continued_the_turn_before_relaybay_blocked(handler):
    hook_event(payload=payload("PreToolUse.mcp"))
    result = stop(first=False)  # stop_hook_active: true, relaybay has not blocked
    assert result.answer is None
    assert handler.asked == 0


def test_the_counter_resets_on_user_prompt_submit(handler):
    stop()
    stop(first=False)
    assert blocks() == 2
    prompt()
    assert blocks() == 0
    assert stop().answer is not None


def test_an_allowed_stop_resets_the_counter(handler):
    stop()
    assert blocks() == 1
    handler.wants = False
    assert stop(first=False).answer is None
    assert blocks() == 0
    handler.wants = True
    assert stop().answer is not None  # the next turn may block twice again
    assert stop(first=False).answer is not None


def test_a_failing_on_blocked_means_no_block():
    def broken() -> None:
        Session.objects.filter(agent_session_id=AGENT_ID).update(title="half-done")
        raise RuntimeError("boom")

    hook_answer.register_stop_handler(lambda call: StopRequest("r", broken))
    assert stop().answer is None
    s = Session.objects.get(agent_session_id=AGENT_ID)
    assert (s.stop_blocks, s.title, s.hook_status) == (0, "", "idle")


def test_the_first_handler_with_a_request_wins_and_a_failing_one_is_skipped():
    def failing(call: HookCall) -> StopRequest | None:
        raise RuntimeError("boom")

    quiet, first, second = Wanting(), Wanting("first"), Wanting("second")
    quiet.wants = False
    for fn in (failing, quiet, first, second):
        hook_answer.register_stop_handler(fn)
    assert stop().answer == {"decision": "block", "reason": "first"}
    assert (quiet.asked, first.blocked, second.asked) == (1, 1, 0)


def test_the_stop_status_is_written_before_the_handlers_run():
    statuses: list[str] = []

    def look(call: HookCall) -> None:
        statuses.append(Session.objects.get(pk=call.session.pk).hook_status)

    hook_answer.register_stop_handler(look)
    hook_event(payload=payload("PreToolUse.mcp"))
    stop()
    assert statuses == ["idle"]


@pytest.mark.parametrize(
    ("active", "count", "allowed"),
    [
        (False, 0, True),
        (False, 1, True),
        (True, 1, True),
        (True, 0, False),
        (False, 2, False),
        (True, 2, False),
    ],
)
def test_stop_may_block(active: bool, count: int, allowed: bool):
    assert stop_may_block(continued=active, blocks_this_turn=count) is allowed
