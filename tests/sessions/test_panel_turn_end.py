"""The Session panel says when owner comments wait: an agent without a turn end (the fake
agent, tests/fake_agent/) cannot be held at a Stop to read them, so the owner reads on the
panel that they reach it with its next prompt or tool output; an agent with one says nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core import tokens
from core.security import COOKIE_NAME, current_token
from sessions import services
from sessions.hooks import registry
from sessions.models import Session
from tasks.models import Task
from tests.fake_agent import hooks as fake
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db

NOTE = "has no turn end to block: owner comments reach it with its next prompt or tool output"


@pytest.fixture
def web(client):
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client


@pytest.fixture
def fakecli() -> Iterator[registry.AgentSpec]:
    """The fake agent in the registry for one test, and out again after it."""
    registry.register(fake.SPEC)
    yield fake.SPEC
    registry.unregister(fake.SPEC.name)


def bound_to(agent: str, session: str) -> Task:
    """A task bound to a session whose hooks come from `agent`."""
    task = make_task(make_project(f"p-{session}"))
    services.task_bind_session(task=task, session=session, actor="agent-x")
    Session.objects.filter(name=session).update(agent=agent, agent_session_id=f"id-{session}")
    return task


def panel_html(client, task: Task) -> str:
    response = client.get(f"/p/{task.project.slug}/t/{task.key}/session")
    assert response.status_code == 200
    return response.content.decode()


def test_a_session_of_an_agent_without_a_turn_end_says_when_comments_reach_it(
    web, fakecli: registry.AgentSpec
) -> None:
    assert registry.capabilities(fakecli.name).turn_end is False
    html = panel_html(web, bound_to(fakecli.name, "fake-one"))

    assert f'<p class="sp-comments-note muted small">FakeCLI {NOTE}.</p>' in html


def test_sessions_of_agents_with_a_turn_end_and_of_no_agent_say_nothing_of_it(
    web, fakecli: registry.AgentSpec
) -> None:
    others = [spec for spec in registry.registered() if spec.name != fakecli.name]
    assert len(others) >= 2  # the shipped agents, each with a turn end
    for spec in others:
        assert registry.capabilities(spec.name).turn_end, spec.name
        html = panel_html(web, bound_to(spec.name, f"s-{spec.mark.lower()}"))
        assert spec.title in html  # its agent chip: the panel shows this session
        assert NOTE not in html, spec.name
        assert "sp-comments-note" not in html, spec.name
    html = panel_html(web, bound_to("", "named-only"))
    assert "sp-comments-note" not in html


def test_once_unregistered_the_fake_agent_is_unknown_and_says_nothing() -> None:
    assert registry.get(fake.AGENT) is None
    assert registry.capabilities(fake.AGENT).turn_end  # an unknown agent: the defaults


def test_the_comment_box_says_a_comment_waits_for_an_event_whose_context_the_agent_reads(
    web, fakecli: registry.AgentSpec
) -> None:
    """An agent that reads relaybay's context only on prompts and tool results (as Gemini
    CLI) gets the comment with one of those; the thread's note says so, not "next hook
    event"; an agent reading every event's context keeps the old words."""
    from dataclasses import replace

    from sessions.hooks import event as ev

    narrow = replace(
        fakecli,
        capabilities=replace(fakecli.capabilities, context_on=frozenset({ev.PROMPT, ev.POST_TOOL})),
    )
    registry.register(narrow)
    task = bound_to(narrow.name, "fake-two")
    Session.objects.filter(name="fake-two").update(agent_exact=True)
    response = web.get(f"/p/{task.project.slug}/t/{task.key}/comments/thread")
    assert response.status_code == 200
    assert "New comments go to fake-two, with its next prompt or tool result." in (
        response.content.decode()
    )
    assert registry.comments_arrive("claude-code") == "with its next hook event"
