"""The task dialog and the task page in headless Chromium against a real server (§2 Task
dialog / page, Live updates). Agents write through the real MCP client.

The dialog opens from a card over the live board (or from its /p/<slug>?task=<key> URL),
traps the focus, closes with Esc, Back, a click outside and its close button, keeps the
address in step and hands the focus back to the card. The edit form saves through the
services, shows conflicts and rule warnings, and never loses a typed draft to a live
refresh. Screenshots land in tests/artifacts/browser/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.helpers import focused, sign_in, wait_state
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}


def agent(server: RelaybayServer, tool: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, tool, {"session": "agent-7", **args})


def create(server: RelaybayServer, slug: str, title: str, **fields: Any) -> str:
    text = agent(server, "task_create", project=slug, title=title, **fields)
    return re.match(r"Created (\S+) ", text).group(1)


def version(server: RelaybayServer, key: str) -> int:
    text = call_tool(server.base_url, server.token, "task_get", {"task": key})
    return int(re.search(r"· version (\d+) ·", text).group(1))


_projects: set[tuple[int, str]] = set()


def rich_task(server: RelaybayServer, slug: str = "dialog-shop", **overrides: Any) -> str:
    """A task with every field, two reports and a decision, written by an agent."""
    if (id(server), slug) not in _projects:
        agent(server, "project_upsert", slug=slug, name="Dialog Shop")
        _projects.add((id(server), slug))
    fields = {
        "title": "Login with two-factor authentication",
        "stage": "dev",
        "size": "M",
        "priority": "high",
        "waiting_on": "owner",
        "next_step": "Wire the **TOTP** form to `verify()` and ask for a review",
        "branch": "feature/2fa-login",
        "document_path": "docs/design/0012-two-factor.md",
        "stage_note": "Waiting for the design review of the recovery flow.",
        "description": (
            "Add a second factor to the login.\n\n"
            "- TOTP with any authenticator app\n- ten recovery codes\n- remember the device "
            "for 30 days\n\nOut of scope: SMS."
        ),
        "progress": (
            "Backend done: `verify()` and the recovery codes, covered by tests. The form is next."
        ),
        "tracker_name": "Jira",
        "tracker_ref": "SHOP-142",
        "tracker_url": "https://jira.example.com/browse/SHOP-142",
        **overrides,
    }
    key = create(server, slug, **fields)
    agent(
        server,
        "report_add",
        task=key,
        body="inspected · M · read the auth module\n\n"
        "The session code already has a hook for a second step.",
    )
    agent(
        server,
        "report_add",
        task=key,
        body="verified · M · backend of TOTP works\n\n"
        "- `verify()` accepts a ±1 step drift\n- recovery codes are hashed\n\n"
        "All 214 tests pass.",
    )
    agent(
        server,
        "decision_add",
        project=slug,
        task=key,
        decided_by="owner",
        text="TOTP only; no SMS codes (cost and SIM-swap risk).",
    )
    agent(server, "task_update", task=key, tracker_logged=True)
    return key


def open_board(w: Any, server: RelaybayServer, path: str) -> Any:
    page = w.page
    sign_in(page, server, path)
    wait_state(page, "live")
    page.evaluate("window.__boardMarker = 'still here'")
    return page


def not_reloaded(page: Any) -> bool:
    return page.evaluate("window.__boardMarker") == "still here"


def open_from_card(page: Any, key: str) -> Any:
    link = page.locator(f"#link-{key}")
    if link.count() and not link.is_visible():
        # A phone shows one column: pick the card's stage in the tab bar first.
        stage = page.locator(f"#card-{key}").evaluate("el => el.closest('.column').id.slice(4)")
        page.locator(f"#tab-{stage}").click()
    if link.count():
        link.click()
    else:  # no board cards yet: the dialog's own URL
        page.goto(page.url.split("?")[0] + f"?task={key}")
    dialog = page.locator("#task-dialog")
    expect(dialog).to_be_visible()
    return dialog


def expect_closed(page: Any, server: RelaybayServer, slug: str, query: str = "") -> None:
    """Closed, and the address is the board's again (with its own state, e.g. ?stage=)."""
    expect(page.locator("#task-dialog")).to_have_count(0)
    expect(page).to_have_url(f"{server.base_url}/p/{slug}{query}")
    assert page.evaluate("document.body.dataset.dialogOpen") is None


# --- opening and closing -------------------------------------------------------------------


def test_a_card_opens_the_dialog_and_esc_closes_it(server, new_page, shot):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")

    dialog = open_from_card(page, key)

    expect(page).to_have_url(f"{server.base_url}/p/dialog-shop?task={key}")
    assert page.evaluate("document.body.dataset.dialogOpen") == "1"
    assert dialog.evaluate("el => el.open && el.matches(':modal')")
    assert focused(page) == "#task-title"
    expect(dialog.locator("#task-title")).to_have_text("Login with two-factor authentication")
    expect(dialog.locator(".td-next")).to_contain_text("Wire the TOTP form to verify()")
    expect(dialog.locator(".report")).to_have_count(2)
    expect(dialog.locator(".td-tracker a")).to_have_attribute(
        "href", "https://jira.example.com/browse/SHOP-142"
    )
    expect(dialog.locator(".td-logged")).to_have_text("✓ logged")
    # The newest report opens to its body.
    dialog.locator(".report summary").first.click()
    expect(dialog.locator(".report-body").first).to_contain_text("All 214 tests pass.")
    shot(page, "task-dialog-desktop")

    page.keyboard.press("Escape")

    expect_closed(page, server, "dialog-shop")
    if page.locator(f"#link-{key}").count():
        assert focused(page) == f"#link-{key}"
    assert not_reloaded(page)
    w.assert_clean()


def test_back_closes_the_dialog_and_forward_opens_it_again(server, new_page):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")
    open_from_card(page, key)

    page.go_back()

    expect_closed(page, server, "dialog-shop")
    assert not_reloaded(page)

    page.go_forward()

    expect(page.locator("#task-dialog")).to_be_visible()
    expect(page).to_have_url(f"{server.base_url}/p/dialog-shop?task={key}")
    page.keyboard.press("Escape")
    expect_closed(page, server, "dialog-shop")
    assert not_reloaded(page)
    w.assert_clean()


def test_a_click_outside_and_the_close_button_close_the_dialog(server, new_page):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")

    dialog = open_from_card(page, key)
    dialog.click(position={"x": 200, "y": 200})  # inside: stays open
    expect(dialog).to_be_visible()
    page.mouse.click(40, 450)  # the backdrop
    expect_closed(page, server, "dialog-shop")

    dialog = open_from_card(page, key)
    dialog.get_by_role("link", name="Close").click()
    expect_closed(page, server, "dialog-shop")
    assert not_reloaded(page)
    w.assert_clean()


def test_the_dialog_url_opens_over_the_board_and_back_closes_it(server, new_page):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, f"/p/dialog-shop?task={key}")
    wait_state(page, "live")
    dialog = page.locator("#task-dialog")
    expect(dialog).to_be_visible()
    assert page.evaluate("document.body.dataset.dialogOpen") == "1"

    page.go_back()

    expect_closed(page, server, "dialog-shop")
    w.assert_clean()


def test_the_focus_stays_inside_the_open_dialog(server, new_page):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")
    dialog = open_from_card(page, key)
    for _ in range(40):
        page.keyboard.press("Tab")
        assert dialog.evaluate("el => el.contains(document.activeElement)")
    for _ in range(5):
        page.keyboard.press("Shift+Tab")
        assert dialog.evaluate("el => el.contains(document.activeElement)")
    w.assert_clean()


def test_copy_link_copies_the_dialog_address(server, new_page):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    dialog = open_from_card(page, key)

    dialog.get_by_role("button", name="Copy link").click()

    status = dialog.locator("[data-td-status]")
    expect(status).to_contain_text("Link copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == f"{server.base_url}/p/dialog-shop?task={key}"
    w.assert_clean()


# --- editing --------------------------------------------------------------------------------


def open_editor(dialog: Any) -> Any:
    dialog.get_by_role("button", name="Edit").click()
    form = dialog.locator("#task-edit-form")
    expect(form).to_be_visible()
    return form


def test_editing_and_saving_updates_the_dialog_and_the_card(server, new_page, shot):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")
    dialog = open_from_card(page, key)
    before = version(server, key)

    form = open_editor(dialog)
    assert focused(page) == "#tf-title"
    form.locator("#tf-title").fill("Login with TOTP")
    form.locator("#tf-waiting-on").fill("agent-7")
    form.get_by_role("button", name="Save").click()

    expect(form.locator("[data-form-status]")).to_contain_text(f"Saved · version {before + 1}.")
    # The swapped form keeps the keyboard's place (restored once htmx settled).
    expect(form.get_by_role("button", name="Save", exact=True)).to_be_focused()
    expect(dialog.locator("#task-title")).to_have_text("Login with TOTP")
    expect(dialog.locator(".td-waiting")).to_have_text("agent-7")
    expect(dialog.locator(".td-version")).to_have_text(str(before + 1))
    card = page.locator(f"#card-{key} .card-title")
    if card.count():
        expect(card).to_have_text("Login with TOTP")
    shot(page, "task-dialog-saved")
    assert not_reloaded(page)
    w.assert_clean()


def test_a_move_that_misses_a_rule_shows_the_warning_in_the_form(server, new_page, shot):
    key = rich_task(server, stage="plan", title="Move without a plan")
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")
    dialog = open_from_card(page, key)
    form = open_editor(dialog)

    form.locator("#tf-stage").select_option("dev")
    form.get_by_role("button", name="Save").click()

    status = form.locator("[data-form-status]")
    expect(status).to_contain_text("The move missed a working rule")
    expect(status).to_contain_text("Rules: moving to dev usually needs an accepted plan")
    expect(dialog.locator(".stage-pill")).to_have_text("Dev")
    shot(page, "task-dialog-rule-warning")
    w.assert_clean()


def test_a_live_agent_write_refreshes_the_details_and_keeps_the_draft(server, new_page):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")
    dialog = open_from_card(page, key)
    dialog.locator(".report summary").first.click()  # an opened report stays open
    form = open_editor(dialog)
    form.locator("#tf-title").fill("My typed title")
    form.locator("#tf-description").fill("My typed description")

    agent(server, "task_update", task=key, progress="The agent wrote new progress.")

    expect(dialog.locator("#task-details")).to_contain_text("The agent wrote new progress.")
    expect(dialog.locator(".report details").first).to_have_attribute("open", "")
    expect(form.locator("#tf-title")).to_have_value("My typed title")
    expect(form.locator("#tf-description")).to_have_value("My typed description")
    expect(form.locator("[data-form-stale]")).to_be_visible()
    expect(form.locator("[data-form-stale]")).to_contain_text("An agent changed this task")

    # A write to another task leaves this dialog alone.
    other = create(server, "dialog-shop", "Another task")
    agent(server, "task_update", task=other, progress="elsewhere")
    expect(form.locator("#tf-title")).to_have_value("My typed title")
    assert not_reloaded(page)
    w.assert_clean()


def test_a_clean_form_follows_an_agent_write(server, new_page):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")
    dialog = open_from_card(page, key)
    form = open_editor(dialog)

    agent(server, "task_update", task=key, priority="urgent")

    expect(dialog.locator("#task-edit-form #tf-priority")).to_have_value("urgent")
    expect(dialog.locator("#task-edit-form")).to_have_attribute(
        "data-version", str(version(server, key))
    )
    expect(dialog.locator("[data-form-stale]")).to_be_hidden()
    del form
    w.assert_clean()


def test_a_concurrent_agent_write_while_editing_shows_the_conflict_on_save(server, new_page, shot):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")
    dialog = open_from_card(page, key)
    form = open_editor(dialog)
    rendered = int(form.get_attribute("data-version"))
    form.locator("#tf-title").fill("The owner's title")

    agent(server, "task_update", task=key, title="The agent's title")
    expect(dialog.locator("#task-title")).to_have_text("The agent's title")
    current = version(server, key)
    form.get_by_role("button", name="Save").click()

    alert = dialog.locator("#task-edit-form .form-alert.is-conflict")
    expect(alert).to_contain_text(
        f"An agent saved version {current} of {key} while you were editing version {rendered}"
    )
    expect(alert).to_contain_text("The agent changed title too.")
    expect(dialog.locator("[data-form-stale]")).to_be_hidden()  # the conflict says it already
    expect(dialog.locator("#tf-title")).to_have_value("The owner's title")
    expect(dialog.locator("#task-title")).to_have_text("The agent's title")  # not overwritten
    shot(page, "task-dialog-conflict")

    dialog.get_by_role("button", name="Reload fresh values").click()
    expect(dialog.locator("#tf-title")).to_have_value("The agent's title")
    expect(dialog.locator("#task-edit-form")).to_have_attribute("data-version", str(current))
    assert w.csp_violations() == []
    assert [e for e in w.errors() if "409" not in e] == []


def test_saving_over_a_conflict_keeps_the_agents_other_changes(server, new_page):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")
    dialog = open_from_card(page, key)
    form = open_editor(dialog)
    form.locator("#tf-branch").fill("feature/owner-branch")
    agent(server, "task_update", task=key, progress="Agent progress survives.")
    form.get_by_role("button", name="Save").click()
    dialog.get_by_role("button", name=re.compile(r"Save my edits over version \d+")).click()

    expect(dialog.locator("[data-form-status]")).to_contain_text("Saved · version")
    expect(dialog.locator("#task-details")).to_contain_text("feature/owner-branch")
    expect(dialog.locator("#task-details")).to_contain_text("Agent progress survives.")
    assert [e for e in w.errors() if "409" not in e] == []


def test_an_invalid_value_shows_the_field_error(server, new_page):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")
    dialog = open_from_card(page, key)
    form = open_editor(dialog)
    form.locator("#tf-tracker-url").fill("ftp://files.example.com/x")
    form.get_by_role("button", name="Save").click()
    expect(dialog.locator("#tf-tracker-url-error")).to_contain_text("http:// or https://")
    expect(dialog.locator("#tf-tracker-url")).to_have_attribute("aria-invalid", "true")
    expect(dialog.locator("#tf-tracker-url")).to_have_value("ftp://files.example.com/x")
    assert [e for e in w.errors() if "400" not in e] == []


def test_closing_with_unsaved_edits_asks_once(server, new_page):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = open_board(w, server, "/p/dialog-shop")
    dialog = open_from_card(page, key)
    form = open_editor(dialog)
    form.locator("#tf-priority").fill("later")

    page.keyboard.press("Escape")
    expect(dialog.locator("[data-td-status]")).to_contain_text("You have unsaved edits")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect_closed(page, server, "dialog-shop")
    w.assert_clean()


# --- phone, dark, the task page --------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_dialog_fills_a_phone_screen(server, new_page, shot, scheme):
    key = rich_task(server)
    w = new_page(**PHONE, color_scheme=scheme)
    page = open_board(w, server, "/p/dialog-shop")
    dialog = open_from_card(page, key)

    box = dialog.bounding_box()
    assert (round(box["x"]), round(box["y"])) == (0, 0)
    assert (round(box["width"]), round(box["height"])) == (PHONE["width"], PHONE["height"])
    close = dialog.get_by_role("link", name="Close")
    expect(close).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, f"task-dialog-phone-{scheme}")
    form = open_editor(dialog)
    expect(form.locator("#tf-title")).to_be_in_viewport()
    shot(page, f"task-dialog-phone-edit-{scheme}")
    close.click()
    on_tab = "?stage=dev" if page.locator("#tab-dev").count() else ""  # the phone tab bar
    expect_closed(page, server, "dialog-shop", on_tab)
    w.assert_clean()


def test_the_dialog_in_dark_mode(server, new_page, shot):
    key = rich_task(server)
    w = new_page(**DESKTOP, color_scheme="dark")
    page = open_board(w, server, "/p/dialog-shop")
    open_from_card(page, key)
    shot(page, "task-dialog-desktop-dark")
    w.assert_clean()


@pytest.mark.parametrize(("size", "scheme"), [(DESKTOP, "light"), (PHONE, "dark")])
def test_the_task_page_shows_the_details_and_follows_live_writes(
    server, new_page, shot, size, scheme
):
    key = rich_task(server)
    w = new_page(**size, color_scheme=scheme)
    page = w.page
    sign_in(page, server, f"/t/{key}")
    wait_state(page, "live")
    page.evaluate("window.__boardMarker = 'still here'")
    expect(page.locator("h1#task-title")).to_have_text("Login with two-factor authentication")
    expect(page.locator(".report")).to_have_count(2)
    expect(page.locator(".decision")).to_contain_text("TOTP only")
    name = "task-page-desktop" if size is DESKTOP else f"task-page-phone-{scheme}"
    shot(page, name)

    agent(server, "report_add", task=key, body="changed · S · the form is wired")
    expect(page.locator(".report")).to_have_count(3)
    expect(page.locator(".report-summary").first).to_have_text("the form is wired")
    assert not_reloaded(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    w.assert_clean()


def test_the_task_page_form_saves(server, new_page):
    key = rich_task(server)
    w = new_page(**DESKTOP)
    page = w.page
    sign_in(page, server, f"/t/{key}")
    page.get_by_role("button", name="Edit").click()
    page.locator("#tf-priority").fill("P0")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("[data-form-status]")).to_contain_text("Saved · version")
    expect(page.locator("#task-details")).to_contain_text("P0")
    w.assert_clean()
