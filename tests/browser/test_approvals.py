"""The owner approves from the board, in headless Chromium against a real server: a request
waiting for Approve or Deny shows in the Inbox's first group, on the task's card and in its
Session panel, each with the same buttons; a click answers the block in its new state and the
live refresh then takes it away; a request answered meanwhile says so in the service's words;
a Deny message being typed survives a live refresh; the desktop notification names the agent,
the task and the command. At 1280 and 390 px.

The requests are stored through the real service in a process of their own (run_django), as
the held hook stores them; the owner's clicks go through the server, whose approval.decided
events drive the live refresh.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.conftest import save_shot
from tests.browser.helpers import htmx_idle, sign_in, wait_state
from tests.support.server import RelaybayServer, read_only_db, run_django

pytestmark = [pytest.mark.browser, pytest.mark.integration]

WIDTHS = {"desktop-1280": 1280, "phone": 390}
COMMAND = "helm upgrade shop ./chart --kube-context acme-test"
_numbers = itertools.count(1)


def held_ask(server: RelaybayServer, *, asks: int = 1) -> dict[str, Any]:
    """A project, a task bound to a Claude Code session, and `asks` guard asks held for the
    owner, stored through the services as the hook stores them."""
    n = next(_numbers)
    out = run_django(
        server.home,
        f"""
        import json
        from django.db import transaction
        from sessions import services as sessions
        from sessions.approvals.services import Asked, approval_requested_step
        from sessions.models import Session
        from tasks import services as tasks

        tasks.project_upsert(slug="ask-shop-{n}", name="Ask Shop {n}", actor="owner")
        task = tasks.task_create(
            project="ask-shop-{n}", title="Ship the VAT fix", actor="agent", stage="dev"
        ).obj
        sessions.task_bind_session(task=task, session="vat-agent-{n}", actor="agent")
        Session.objects.filter(name="vat-agent-{n}").update(agent="claude-code")
        session = Session.objects.get(name="vat-agent-{n}")
        ids = []
        for i in range({asks}):
            asked = Asked(
                agent="claude-code", agent_session_id="cc-{n}", source="guard", tool="Bash",
                summary="{COMMAND}" + (f" --set n={{i}}" if i else ""),
                stand="test", level="ask", rule="helm-change",
                reason="acme-shop test needs the owner's approval for every action",
            )
            with transaction.atomic():
                ids.append(approval_requested_step(
                    asked, session=session, task=task, seconds=540, actor="hook"
                ).pk)
        print(json.dumps({{"slug": "ask-shop-{n}", "key": task.key, "ids": ids,
                          "session": "vat-agent-{n}"}}))
        """,
    )
    return json.loads(out.strip().splitlines()[-1])


def decided(server: RelaybayServer, approval_id: int) -> tuple[str, str, str]:
    with read_only_db(server.home) as db:
        return db.execute(
            "SELECT state, message, decided_by FROM agent_sessions_approvalrequest WHERE id = ?",
            (approval_id,),
        ).fetchone()


def decide_behind_the_pages_back(server: RelaybayServer, approval_id: int) -> None:
    run_django(
        server.home,
        f"""
        from sessions.approvals.services import approval_decide
        approval_decide(approval_id={approval_id}, approve=True, message="", actor="owner")
        """,
    )


@pytest.mark.parametrize("name", list(WIDTHS))
def test_approve_in_the_inbox_group_at_the_top(
    server: RelaybayServer, new_page: Any, name: str
) -> None:
    ask = held_ask(server)
    [approval] = ask["ids"]
    watched = new_page(width=WIDTHS[name], height=900)
    page = watched.page
    sign_in(page, server, "/inbox")
    wait_state(page, "live")

    group = page.locator("#inbox-approvals")
    expect(page.locator("section.inbox-group").first).to_have_id("inbox-approvals")
    expect(group).to_contain_text("Waiting for your approval")
    expect(group).to_contain_text(f"Claude Code · {ask['session']} · Ship the VAT fix")
    expect(group).to_contain_text(f"Bash {COMMAND}")
    expect(group).to_contain_text("stand test at level ask · rule helm-change")
    expect(group).to_contain_text("left")
    expect(page.locator("#inbox-badge")).to_have_text("1")
    save_shot(page, f"approvals-inbox-{name}")

    block = page.locator(f"#approval-inbox-{approval}")
    block.get_by_role("button", name="Approve").click()
    expect(page.locator("#inbox-approvals")).to_have_count(0)  # the live refresh took it
    assert decided(server, approval) == ("approved", "", "owner")
    expect(page.locator("#inbox-badge")).to_be_hidden()
    watched.assert_clean()


@pytest.mark.parametrize("name", list(WIDTHS))
def test_deny_with_a_message_on_the_card(server: RelaybayServer, new_page: Any, name: str) -> None:
    ask = held_ask(server)
    [approval] = ask["ids"]
    watched = new_page(width=WIDTHS[name], height=900)
    page = watched.page
    sign_in(page, server, f"/p/{ask['slug']}")
    wait_state(page, "live")
    if WIDTHS[name] < 760:
        page.get_by_role("tab", name="Dev").click()

    card = page.locator(f"#card-{ask['key']}")
    block = card.locator(f"#approval-card-{approval}")
    expect(block).to_contain_text("Waiting for your approval")
    expect(block).to_contain_text("stand test at level ask")
    htmx_idle(page)  # the Dev tab's columns and a live refresh may still be swapping in
    expect(block).to_be_visible()
    box = block.bounding_box()
    card_box = card.bounding_box()
    assert box is not None, "the block was swapped out while it was measured"
    assert card_box is not None
    assert box["x"] >= card_box["x"]
    assert box["x"] + box["width"] <= card_box["x"] + card_box["width"] + 0.5
    block.get_by_text("Deny…").click()
    block.get_by_label("Message to the agent").fill("Not on test today: the restore runs.")
    save_shot(page, f"approvals-card-deny-{name}")
    block.get_by_role("button", name="Deny", exact=True).click()

    expect(card.locator("[data-approval]")).to_have_count(0)  # the card refetched itself
    expect(card).to_be_visible()
    assert decided(server, approval) == ("denied", "Not on test today: the restore runs.", "owner")
    watched.assert_clean()


@pytest.mark.parametrize("name", list(WIDTHS))
def test_the_session_panel_approves_and_a_request_answered_meanwhile_says_so(
    server: RelaybayServer, new_page: Any, name: str
) -> None:
    ask = held_ask(server, asks=2)
    first, second = ask["ids"]
    watched = new_page(width=WIDTHS[name], height=900)
    page = watched.page
    sign_in(page, server, f"/p/{ask['slug']}?task={ask['key']}")
    wait_state(page, "live")

    panel = page.locator(f"#session-panel-{ask['key']}")
    expect(panel.locator("[data-approval]")).to_have_count(2)
    expect(panel.locator(f"#approval-panel-{first}")).to_contain_text(
        f"Claude Code · {ask['session']}"
    )
    panel.locator(f"#approval-panel-{first}").scroll_into_view_if_needed()
    save_shot(page, f"approvals-panel-{name}")

    # Answered elsewhere (the terminal, another tab) while this page still shows it.
    decide_behind_the_pages_back(server, second)
    stale = panel.locator(f"#approval-panel-{second}")
    stale.get_by_role("button", name="Approve").click()
    expect(page.locator(f"#approval-panel-{second} .approval-error")).to_have_text(
        f"Approval request #{second} was already answered (approved): nothing changed."
    )

    page.locator(f"#approval-panel-{first}").get_by_role("button", name="Approve").click()
    expect(page.locator(f"#approval-panel-{first}")).to_have_count(0)  # the panel refetched
    assert decided(server, first) == ("approved", "", "owner")
    watched.remember_violations()
    # the 409 is the one console line: the browser logs every 4xx answer it gets
    assert [e for e in watched.errors() if "409" not in e] == []
    assert watched.csp_violations() == []


def test_a_deny_message_being_typed_survives_a_live_refresh(
    server: RelaybayServer, new_page: Any
) -> None:
    ask = held_ask(server)
    [approval] = ask["ids"]
    watched = new_page(width=1280, height=900)
    page = watched.page
    sign_in(page, server, "/inbox")
    wait_state(page, "live")
    block = page.locator(f"#approval-inbox-{approval}")
    block.get_by_text("Deny…").click()
    block.get_by_label("Message to the agent").fill("half a thought")
    # the same server serves the module's other tests: count what this page shows now
    rows = page.locator("#inbox-approvals [data-approval]")
    shown = rows.count()

    held_ask(server)  # another request arrives; the list refetches (held back while typing)
    page.evaluate("document.body.dispatchEvent(new CustomEvent('rb-inbox-changed'))")
    page.wait_for_timeout(600)
    expect(block.get_by_label("Message to the agent")).to_have_value("half a thought")
    expect(rows).to_have_count(shown)

    block.get_by_label("Message to the agent").fill("")  # cleared: the owed refetch goes
    expect(rows).to_have_count(shown + 1)
    watched.assert_clean()


def test_the_notification_names_the_agent_the_task_and_the_command(
    server: RelaybayServer, context_page: Any
) -> None:
    ask = held_ask(server)
    [approval] = ask["ids"]
    watched = context_page(permissions=["notifications"], width=1280, height=900)
    page = watched.page
    sign_in(page, server, "/inbox")
    wait_state(page, "live")
    # The live message as the stream sends it (tasks/events.py to_message).
    message = {
        "kind": "approval.requested",
        "project": ask["slug"],
        "key": ask["key"],
        "session": ask["session"],
        "approval": approval,
        "agent": "claude-code",
        "waiting": f"your approval: Bash {COMMAND}",
    }
    page.evaluate(
        "(d) => document.body.dispatchEvent(new CustomEvent('rb-event', {detail: d}))", message
    )
    page.wait_for_function("() => window.__notes.length >= 1")
    note = page.evaluate("({title: __notes[0].title, tag: __notes[0].tag, body: __notes[0].body})")
    assert note == {
        "title": f"Claude Code waits for your approval: {ask['key']} Ship the VAT fix",
        "tag": f"approval-{approval}",
        "body": f"Bash {COMMAND} · session {ask['session']}",
    }
    # Answered: its notification closes; a replay of the request shows nothing again.
    decided_message = {**message, "kind": "approval.decided", "outcome": "approved"}
    page.evaluate(
        "(d) => document.body.dispatchEvent(new CustomEvent('rb-event', {detail: d}))",
        decided_message,
    )
    assert page.evaluate("__notes[0].closed") is True
    decide_behind_the_pages_back(server, approval)
    page.evaluate(
        "(d) => document.body.dispatchEvent(new CustomEvent('rb-event', {detail: d}))", message
    )
    page.wait_for_timeout(500)
    assert page.evaluate("__notes.length") == 1
    watched.assert_clean()
