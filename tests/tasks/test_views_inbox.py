"""The Inbox page, its list and badge fragments, and the notification title lookup (§2 Inbox)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from core import actor as actors
from core import tokens
from core.config import load_config
from core.security import current_token
from tasks import extensions, services
from tasks.extensions import InboxGroup, InboxRow
from tasks.models import Task
from tasks.selectors import inbox as inbox_selectors
from tasks.selectors import sql as inbox_sql
from tasks.selectors.inbox import inbox
from tests.support.board import signed_in_client
from tests.tasks.factories import ACTOR, add_report, make_project, make_task

pytestmark = pytest.mark.django_db

EMPTY = "Nothing needs you right now."
XSS_TITLE = "<script>alert(1)</script> & <img src=x onerror=alert(2)>"


@pytest.fixture
def client() -> Client:
    return signed_in_client()


@pytest.fixture
def configure(settings, tmp_path: Path):
    """Override settings.RELAYBAY from RELAYBAY_* values, as the environment would."""

    def apply(**env: str) -> None:
        environ = {"RELAYBAY_HOME": str(tmp_path / "home")}
        environ.update({f"RELAYBAY_{k.upper()}": v for k, v in env.items()})
        settings.RELAYBAY = load_config(environ=environ)

    return apply


@pytest.fixture
def extra_group():
    """Register another app's group (as later issues do) and restore the registry after."""
    saved = list(extensions._inbox_groups)
    registered = []

    def register(order: int, group: InboxGroup | None) -> None:
        fn = lambda: group  # noqa: E731 - one registered function per group
        registered.append(fn)
        extensions.register_inbox_group(order, fn)

    yield register
    extensions._inbox_groups[:] = saved


def page(client: Client, url: str = "/inbox") -> str:
    response = client.get(url)
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


def group_keys(html: str, group_id: str) -> list[str]:
    """Task keys of one group's rows, in order."""
    section = re.search(
        rf'<section class="inbox-group" id="inbox-{group_id}".*?</section>', html, re.S
    )
    if section is None:
        return []
    return re.findall(r'<span class="inbox-key">([^<]+)</span>', section.group(0))


def badge(client: Client) -> tuple[str, bool]:
    html = page(client, "/inbox/badge")
    match = re.search(r'<span id="inbox-badge"[^>]*>(\d+)</span>', html)
    assert match is not None, html
    return match.group(1), " hidden" in match.group(0)


def move(task, stage: str, **kw) -> None:
    """The owner's move (owner-only stages such as done do not warn it)."""
    services.task_set_stage(key=task.key, stage=stage, actor=actors.BOARD, **kw)


# --- empty states and the frame --------------------------------------------------------------


def test_an_empty_inbox_says_nothing_needs_you(client):
    html = page(client)
    assert EMPTY in html
    assert "<h1>Needs you</h1>" in html
    assert 'class="inbox-group"' not in html


def test_the_badge_is_hidden_at_zero(client):
    assert badge(client) == ("0", True)


def test_the_list_fragment_refetches_itself_on_inbox_changes(client):
    html = page(client, "/inbox/groups")
    assert html.lstrip().startswith('<div id="inbox-groups"')
    assert 'hx-get="/inbox/groups"' in html
    assert 'hx-trigger="rb-inbox-changed from:body"' in html
    assert EMPTY in html
    assert "<html" not in html


def test_every_page_carries_the_badge_counted_on_the_server_that_refetches_itself(client):
    make_task(make_project("acme"), "Mine", waiting_on="owner")
    for url in ("/", "/inbox", "/activity", "/settings/notifications"):
        html = page(client, url)
        tag = re.search(r'<span id="inbox-badge"[^>]*>1</span>', html)
        assert tag is not None, url
        assert 'hx-get="/inbox/badge"' in tag[0]
        assert 'hx-trigger="rb-inbox-changed from:body"' in tag[0]
        assert "hidden" not in tag[0]


def test_a_broken_inbox_group_leaves_the_other_pages_standing(client, extra_group, caplog):
    def broken():
        raise RuntimeError("boom")

    extensions.register_inbox_group(5, broken)
    html = page(client, "/")
    assert re.search(r'<span id="inbox-badge"[^>]* hidden>0</span>', html)
    assert "the Inbox badge could not be counted" in caplog.text


def test_the_inbox_is_the_current_sidebar_item(client):
    html = page(client)
    assert re.search(r'<a href="/inbox" aria-current="page">', html)
    assert '<span aria-current="page">Inbox</span>' in html


def test_signed_out_visitors_are_sent_to_sign_in():
    anonymous = Client()
    for url in ("/inbox", "/inbox/groups", "/inbox/badge", "/t/x-1/title"):
        response = anonymous.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/login?next=")


def test_the_inbox_urls_only_answer_reads(client):
    headers = {
        "HTTP_SEC_FETCH_SITE": "same-origin",
        "HTTP_X_RELAYBAY_CSRF": tokens.csrf_token(current_token()),
    }
    for url in ("/inbox", "/inbox/groups", "/inbox/badge", "/t/x-1/title"):
        assert client.post(url, **headers).status_code == 405


# --- Waiting on you --------------------------------------------------------------------------


def test_waiting_on_you_matches_owner_names_case_insensitively_after_trimming(client):
    project = make_project("acme")
    mine = [
        make_task(project, "Owner upper", waiting_on="OWNER"),
        make_task(project, "Me", waiting_on="me"),
        make_task(project, "You", waiting_on="You"),
    ]
    make_task(project, "Agent's turn", waiting_on="agent-7")
    make_task(project, "Nobody")
    make_task(project, "Owner-ish", waiting_on="owners")
    html = page(client)
    assert sorted(group_keys(html, "waiting-on-you")) == sorted(t.key for t in mine)
    assert 'Waiting on you <span class="count">3</span>' in html
    assert EMPTY not in html


def test_owner_names_come_from_the_config_and_may_be_non_ascii(client, configure):
    configure(owner_names=" Ольга , boss")
    project = make_project("acme")
    olga = make_task(project, "For Olga", waiting_on="ОЛЬГА")
    boss = make_task(project, "For the boss", waiting_on="Boss")
    make_task(project, "Default name no longer counts", waiting_on="owner")
    assert sorted(group_keys(page(client), "waiting-on-you")) == sorted([olga.key, boss.key])


def test_done_tasks_are_not_waiting_on_you(client):
    task = make_task(make_project("acme"), "Finished", waiting_on="owner", progress="all done")
    move(task, "done")
    assert group_keys(page(client), "waiting-on-you") == []


def test_a_waiting_row_shows_the_stage_and_next_step_and_opens_the_task_dialog(client):
    task = make_task(
        make_project("acme", name="Acme Shop"),
        "Pick a colour",
        waiting_on="owner",
        next_step="Choose between red and blue",
    )
    html = page(client)
    row = re.search(r'<li class="inbox-row">.*?</li>', html, re.S).group(0)
    assert f'href="/p/acme?task={task.key}"' in row
    assert "In Plan · next: Choose between red and blue" in row
    assert "Acme Shop" in row
    assert "Pick a colour" in row


# --- Rule warnings ---------------------------------------------------------------------------


def test_a_move_that_missed_a_rule_is_listed_until_the_task_moves_again(client):
    task = make_task(make_project("acme"), "Needs a plan", size="M")
    move(task, "dev")  # warn mode: dev needs an accepted plan for size M
    html = page(client)
    assert group_keys(html, "rule-warnings") == [task.key]
    assert "plan → dev: moving to dev usually needs an accepted plan" in html

    add_report(task)
    move(task, "test")  # a report since the last stage change: no warning
    assert group_keys(page(client), "rule-warnings") == []

    move(task, "done")  # done without progress: warned again
    html = page(client)
    assert group_keys(html, "rule-warnings") == [task.key]
    assert "test → done: moving to done usually needs progress" in html


def test_other_writes_keep_a_rule_warning_until_the_next_move(client):
    task = make_task(make_project("acme"), "Needs a plan", size="M")
    move(task, "dev")
    services.task_update(key=task.key, actor=ACTOR, next_step="Write the plan")
    assert group_keys(page(client), "rule-warnings") == [task.key]


def test_several_warnings_show_the_first_and_how_many_more(client, configure, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[rules.stage_requirements]\nreview = [{kind = "field_present", field = "branch"}, '
        '{kind = "field_present", field = "progress"}]\n'
    )
    configure()
    task = make_task(make_project("acme"), "Two misses")
    move(task, "review")
    html = page(client)
    assert "plan → review: moving to review usually needs branch (+1 more)" in html


# --- Not logged in the tracker ---------------------------------------------------------------


def done_task(project, title: str, **fields):
    task = make_task(project, title, progress="finished", **fields)
    move(task, "done")
    return task


def test_not_logged_lists_done_tasks_without_the_mark_only_with_require_tracker_log(
    client, configure
):
    project = make_project("acme")
    unlogged = done_task(project, "Shipped", tracker_ref="JIRA-7", tracker_name="Jira")
    done_task(project, "Logged", tracker_ref="JIRA-8", tracker_logged=True)
    no_issue = done_task(project, "No issue key")
    make_task(project, "Still open", tracker_ref="JIRA-9")

    assert group_keys(page(client), "not-logged") == []
    configure(require_tracker_log="true")
    html = page(client)
    assert group_keys(html, "not-logged") == [unlogged.key, no_issue.key]
    assert "Jira JIRA-7 · closed just now" in html
    assert "no issue key · closed just now" in html


def test_archived_done_tasks_are_left_out_unless_the_tracker_log_keeps_them(client, configure):
    project = make_project("acme")
    task = make_task(project, "Done without progress", waiting_on="owner")
    move(task, "done")  # warned: done needs progress
    configure(done_window_days="7")
    assert group_keys(page(client), "rule-warnings") == [task.key]

    configure(done_window_days="0")  # closed before the window: archived
    assert group_keys(page(client), "rule-warnings") == []
    assert EMPTY in page(client)

    configure(done_window_days="0", require_tracker_log="true")  # never archived unlogged
    html = page(client)
    assert group_keys(html, "rule-warnings") == [task.key]
    assert group_keys(html, "not-logged") == [task.key]


# --- the badge and registered groups ---------------------------------------------------------


def test_the_badge_counts_every_row_of_every_group(client, configure):
    configure(require_tracker_log="true")
    project = make_project("acme")
    make_task(project, "One", waiting_on="owner")
    make_task(project, "Two", waiting_on="me")
    warned = make_task(project, "Warned", size="L")
    move(warned, "dev")
    done_task(project, "Unlogged")
    assert badge(client) == ("4", False)
    assert 'title="4 need you"' in page(client, "/inbox/badge")


def test_the_badge_is_counted_with_the_rows_meaning_without_reading_the_rows(client, configure):
    """The badge on every page counts (issue 18): the same number as the Inbox's rows, from
    queries that read no task titles, so its cost does not grow with the open tasks."""
    configure(owner_names=" Ольга , boss", require_tracker_log="true", done_window_days="0")
    project, other = make_project("acme"), make_project("beta")
    make_task(project, "For Olga", waiting_on="ОЛЬГА")
    make_task(other, "For the boss", waiting_on=" Boss ")
    make_task(project, "Not the owner any more", waiting_on="owner")
    make_task(project, "Agent", waiting_on="agent-7")
    finished = make_task(project, "Done, was waiting", waiting_on="boss")
    move(finished, "done")  # done: not waiting; unlogged: Not logged counts it
    warned = make_task(other, "Warned twice", size="L")
    move(warned, "dev")
    quiet = make_task(project, "Moved without warnings")
    move(quiet, "dev", note="fine")
    rows = inbox()
    assert [g.id for g in rows.groups] == ["waiting-on-you", "rule-warnings", "not-logged"]
    assert len(rows.groups[0].rows) == 2  # Ольга and boss, not "owner"
    inbox_selectors.forget_badge()  # the Inbox just counted it: count again
    with CaptureQueriesContext(connection) as queries:
        assert badge(client) == (str(rows.total), False)
    sqls = [q["sql"] for q in queries.captured_queries]
    waiting = [sql for sql in sqls if sql == inbox_sql.WAITING_ON_VALUES.text]
    assert len(waiting) == 1
    assert "title" not in waiting[0]
    last_moves = [sql for sql in sqls if 'FROM "tasks_event"' in sql]
    assert last_moves
    assert all('"tasks_task"."title"' not in sql for sql in last_moves)


def test_groups_registered_by_other_apps_render_in_order_with_their_link(client, extra_group):
    make_task(make_project("acme"), "Mine", waiting_on="owner")
    extra_group(
        10,
        InboxGroup(
            id="review-queue",
            title="Review queue",
            rows=(InboxRow(title="Check it", href="/p/acme?task=acme-9&tab=review", key="acme-9"),),
        ),
    )
    extra_group(
        50,
        InboxGroup(
            id="unlinked",
            title="Unlinked hook sessions",
            rows=(InboxRow(title="cwd /srv/x", href="/settings/integrations", detail="ambiguous"),),
            link="/settings/integrations",
        ),
    )
    extra_group(60, None)  # a feature that is switched off
    extra_group(70, InboxGroup(id="empty", title="Empty group", rows=()))
    html = page(client)
    ids = re.findall(r'<section class="inbox-group" id="inbox-([\w-]+)"', html)
    assert ids == ["review-queue", "waiting-on-you", "unlinked"]
    assert 'href="/p/acme?task=acme-9&amp;tab=review"' in html
    assert '<a class="inbox-group-link" href="/settings/integrations">' in html
    assert "Empty group" not in html
    assert badge(client) == ("3", False)


# --- untrusted text ---------------------------------------------------------------------------


def test_agent_text_and_owner_names_are_escaped(client, configure):
    evil_name = "<img src=x onerror=alert(3)>"
    configure(owner_names=f"owner,{evil_name}")
    project = make_project("acme", name="<b>Acme</b>")
    make_task(project, XSS_TITLE, waiting_on=evil_name, next_step="<script>steal()</script>")
    warned = make_task(project, "<img src=y onerror=alert(4)>", size="M")
    move(warned, "dev")
    for url in ("/inbox", "/inbox/groups"):
        html = page(client, url)
        assert "<script>alert(1)" not in html
        assert "<script>steal()" not in html
        assert "<img src=x" not in html
        assert "<img src=y" not in html
        assert "<b>Acme</b>" not in html
        assert (
            "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(2)&gt;" in html
        )
        assert "&lt;script&gt;steal()&lt;/script&gt;" in html
        assert "&lt;b&gt;Acme&lt;/b&gt;" in html


# --- query counts -----------------------------------------------------------------------------


def fill(project, n: int, configure_done: bool = False) -> None:
    for i in range(n):
        make_task(project, f"Waiting {i}", waiting_on="owner")
        warned = make_task(project, f"Warned {i}", size="M")
        move(warned, "dev")
        done_task(project, f"Unlogged {i}")


@pytest.mark.parametrize("url", ["/inbox", "/inbox/groups", "/inbox/badge"])
def test_query_counts_do_not_grow_with_the_rows(client, configure, url):
    configure(require_tracker_log="true")
    fill(make_project("small"), 1)
    with CaptureQueriesContext(connection) as few:
        page(client, url)
    fill(make_project("big"), 12)
    with CaptureQueriesContext(connection) as many:
        html = page(client, url)
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]
    if url == "/inbox/badge":
        assert ">39</span>" in html


# --- the notification's title lookup ---------------------------------------------------------


def test_the_title_lookup_answers_the_title_and_the_review_tab_link(client):
    task = make_task(make_project("acme"), XSS_TITLE)
    response = client.get(f"/t/{task.key.upper()}/title")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "key": task.key,
        "title": XSS_TITLE,
        "stage": "plan",
        "project": "acme",
        "href": f"/p/acme?task={task.key}&tab=review",
    }


def test_the_title_lookup_of_an_unknown_task_is_a_404(client):
    response = client.get("/t/nope-1/title")
    assert response.status_code == 404
    assert response.json() == {"error": "Unknown task nope-1."}


def test_the_badge_is_counted_again_only_when_an_event_was_added(client):
    """Every page's frame reuses the last count while the event log has not grown: one
    query (the newest event's id) instead of one per group."""
    project = make_project("acme")
    make_task(project, "One", waiting_on="owner")
    assert badge(client) == ("1", False)
    with CaptureQueriesContext(connection) as queries:
        assert badge(client) == ("1", False)
    counted = [q["sql"] for q in queries.captured_queries if "tasks_event" in q["sql"]]
    assert counted == ["SELECT max(id) FROM tasks_event"]
    make_task(project, "Two", waiting_on="owner")  # its write records task.created
    assert badge(client) == ("2", False)


def test_a_change_without_an_event_shows_once_the_count_is_old(client, monkeypatch):
    """A session ageing out of a group records nothing; the count is at most BADGE_TTL old."""
    task = make_task(make_project("acme"), "One", waiting_on="owner")
    assert badge(client) == ("1", False)
    Task.objects.filter(pk=task.pk).update(waiting_on="")  # no event, as time alone does
    assert badge(client) == ("1", False)
    monkeypatch.setattr(inbox_selectors, "BADGE_TTL", 0.0)
    assert badge(client) == ("0", True)


def test_the_inbox_page_hands_its_count_to_the_badge(client):
    make_task(make_project("acme"), "One", waiting_on="owner")
    page(client, "/inbox")
    with CaptureQueriesContext(connection) as queries:
        assert badge(client) == ("1", False)
    assert not [q for q in queries.captured_queries if "tasks_task" in q["sql"]]
