"""The task dialog, the task page and the edit form through Django's test client (§2 Task
dialog / page; §1 Progress, next step, waiting on; §6 checks; §9.8 untrusted content).

Data is made through tasks.services; the form is posted the way a browser sends it (every
field, with the orig_<field> digests the page rendered), parsed from the served HTML.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core import tokens
from core.security import COOKIE_NAME, current_token
from tasks import extensions, services
from tasks.extensions import TaskPanel
from tasks.models import Event
from tasks.selectors import is_next_step_stale
from tests.tasks.factories import (
    ACTOR,
    add_decision,
    add_report,
    make_project,
    make_task,
    reload,
    use_config,
)

pytestmark = pytest.mark.django_db

WRITE_HEADERS = {
    "X-Relaybay-CSRF": "",  # filled in by the fixture (the token exists only then)
    "Sec-Fetch-Site": "same-origin",
    "HX-Request": "true",
}
PLAN_WARNING = "moving to dev usually needs an accepted plan"


@pytest.fixture
def web(client):
    """The test client signed in with the board cookie; `web.write(url, data)` posts like htmx."""
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    headers = {**WRITE_HEADERS, "X-Relaybay-CSRF": tokens.csrf_token(current_token())}

    def write(url, data, htmx=True):
        sent = headers if htmx else {k: v for k, v in headers.items() if k != "HX-Request"}
        return client.post(url, data, headers=sent)

    client.write = write
    return client


@pytest.fixture(autouse=True)
def panels():
    """Only the panels a test registers: these tests are about the dialog's own content (the
    sessions and comments apps test their panels; the browser tests run them all)."""
    saved = list(extensions._panels)
    extensions._panels[:] = []
    given: list[TaskPanel] = []
    extensions.register_task_panels(50, lambda task: list(given))
    yield given
    extensions._panels[:] = saved


@pytest.fixture
def strict(settings, tmp_path):
    # The rules are read from settings at call time, so overriding settings is enough.
    use_config(settings, tmp_path / "strict-home", mode="strict")


class FormReader(HTMLParser):
    """The values a browser would submit from the first form of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}
        self.in_form = False
        self.textarea: str | None = None
        self.select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and "data-task-form" in a:
            self.in_form = True
        if not self.in_form:
            return
        if tag == "input" and a.get("name"):
            if a.get("type") == "checkbox":
                if "checked" in a:
                    self.data[a["name"]] = a.get("value", "on")
            elif a.get("type") != "submit":
                self.data[a["name"]] = a.get("value", "")
        elif tag == "textarea":
            self.textarea = a["name"]
            self.data[self.textarea] = ""
        elif tag == "select":
            self.select = a["name"]
        elif tag == "option" and self.select and "selected" in a:
            self.data[self.select] = a.get("value", "")

    def handle_endtag(self, tag):
        if tag == "form":
            self.in_form = False
        elif tag == "textarea":
            # The parser drops the one line break after <textarea>; so does a browser.
            name = self.textarea
            self.data[name] = self.data[name].removeprefix("\n")
            self.textarea = None
        elif tag == "select":
            self.select = None

    def handle_data(self, data):
        if self.textarea:
            self.data[self.textarea] += data


def form_of(html: str) -> dict[str, str]:
    reader = FormReader()
    reader.feed(html)
    reader.close()
    assert reader.data, "no task form on the page"
    return reader.data


def fresh_form(web, task) -> dict[str, str]:
    response = web.get(f"/p/{task.project.slug}/t/{task.key}/edit")
    assert response.status_code == 200
    return form_of(response.content.decode())


def edit_url(task) -> str:
    return f"/p/{task.project.slug}/t/{task.key}/edit"


def text(response) -> str:
    return response.content.decode()


def full_task(**extra):
    project = make_project("acme-shop", name="Acme shop")
    task = make_task(
        project,
        title="Login with 2FA",
        stage="dev",
        stage_note="Held for the *design* review",
        waiting_on="owner",
        next_step="Wire the **TOTP** form",
        branch="feature/2fa",
        document_path="docs/design/2fa.md",
        description="Add a second factor.\n\n- TOTP\n- recovery codes",
        progress="Backend done; `verify()` covered.",
        priority="high",
        size="M",
        tracker_ref="ABC-12",
        tracker_name="Jira",
        tracker_url="https://jira.example.com/browse/ABC-12",
        tracker_logged=True,
        **extra,
    )
    return project, task


# --- rendering ---------------------------------------------------------------------------------


def test_the_dialog_fragment_shows_every_field(web):
    project, task = full_task()
    add_report(task, "verified · M · login works\n\nRan the **whole** suite.")
    add_decision(project, "Use TOTP, not SMS", task=task.key, decided_by="owner")
    # The report is new work: it cleared the tracker mark (§1); log it again.
    task = services.task_update(key=task.key, tracker_logged=True, actor=ACTOR).obj

    response = web.get(f"/p/acme-shop/t/{task.key}/dialog")

    assert response.status_code == 200
    html = text(response)
    assert '<dialog class="task-dialog"' in html
    assert 'aria-labelledby="task-title"' in html
    assert 'data-task-key="acme-shop-1"' in html
    assert ">Login with 2FA</h2>" in html
    assert 'class="stage-pill stage-dev">Dev<' in html
    assert "Held for the <em>design</em> review" in html  # stage note, markdown
    assert 'class="td-waiting">owner<' in html
    assert "Wire the <strong>TOTP</strong> form" in html
    assert "feature/2fa" in html
    assert "docs/design/2fa.md" in html
    assert '<a href="https://jira.example.com/browse/ABC-12" rel="noopener noreferrer"' in html
    assert "Jira" in html
    assert "✓ logged" in html
    assert '<span class="size-badge">M</span>' in html
    assert "high" in html
    assert f'version <span class="td-version">{task.version}</span>' in html
    assert re.search(r'<time datetime="[^"]+Z" title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"', html)
    assert "<li>recovery codes</li>" in html  # description in full, rendered
    assert "<code>verify()</code>" in html  # progress
    assert 'class="state-badge tone-ok">verified<' in html
    # The badges show state and size, so the line shows the gist; the whole line on hover.
    assert 'title="verified · M · login works">login works</span>' in html
    assert "Ran the <strong>whole</strong> suite." in html
    assert "Use TOTP, not SMS" in html
    assert "decided by" in html
    assert "Tracker history" in html
    assert "current" in html
    assert 'href="/t/acme-shop-1"' in html  # Open task page
    assert 'data-copy-link="/p/acme-shop?task=acme-shop-1"' in html
    assert 'id="task-edit-form"' in html
    assert f'name="expected_version" value="{task.version}"' in html
    # Overview only: no tab bar until a panel lives on another tab.
    assert 'role="tablist"' not in html


def test_the_task_page_shows_the_same_details_on_a_page_of_its_own(web):
    _project, task = full_task()
    add_report(task, "changed · S · first cut")

    response = web.get("/t/acme-shop-1")

    assert response.status_code == 200
    html = text(response)
    assert html.startswith("<!doctype html>")
    assert '<body data-project="acme-shop"' in html
    assert '<h1 class="td-title" id="task-title" tabindex="-1">Login with 2FA</h1>' in html
    assert "<title>acme-shop-1 · Login with 2FA · relaybay</title>" in html
    assert "first cut" in html
    assert "Wire the <strong>TOTP</strong> form" in html
    assert 'hx-get="/p/acme-shop/t/acme-shop-1/details?in=page"' in html
    assert "dialog.js" in html
    assert "live_sections.js" in html  # the live refresh of the sections
    assert 'id="task-edit-form"' in html


def test_a_stale_next_step_is_marked_in_the_details_and_the_form(web):
    _, task = full_task()
    services.task_set_stage(key=task.key, stage="review", actor=ACTOR)

    html = text(web.get(f"/p/acme-shop/t/{task.key}/dialog"))

    assert "td-prop td-prop-wide td-next is-stale" in html
    assert html.count('class="stale-mark"') == 2  # details and the form's label


def test_the_details_and_form_fragments_render_alone(web):
    _, task = full_task()
    details = web.get(f"/p/acme-shop/t/{task.key}/details")
    form = web.get(edit_url(task))
    assert details.status_code == form.status_code == 200
    assert text(details).lstrip().startswith('<div class="td-details" id="task-details"')
    assert "<html" not in text(details)
    assert text(form).lstrip().startswith('<form class="task-form"')


def test_an_empty_task_says_what_is_missing(web):
    task = make_task(make_project("bare"), title="Bare")
    html = text(web.get(f"/p/bare/t/{task.key}/dialog"))
    assert "No description yet." in html
    assert "No progress written yet." in html
    assert "No reports yet." in html
    assert "No decisions recorded for this task." in html
    assert "Tracker history" not in html


@pytest.mark.parametrize(
    "url",
    [
        "/p/acme-shop/t/acme-shop-99/dialog",
        "/p/other/t/acme-shop-1/dialog",
        "/p/acme-shop/t/other-1/dialog",
    ],
)
def test_an_unknown_key_or_a_key_of_another_project_is_a_404_dialog(web, url):
    full_task()
    make_task(make_project("other"), title="Elsewhere")
    response = web.get(url)
    assert response.status_code == 404
    html = text(response)
    assert "<dialog" in html
    assert "Task not found" in html
    assert "Elsewhere" not in html
    assert "Login with 2FA" not in html


@pytest.mark.parametrize("suffix", ["details", "edit", "panel/session"])
def test_the_fragments_of_a_task_in_another_project_are_404(web, suffix):
    full_task()
    make_project("other")
    assert web.get(f"/p/other/t/acme-shop-1/{suffix}").status_code == 404
    assert web.get(f"/p/acme-shop/t/acme-shop-9/{suffix}").status_code == 404


def test_an_unknown_task_page_is_a_404_page(web):
    response = web.get("/t/nope-1")
    assert response.status_code == 404
    assert "Task not found" in text(response)
    assert "Unknown task nope-1" in text(response)


def test_signed_out_visitors_are_sent_to_sign_in(client):
    response = client.get("/t/acme-shop-1")
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=")


# --- registered panels and tabs ----------------------------------------------------------------


def test_registered_panels_render_in_their_tab(web, panels):
    _, task = full_task()
    template = "tasks/partials/task_missing.html"  # any template: it shows task_missing
    panels.append(TaskPanel("session", "Session", template, {"task_missing": "BOUND-PANEL"}))
    panels.append(TaskPanel("plan", "Plan", template, {"task_missing": "PLAN-PANEL"}, tab="plan"))

    html = text(web.get(f"/p/acme-shop/t/{task.key}/dialog"))
    assert 'role="tablist"' in html
    assert ">Overview</a>" in html
    assert ">Plan</a>" in html
    assert ">Review</a>" not in html
    assert 'id="panel-session"' in html
    assert "BOUND-PANEL" in html
    assert 'id="td-panel-plan" role="tabpanel" aria-labelledby="td-tab-plan" hidden' in html
    assert "PLAN-PANEL" in html

    on_plan = text(web.get(f"/p/acme-shop/t/{task.key}/dialog?tab=plan"))
    assert 'id="td-tab-plan" href="/p/acme-shop?task=acme-shop-1&amp;tab=plan"' in on_plan
    assert 'data-tab="plan"' in on_plan
    assert 'id="td-panel-overview" role="tabpanel" aria-labelledby="td-tab-overview" hidden' in (
        on_plan
    )

    assert 'hx-get="/p/acme-shop/t/acme-shop-1/panel/session"' in html
    one = web.get(f"/p/acme-shop/t/{task.key}/panel/plan")
    assert one.status_code == 200
    assert "PLAN-PANEL" in text(one)
    assert text(one).lstrip().startswith('<section class="td-panel" id="panel-plan"')
    assert web.get(f"/p/acme-shop/t/{task.key}/panel/nope").status_code == 404

    page = text(web.get(f"/t/{task.key}"))
    assert "BOUND-PANEL" in page
    assert "PLAN-PANEL" in page


def test_an_unknown_tab_falls_back_to_overview(web):
    _, task = full_task()
    html = text(web.get(f"/p/acme-shop/t/{task.key}/dialog?tab=review"))
    assert 'data-tab="overview"' in html


# --- the edit form -----------------------------------------------------------------------------


def test_saving_the_form_writes_through_the_services_and_bumps_the_version(web):
    _, task = full_task()
    data = fresh_form(web, task)
    data.update(title="Login with TOTP", priority="P1", description="New\r\ntext")

    response = web.write(edit_url(task), data)

    assert response.status_code == 200
    saved = reload(task)
    assert saved.version == task.version + 1
    assert (saved.title, saved.priority, saved.description) == (
        "Login with TOTP",
        "P1",
        "New\ntext",
    )
    event = Event.objects.filter(task=task).latest("id")
    assert (event.kind, event.actor) == ("task.updated", "board")
    assert event.payload["fields"] == ["description", "priority"] or set(
        event.payload["fields"]
    ) == {"title", "description", "priority"}
    html = text(response)
    assert f"Saved · version {saved.version}." in html
    assert f'name="expected_version" value="{saved.version}"' in html
    assert "data-unsaved" not in html
    assert response["HX-Trigger"] == '{"rb-task-saved": {"key": "acme-shop-1"}}'


def test_only_the_edited_fields_are_written(web):
    _, task = full_task()
    data = fresh_form(web, task)
    data["waiting_on"] = "agent"
    web.write(edit_url(task), data)
    event = Event.objects.filter(task=task, kind="task.updated").latest("id")
    assert event.payload == {"fields": ["waiting_on"], "waiting_on": "agent"}


def test_a_stage_move_from_the_form_is_a_stage_change_by_the_board(web):
    project = make_project("acme-shop")
    task = make_task(project, title="T", size="S")
    data = fresh_form(web, task)
    data.update(stage="review", stage_note="Ready for a look")

    response = web.write(edit_url(task), data)

    assert response.status_code == 200
    assert reload(task).stage == "review"
    event = Event.objects.filter(task=task, kind="task.stage_changed").get()
    assert event.actor == "board"
    assert event.payload["note"] == "Ready for a look"


def test_nothing_edited_saves_nothing(web):
    _, task = full_task()
    response = web.write(edit_url(task), fresh_form(web, task))
    assert response.status_code == 200
    assert "Nothing to save" in text(response)
    assert reload(task).version == task.version


def test_a_stale_expected_version_is_a_409_conflict_that_keeps_the_draft(web):
    _, task = full_task()
    data = fresh_form(web, task)
    services.task_update(key=task.key, progress="Agent progress", actor="agent-x")
    data["title"] = "Owner's title"

    response = web.write(edit_url(task), data)

    assert response.status_code == 409
    current = reload(task)
    assert current.title == "Login with 2FA"  # nothing overwritten
    assert current.progress == "Agent progress"
    html = text(response)
    assert "Conflict." in html
    assert f"An agent saved version {current.version} of acme-shop-1" in html
    assert f"while you were editing version {task.version}" in html
    assert "Owner&#x27;s title" in html  # the draft stays in the form
    assert 'data-unsaved="1"' in html
    assert "Reload fresh values" in html
    assert f'name="overwrite_version" value="{current.version}"' in html


def test_saving_over_a_conflict_writes_only_the_owners_fields(web):
    _, task = full_task()
    data = fresh_form(web, task)
    services.task_update(key=task.key, progress="Agent progress", actor="agent-x")
    data["title"] = "Owner's title"
    conflict = web.write(edit_url(task), data)
    again = form_of(text(conflict))
    again["overwrite_version"] = str(reload(task).version)

    response = web.write(edit_url(task), again)

    assert response.status_code == 200
    saved = reload(task)
    assert saved.title == "Owner's title"
    assert saved.progress == "Agent progress"  # the agent's change survives


def test_the_conflict_names_fields_both_sides_changed(web):
    _, task = full_task()
    data = fresh_form(web, task)
    services.task_update(key=task.key, title="Agent title", actor="agent-x")
    data["title"] = "Owner title"
    html = text(web.write(edit_url(task), data))
    assert "The agent changed title too." in html


def test_a_move_that_misses_a_rule_saves_and_shows_the_warning(web):
    task = make_task(make_project("acme-shop"), title="T", size="M")
    data = fresh_form(web, task)
    data["stage"] = "dev"

    response = web.write(edit_url(task), data)

    assert response.status_code == 200
    assert reload(task).stage == "dev"
    html = text(response)
    assert "form-status is-warn" in html
    assert "Rules: " + PLAN_WARNING in html
    assert "Hint: acme-shop-1 has no plan and no todo yet" in html
    event = Event.objects.filter(task=task, kind="task.stage_changed").get()
    assert PLAN_WARNING in event.payload["warnings"][0]


def test_strict_mode_refuses_the_move_and_changes_nothing(web, strict):
    task = make_task(make_project("acme-shop"), title="T", size="M")
    data = fresh_form(web, task)
    data.update(stage="dev", title="Renamed too")

    response = web.write(edit_url(task), data)

    assert response.status_code == 409
    after = reload(task)
    assert (after.stage, after.title, after.version) == ("plan", "T", task.version)
    html = text(response)
    assert "Refused by the working rules" in html
    assert "Nothing changed." in html
    assert 'data-unsaved="1"' in html
    assert "Renamed too" in html  # the draft stays


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("size", "XL", "size must be one of S, M, L"),
        ("tracker_url", "ftp://x", "tracker_url must be an http:// or https:// link"),
        ("title", "", "title cannot be cleared"),
        ("stage", "later", "Unknown stage"),
        ("waiting_on", "a\nb", "waiting_on must be one line"),
        ("title", "bad\x00title", "title contains the control character U+0000"),
        ("branch", "main\x1b[0m", "branch contains the control character U+001B"),
        ("description", "text\x00", "description contains a NUL character"),
        ("priority", "p" * 41, "priority is 41 characters long; the limit is 40"),
    ],
)
def test_an_invalid_value_is_a_400_with_the_field_error(web, field, value, message):
    _, task = full_task()
    data = fresh_form(web, task)
    data[field] = value

    response = web.write(edit_url(task), data)

    assert response.status_code == 400
    assert reload(task).version == task.version
    html = text(response)
    dom_id = "tf-" + field.replace("_", "-")
    assert f'id="{dom_id}-error">' in html
    assert message in html
    assert re.search(rf'id="{dom_id}"[^>]*aria-invalid="true"', html)
    assert "Nothing was saved: fix the marked field." in html


def test_a_form_without_its_version_is_refused(web):
    _, task = full_task()
    data = fresh_form(web, task)
    del data["expected_version"]
    data["title"] = "X"
    response = web.write(edit_url(task), data)
    assert response.status_code == 400
    assert "The form lost the task" in text(response)
    assert reload(task).title == "Login with 2FA"


def test_an_unedited_stale_next_step_is_not_confirmed(web):
    _, task = full_task()
    services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    assert is_next_step_stale(reload(task))
    data = fresh_form(web, task)
    data["title"] = "Renamed"

    web.write(edit_url(task), data)

    after = reload(task)
    assert after.title == "Renamed"
    assert is_next_step_stale(after)
    event = Event.objects.filter(task=task, kind="task.updated").latest("id")
    assert "confirmed" not in event.payload


def test_a_move_from_the_form_does_not_confirm_an_unedited_next_step(web):
    _, task = full_task()
    data = fresh_form(web, task)
    data["stage"] = "review"
    web.write(edit_url(task), data)
    assert is_next_step_stale(reload(task))


def test_an_edited_next_step_is_written_and_fresh(web):
    _, task = full_task()
    services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    data = fresh_form(web, task)
    data["next_step"] = "Ask the owner to look"
    web.write(edit_url(task), data)
    after = reload(task)
    assert after.next_step == "Ask the owner to look"
    assert not is_next_step_stale(after)


def test_an_unchanged_tracker_mark_does_not_block_the_automatic_unlog(web):
    _, task = full_task()
    data = fresh_form(web, task)
    assert data["tracker_logged"] == "1"
    data["progress"] = "More work done"
    response = web.write(edit_url(task), data)
    assert reload(task).tracker_logged is False
    assert "Tracker mark cleared on acme-shop-1" in text(response)


def test_unchecking_the_tracker_mark_is_an_edit(web):
    _, task = full_task()
    data = fresh_form(web, task)
    del data["tracker_logged"]
    web.write(edit_url(task), data)
    assert reload(task).tracker_logged is False


def test_a_plain_form_post_redirects_to_the_task_page(web):
    _, task = full_task()
    data = fresh_form(web, task)
    data["title"] = "Without scripts"
    response = web.write(edit_url(task), data, htmx=False)
    assert response.status_code == 303
    assert response["Location"] == "/t/acme-shop-1"
    assert reload(task).title == "Without scripts"


def test_a_plain_form_post_with_an_error_shows_the_page_with_the_error(web):
    _, task = full_task()
    data = fresh_form(web, task)
    data["size"] = "XL"
    response = web.write(edit_url(task), data, htmx=False)
    assert response.status_code == 400
    assert "<!doctype html>" in text(response)
    assert "size must be one of S, M, L" in text(response)


def test_a_write_without_the_csrf_token_is_refused(web, client):
    _, task = full_task()
    data = fresh_form(web, task)
    data.pop("csrf_token")
    data["title"] = "Forged"
    response = client.post(edit_url(task), data, headers={"Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 403
    assert reload(task).title == "Login with 2FA"


# --- untrusted text ----------------------------------------------------------------------------

SCRIPT = "<script>alert('rb')</script>"
IMG = "<img src=x onerror=alert(1)>"
JS_LINK = "[x](javascript:alert(1))"
PAYLOAD = f"{SCRIPT} {IMG} {JS_LINK}"


def assert_inert(html: str) -> None:
    assert "<script>alert" not in html
    assert "<img src=x" not in html.lower()
    assert "onerror=alert" not in html.replace("onerror=alert(1)&gt;", "")
    assert 'href="javascript:' not in html.lower()
    assert "&lt;script&gt;alert(" in html  # shown as text


def hostile_task():
    project = make_project("evil", name=PAYLOAD[:200])
    task = make_task(
        project,
        title=PAYLOAD,
        stage_note=PAYLOAD,
        waiting_on=PAYLOAD,
        next_step=PAYLOAD,
        branch=PAYLOAD,
        document_path=PAYLOAD,
        description=PAYLOAD + "\n\n" + PAYLOAD,
        progress=PAYLOAD,
        priority=IMG,
        tracker_ref=PAYLOAD[:100],
        tracker_name=PAYLOAD[:100],
        tracker_url="https://x.test/\"><script>alert('rb')</script>",
    )
    services.report_add(key=task.key, body=f"{PAYLOAD}\n\n{PAYLOAD}", actor=PAYLOAD[:200])
    add_decision(project, PAYLOAD, task=task.key, decided_by=PAYLOAD[:200])
    return reload(task)


@pytest.mark.parametrize("where", ["dialog", "page", "details", "edit"])
def test_agent_text_is_escaped_everywhere(web, where):
    task = hostile_task()
    urls = {
        "dialog": f"/p/evil/t/{task.key}/dialog",
        "page": f"/t/{task.key}",
        "details": f"/p/evil/t/{task.key}/details",
        "edit": edit_url(task),
    }
    response = web.get(urls[where])
    assert response.status_code == 200
    assert_inert(text(response))


def test_a_hostile_tracker_url_never_becomes_a_script_link(web):
    task = hostile_task()
    html = text(web.get(f"/p/evil/t/{task.key}/dialog"))
    assert 'href="https://x.test/&quot;&gt;&lt;script&gt;' in html


def test_a_hostile_draft_is_escaped_when_shown_again(web):
    _, task = full_task()
    data = fresh_form(web, task)
    data.update(title=PAYLOAD, size="XL")
    response = web.write(edit_url(task), data)
    assert response.status_code == 400
    assert_inert(text(response))


# --- query counts ----------------------------------------------------------------------------


def _queries(web, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert web.get(url).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.parametrize("where", ["dialog", "details", "page"])
def test_query_counts_do_not_grow_with_reports_or_decisions(web, where):
    project, task = full_task()
    add_report(task, "changed · S · one")
    url = {
        "dialog": f"/p/acme-shop/t/{task.key}/dialog",
        "details": f"/p/acme-shop/t/{task.key}/details",
        "page": f"/t/{task.key}",
    }[where]
    few = _queries(web, url)
    for n in range(15):
        add_report(task, f"changed · S · report {n}\n\nbody {n}")
        add_decision(project, f"decision {n}", task=task.key)
        services.task_update(key=task.key, tracker_ref=f"ABC-{100 + n}", actor=ACTOR)
    many = _queries(web, url)
    assert many == few
