"""The door's capability flags for an agent that reads context on fewer events, whose turn-end
block comes back as a prompt, and which may be blocked once a turn (Gemini CLI is one; here a
made-up agent with those flags, through the real hook service and SQLite):

- what relaybay says on an event the agent does not read waits for its next event it reads
  (the hook session line, a warning), in order, once;
- an owner comment is delivered only on an event whose context the agent reads;
- the prompt that carries a block's reason continues the turn: no second block in it, even
  when the agent's own "already continued" flag is false again;
- an agent with the default flags is answered as before."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from sessions import services as session_services
from sessions.hooks import answer as hook_answer
from sessions.hooks import event as ev
from sessions.hooks import registry, service
from sessions.hooks.answer import HookAnswer, HookCall, StopRequest
from sessions.hooks.event import HookEvent, Tool
from sessions.models import Session
from tasks import services
from tasks.models import Comment
from tests.tasks.factories import make_task

pytestmark = pytest.mark.django_db

AGENT = "context-test"
CWD = "/home/dev/acme-shop"
READS = frozenset({ev.PROMPT, ev.POST_TOOL})


@pytest.fixture
def agent() -> Iterator[registry.Capabilities]:
    caps = registry.Capabilities(
        asks=False, context_on=READS, turn_end_blocks=1, block_returns_as_prompt=True
    )
    registry.register(
        registry.AgentSpec(
            name=AGENT,
            title="Context Test",
            mark="CT",
            path="/hooks/context-test",
            parse=lambda payload, headers=None: None,
            render=lambda answer, event: None,
            capabilities=caps,
        )
    )
    yield caps
    registry.unregister(AGENT)


def hook(kind: str, sid: str, **fields: Any) -> HookAnswer:
    event = HookEvent(agent=AGENT, kind=kind, session_id=sid, name=kind, cwd=CWD, **fields)
    handled = service.hook_event(event)
    assert handled.answer is not None
    return handled.answer


def shell(command: str = "pytest") -> Tool:
    return Tool("sh", ev.SHELL, {"command": command}, command=command, waits_on=command)


def linked_on_task(sid: str) -> Any:
    task = make_task()
    session_services.task_bind_session(task=task, session="ctx-one", actor="tester")
    session_services.session_touch(session="ctx-one", hook_session=sid, actor="tester")
    return task


def test_the_session_start_line_waits_for_the_next_prompt_and_comes_once(agent: Any) -> None:
    sid = str(uuid.uuid4())
    start = hook(ev.SESSION_START, sid, source="startup")
    assert start.lines == []  # not where the agent reads it
    before = hook(ev.PRE_TOOL, sid, tool=shell())
    assert before.lines == []
    first = hook(ev.PROMPT, sid)
    assert first.lines[0] == hook_answer.session_start_line(sid)
    assert hook(ev.PROMPT, sid).lines == []  # taken once


def test_lines_made_before_a_tool_reach_the_agent_after_it(
    agent: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def note(call: HookCall, answer: HookAnswer) -> None:
        answer.add_context(f"note on {call.kind}")

    monkeypatch.setattr(hook_answer, "_providers", [(1, frozenset({ev.PRE_TOOL}), note)])
    sid = str(uuid.uuid4())
    hook(ev.SESSION_START, sid, source="resume")
    assert hook(ev.PRE_TOOL, sid, tool=shell()).lines == []
    after = hook(ev.POST_TOOL, sid, tool=shell())
    assert after.lines == [hook_answer.session_start_line(sid), "note on pre_tool"]


def test_an_owner_comment_is_delivered_only_where_the_agent_reads_it(agent: Any) -> None:
    sid = str(uuid.uuid4())
    hook(ev.SESSION_START, sid, source="startup")
    task = linked_on_task(sid)
    services.owner_comment_add(key=task.key, body="Use the staging database.")
    before = hook(ev.PRE_TOOL, sid, tool=shell())
    assert before.lines == []
    assert Comment.objects.get().delivered_at is None  # not marked: it did not go out
    after = hook(ev.POST_TOOL, sid, tool=shell())
    assert any("Use the staging database." in line for line in after.lines)
    assert Comment.objects.get().delivered_at is not None


def test_the_continuation_prompt_keeps_the_turn_and_its_one_block(
    agent: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[int] = []

    def always(call: HookCall) -> StopRequest:
        asked.append(1)
        return StopRequest("relaybay: handle the owner's comment first.", lambda: None)

    monkeypatch.setattr(hook_answer, "_stop_handlers", [always])
    sid = str(uuid.uuid4())
    hook(ev.SESSION_START, sid, source="startup")
    hook(ev.PROMPT, sid)
    assert hook(ev.STOP, sid).block_reason  # the turn's one block
    hook(ev.PROMPT, sid)  # the block's reason, sent back as a prompt
    assert Session.objects.get(agent_session_id=sid).stop_blocks == 1
    hook(ev.PRE_TOOL, sid, tool=shell())
    hook(ev.POST_TOOL, sid, tool=shell())
    # The agent's own flag says "not continued" again after a tool call: relaybay remembers.
    assert hook(ev.STOP, sid, stop_continued=False).block_reason is None
    assert Session.objects.get(agent_session_id=sid).stop_blocks == 0
    hook(ev.PROMPT, sid)  # the person's next prompt: a new turn, which may be blocked again
    assert hook(ev.STOP, sid).block_reason


def test_a_new_process_starts_a_new_turn(agent: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        hook_answer, "_stop_handlers", [lambda call: StopRequest("again", lambda: None)]
    )
    sid = str(uuid.uuid4())
    hook(ev.SESSION_START, sid, source="startup")
    hook(ev.PROMPT, sid)
    assert hook(ev.STOP, sid).block_reason
    # The run died in its continuation (an API error: no turn end, no SessionEnd) …
    hook(ev.SESSION_START, sid, source="resume")
    hook(ev.PROMPT, sid)  # … and the resumed run's prompt is the person's
    assert hook(ev.STOP, sid).block_reason == "again"


def test_an_agent_with_the_default_flags_reads_context_everywhere() -> None:
    caps = registry.Capabilities()
    assert caps.context_on == registry.CONTEXT_KINDS
    assert caps.turn_end_blocks == 2
    registry.register(
        registry.AgentSpec(
            name=AGENT,
            title="Context Test",
            mark="CT",
            path="/hooks/context-test",
            parse=lambda payload, headers=None: None,
            render=lambda answer, event: None,
            capabilities=caps,
        )
    )
    try:
        sid = str(uuid.uuid4())
        assert hook(ev.SESSION_START, sid, source="startup").lines == [
            hook_answer.session_start_line(sid)
        ]
        assert hook(ev.PROMPT, sid).lines == []
    finally:
        registry.unregister(AGENT)
