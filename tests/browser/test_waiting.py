"""The board's signals in headless Chromium against a real server (issue 19): a permission
prompt through the hook endpoint puts "waiting: Bash git push origin main" on the task's
card, in the Inbox group "Agents waiting for an answer" and in a browser notification, and
the next PostToolUse clears the card; five identical calls list the session under "Possibly
stuck" (and on its card); a session working with no task is under "Forgotten sessions"
until the owner dismisses it. At 1440 and 390 px."""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
import uuid
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.helpers import sign_in, wait_state
from tests.integration.test_hooks_comments import World
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

WIDTHS = {"desktop-1440": 1440, "phone": 390}
_numbers = itertools.count(1)
SUMMARY = "Bash git push origin main"


def waiting_agent(server: RelaybayServer) -> World:
    n = next(_numbers)
    slug = f"wait-shop-{n}"
    w = World(server, slug, f"{slug}-1", f"/home/dev/{slug}", f"wait-agent-{n}", str(uuid.uuid4()))
    w.tool("project_upsert", slug=slug, repo_path=w.cwd)
    w.tool("task_create", project=slug, title="Release the gift cards")
    w.tool("task_bind_session", task=w.key, session=w.session)
    w.hook("SessionStart.startup.print")
    w.tool("task_update", task=w.key, next_step="Push", session=w.session, hook_session=w.agent_id)
    return w


def ask_permission(w: World) -> None:
    w.hook("PreToolUse.Bash", tool_input={"command": "git push origin main", "description": "d"})
    w.hook("Notification.permission_prompt.interactive")


@pytest.mark.parametrize("name", list(WIDTHS))
def test_a_permission_prompt_shows_on_the_card_the_inbox_and_as_a_notification(
    server: RelaybayServer, context_page: Any, name: str
) -> None:
    w = waiting_agent(server)
    watched = context_page(permissions=["notifications"], width=WIDTHS[name], height=900)
    page = watched.page
    sign_in(page, server, f"/p/{w.slug}")
    wait_state(page, "live")

    ask_permission(w)
    card = page.locator(f"#card-{w.key}")
    expect(card.locator(".chip-agent-waiting")).to_have_text(f"waiting: {SUMMARY}")
    page.wait_for_function("() => window.__notes.length >= 1")
    note = page.evaluate("({title: __notes[0].title, tag: __notes[0].tag})")
    assert note == {"title": f"{w.key} is waiting: {SUMMARY}", "tag": f"waiting-{w.key}"}

    page.goto(f"{server.base_url}/inbox")
    group = page.locator("#inbox-agents-waiting")
    expect(group).to_contain_text("Agents waiting for an answer")
    expect(group).to_contain_text(f"{w.session} (Claude Code) · Release the gift cards")
    expect(group).to_contain_text(SUMMARY)
    watched.remember_violations()

    w.hook("PostToolUse.Bash")
    page.goto(f"{server.base_url}/p/{w.slug}")
    expect(page.locator(f"#card-{w.key}")).to_be_visible()
    expect(page.locator(f"#card-{w.key} .chip-agent-waiting")).to_have_count(0)
    watched.assert_clean()


@pytest.mark.parametrize("name", list(WIDTHS))
def test_possibly_stuck_and_forgotten_sessions_in_the_inbox(
    server: RelaybayServer, context_page: Any, name: str
) -> None:
    w = waiting_agent(server)
    for _ in range(5):  # the same call five times in a row
        w.hook("PreToolUse.Bash", tool_input={"command": "npm test", "description": "d"})
    lost = World(server, "", "", f"/home/dev/nowhere-{name}", "", str(uuid.uuid4()))
    lost.hook("SessionStart.startup.print")  # a folder of no project: no task is bound
    lost.hook("UserPromptSubmit.print")
    with contextlib.closing(sqlite3.connect(server.home / "relaybay.sqlite")) as db:
        db.execute(  # known for 15 minutes: as if it had been working all that time
            "UPDATE agent_sessions_session SET created_at = datetime('now', '-15 minutes') "
            "WHERE agent_session_id = ?",
            (lost.agent_id,),
        )
        db.commit()

    watched = context_page(width=WIDTHS[name], height=900)
    page = watched.page
    sign_in(page, server, "/inbox")
    wait_state(page, "live")
    stuck = page.locator("#inbox-possibly-stuck")
    expect(stuck).to_contain_text(f"{w.session} (Claude Code) · Release the gift cards")
    expect(stuck).to_contain_text("the same Bash call 5 times in a row")
    forgotten = page.locator("#inbox-forgotten-sessions")
    expect(forgotten).to_contain_text(f"nowhere-{name}")
    expect(forgotten).to_contain_text("working with no task bound (known for 15 min)")

    forgotten.locator("li", has_text=f"nowhere-{name}").get_by_role(
        "button", name="Dismiss"
    ).click()
    expect(page.locator("#flash")).to_contain_text("dismissed (marked ended)")
    expect(page.locator("#inbox-forgotten-sessions")).to_have_count(0)

    page.goto(f"{server.base_url}/p/{w.slug}")
    expect(page.locator(f"#card-{w.key} .chip-agent-stuck")).to_have_text(
        "possibly stuck: the same Bash call 5 times in a row"
    )
    watched.assert_clean()
