"""The Inbox group "Unlinked hook sessions" (§2 Inbox, §4 linking step 4)."""

from __future__ import annotations

import pytest
from django.test import Client

from agents.claude_code.hooks import hook_event
from core import tokens
from core.security import COOKIE_NAME, current_token
from sessions.hooks import activity
from sessions.inbox import unlinked_group
from tests.sessions.hook_payloads import CWD, payload
from tests.tasks.factories import make_project

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_activity_clock():
    activity.activity_clock.clear()
    yield
    activity.activity_clock.clear()


def _ambiguous_hook_session():
    make_project("acme", repo_path="/home/dev")
    make_project("acme-shop", repo_path=CWD)
    return hook_event(payload=payload("SessionStart.startup.print"), headers=None).session


def test_no_group_while_every_hook_session_is_placed():
    assert unlinked_group() is None


def test_an_ambiguous_hook_session_is_listed_with_its_reason():
    session = _ambiguous_hook_session()
    group = unlinked_group()
    assert group is not None
    [row] = group.rows
    assert row.title == session.name
    assert session.unlinked_reason in row.detail
    assert row.href == "/settings/integrations"  # where they are listed with their reason
    assert group.link == "/settings/integrations"


def test_the_inbox_page_shows_the_group_and_the_reason():
    session = _ambiguous_hook_session()
    client = Client()
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    html = client.get("/inbox").content.decode()
    assert "Unlinked hook sessions" in html
    assert "several projects" in html
    assert session.name in html


def test_an_ended_hook_session_leaves_the_group():
    session = _ambiguous_hook_session()
    end = payload("SessionEnd.other.print", session_id=session.agent_session_id)
    hook_event(payload=end, headers=None)
    assert unlinked_group() is None
