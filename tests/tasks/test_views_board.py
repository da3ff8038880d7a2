"""The project board /p/<slug> and its fragments through Django's test client (§2 Paged
board, Cards, Done column and archive). Data is made through tasks.services."""

from __future__ import annotations

import re
from contextlib import contextmanager
from datetime import datetime, timedelta
from html import unescape

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core import tokens
from core.security import COOKIE_NAME, current_token
from tasks import extensions, services
from tasks.extensions import CardExtra
from tasks.selectors import board as board_selectors
from tasks.selectors.board import COLUMN_LIMIT
from tests.tasks.factories import ACTOR, make_project, make_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def web(client):
    """The test client signed in with the board cookie."""
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client


@pytest.fixture
def card_extras():
    """Register a batched card extension the way the sessions app does; returns its dict."""
    saved = list(extensions._card_extras)
    given: dict[str, CardExtra] = {}

    def extras(tasks):
        # One query for the whole board, like a real extension.
        ids = set(
            type(tasks[0]).objects.filter(id__in=[t.id for t in tasks]).values_list("id", flat=True)
        )
        return {t.id: given[t.key] for t in tasks if t.key in given and t.id in ids}

    extensions.register_card_extras(extras)
    yield given
    extensions._card_extras[:] = saved


@contextmanager
def days_ago(monkeypatch, days: float):
    """Writes inside happen `days` ago: timezone.now() reads the shifted clock (the services
    keep a reference to timezone.now itself, so the datetime it calls is what moves)."""
    shift = timedelta(days=days)

    class Past(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.now(tz) - shift

    with monkeypatch.context() as m:
        m.setattr(timezone, "datetime", Past)
        yield


def close(task, monkeypatch=None, days: float = 0, **fields):
    if monkeypatch is None:
        return services.task_set_stage(key=task.key, stage="done", actor=ACTOR, **fields).obj
    with days_ago(monkeypatch, days):
        return services.task_set_stage(key=task.key, stage="done", actor=ACTOR, **fields).obj


def html(response) -> str:
    return response.content.decode()


def column_keys(page: str, stage: str) -> list[str]:
    """The card keys of one column, in order."""
    match = re.search(rf'<section class="column column-{stage}\b.*?</section>', page, re.S)
    assert match, f"no {stage} column"
    return re.findall(r'<article class="card[^"]*" id="card-([^"]+)"', match.group(0))


def column_stages(page: str) -> list[str]:
    return re.findall(r'<section class="column column-(\w+)', page)


def count_of(page: str, stage: str) -> int:
    match = re.search(rf'id="col-h-{stage}".*?class="column-count"[^>]*>(\d+)<', page, re.S)
    assert match
    return int(match.group(1))


# --- pages ---------------------------------------------------------------------------------


def test_page_one_shows_plan_dev_review_and_test(web):
    p = make_project("acme", name="Acme Shop")
    a = make_task(p, title="Plan me")
    b = make_task(p, title="Build me", stage="dev")
    c = make_task(p, title="Ship me", stage="live")
    page = html(web.get("/p/acme"))
    assert column_stages(page) == ["plan", "dev", "review", "test"]
    assert column_keys(page, "plan") == [a.key]
    assert column_keys(page, "dev") == [b.key]
    assert c.key not in page
    assert '<body data-project="acme"' in page
    assert '<div id="dialog-slot" data-dialog-url="/p/acme/t/__key__/dialog">' in page
    assert "<h1>Acme Shop</h1>" in page
    assert 'id="pager-1" class="pager-link"' in page
    assert re.search(r'id="pager-1"[^>]*aria-current="page"', page)
    assert "Plan · Dev · Review · Test" in page
    assert "Live · Done" in page


def test_page_two_shows_live_and_done(web):
    p = make_project("acme")
    live = make_task(p, title="Running", stage="live")
    done = make_task(p, title="Finished", stage="done")
    plan = make_task(p, title="Later")
    page = html(web.get("/p/acme?page=2"))
    assert column_stages(page) == ["live", "done"]
    assert column_keys(page, "live") == [live.key]
    assert column_keys(page, "done") == [done.key]
    assert f'id="card-{plan.key}"' not in page
    assert re.search(r'id="pager-2"[^>]*aria-current="page"', page)


@pytest.mark.parametrize(
    ("query", "stages"),
    [
        ("?page=9", ["live", "done"]),
        ("?page=-3", ["plan", "dev", "review", "test"]),
        ("?page=zwei", ["plan", "dev", "review", "test"]),
        ("?page=2&stage=nope", ["live", "done"]),
    ],
)
def test_an_out_of_range_page_clamps(web, query, stages):
    make_project("acme")
    response = web.get("/p/acme" + query)
    assert response.status_code == 200
    assert column_stages(html(response)) == stages


def test_the_stage_tab_selects_its_column_and_page(web):
    p = make_project("acme")
    make_task(p, title="t", stage="test")
    page = html(web.get("/p/acme?stage=test"))
    assert column_stages(page) == ["plan", "dev", "review", "test"]
    assert re.search(r'class="column column-test is-selected"', page)
    tab = re.search(r'<button[^>]*id="tab-test"[^>]*>', page).group(0)
    assert 'aria-selected="true"' in tab
    assert 'role="tab"' in tab
    other = re.search(r'<button[^>]*id="tab-live"[^>]*>', page).group(0)
    assert 'aria-selected="false"' in other
    assert "aria-controls" not in other  # its column is on the other page
    assert 'hx-get="/p/acme/board/columns?stage=live&amp;nav=push"' in other
    # Six tabs with their counts.
    assert len(re.findall(r'role="tab"', page)) == 6
    # The live stage lives on page 2.
    assert column_stages(html(web.get("/p/acme?stage=live"))) == ["live", "done"]


def test_stage_labels_come_from_the_config_and_keys_stay_english(web, configure):
    configure(stage_labels={"dev": "Build", "done": "Shipped"})
    p = make_project("acme")
    make_task(p, title="t", stage="dev")
    page = html(web.get("/p/acme"))
    assert '<span class="column-label">Build</span>' in page
    assert 'id="col-dev"' in page
    assert "Plan · Build · Review · Test" in page
    assert "Live · Shipped" in page
    assert '<span class="tab-label">Shipped</span>' in page


def test_the_pager_and_tabs_keep_search_and_archive(web):
    make_project("acme")
    page = html(web.get("/p/acme?q=login&archived=1"))
    assert 'href="/p/acme?page=2&amp;q=login&amp;archived=1"' in page
    assert 'hx-get="/p/acme/board/columns?page=2&amp;q=login&amp;archived=1&amp;nav=push"' in page
    assert (
        'hx-get="/p/acme/board/columns?stage=done&amp;q=login&amp;archived=1&amp;nav=push"' in page
    )
    assert 'value="login"' in page
    assert '<input type="hidden" name="archived" value="1">' in page
    assert "Hide archived" in page


def test_an_unknown_project_is_a_helpful_404(web):
    make_project("acme")
    response = web.get("/p/nope")
    assert response.status_code == 404
    page = html(response)
    assert "There is no project “nope”" in page
    assert 'href="/"' in page
    assert '<body data-project=""' in page
    assert web.get("/p/nope/board/columns").status_code == 404
    assert web.get("/p/nope/card/nope-1").status_code == 404


def test_an_unknown_task_key_is_a_404_with_a_way_back(web):
    p = make_project("acme", name="Acme")
    other = make_task(make_project("other"), title="elsewhere")
    for key in ("acme-99", other.key):
        response = web.get(f"/p/acme?task={key}")
        assert response.status_code == 404
        assert f"There is no task {key} in Acme" in html(response)
        assert 'href="/p/acme"' in html(response)
    make_task(p, title="here")
    assert web.get("/p/acme/card/acme-99").status_code == 404
    assert web.get(f"/p/acme/card/{other.key}").status_code == 404


def test_a_task_link_shows_the_page_of_its_column(web):
    p = make_project("acme")
    done = make_task(p, title="Finished", stage="done")
    response = web.get(f"/p/acme?task={done.key}")
    assert response.status_code == 200
    assert column_stages(html(response)) == ["live", "done"]
    assert 'class="column column-done is-selected"' in html(response)  # its tab on a phone


def test_a_task_link_opens_the_board_with_the_dialog_already_in_place(web):
    p = make_project("acme")
    task = make_task(p, title="Open me", stage="dev")
    page = html(web.get(f"/p/acme?task={task.key}"))
    slot = page[page.index('<div id="dialog-slot"') :]
    assert 'id="task-dialog"' in slot
    assert "Open me" in slot
    assert column_keys(page, "dev") == [task.key]
    card = html(web.get(f"/p/acme/card/{task.key}"))
    dialog = f'hx-get="/p/acme/t/{task.key}/dialog" hx-target="#dialog-slot" hx-swap="innerHTML"'
    assert dialog in card
    assert f'hx-push-url="/p/acme?task={task.key}"' in card


def test_the_board_needs_sign_in_or_the_bearer_token(client):
    make_project("acme")
    response = client.get("/p/acme?page=2")
    assert response.status_code == 302
    assert response["Location"] == "/login?next=/p/acme%3Fpage%3D2"
    bearer = client.get("/p/acme", HTTP_AUTHORIZATION=f"Bearer {current_token()}")
    assert bearer.status_code == 200


# --- columns and counts --------------------------------------------------------------------


def test_columns_have_counts_and_newest_moves_first(web):
    p = make_project("acme")
    first = make_task(p, title="one", stage="dev")
    second = make_task(p, title="two", stage="dev")
    make_task(p, title="three", stage="test")
    services.task_set_stage(key=first.key, stage="dev", actor=ACTOR, next_step="x")
    services.task_set_stage(key=first.key, stage="review", actor=ACTOR)
    services.task_set_stage(key=first.key, stage="dev", actor=ACTOR)
    page = html(web.get("/p/acme"))
    assert column_keys(page, "dev") == [first.key, second.key]
    assert (count_of(page, "plan"), count_of(page, "dev"), count_of(page, "test")) == (0, 2, 1)
    assert re.search(r'id="tab-dev".*?<span class="tab-count">2</span>', page, re.S)


def test_every_empty_column_says_so(web):
    make_project("acme")
    page = html(web.get("/p/acme"))
    for label in ("Plan", "Dev", "Review", "Test"):
        assert f'<p class="column-empty">No tasks in {label}.</p>' in page
    assert 'id="board-hint"' in page  # the project has no task at all
    page2 = html(web.get("/p/acme?page=2"))
    assert "Nothing closed in the last 7 days." in page2


def test_the_columns_fragment_swaps_the_columns_and_moves_the_address_bar(web):
    p = make_project("acme")
    make_task(p, title="Running", stage="live")
    response = web.get("/p/acme/board/columns?page=2&q=run&nav=push")
    assert response.status_code == 200
    body = html(response)
    assert body.lstrip().startswith('<div id="board-columns"')
    assert "<html" not in body
    assert column_stages(body) == ["live", "done"]
    assert 'id="board-controls" class="board-controls" hx-swap-oob="true"' in body
    assert response["HX-Push-Url"] == "/p/acme?page=2&q=run"
    # The state the live refresh asks for follows, out of band.
    state = re.search(r'<div id="board-state" hidden hx-swap-oob="true">(.*?)</div>', body)
    assert state.group(1) == (
        '<input type="hidden" name="page" value="2"><input type="hidden" name="q" value="run">'
    )
    live = web.get("/p/acme/board/columns?page=2&q=run")
    assert "HX-Push-Url" not in live
    assert "HX-Replace-Url" not in live
    typed = web.get("/p/acme/board/columns?q=ru&nav=replace")
    assert typed["HX-Replace-Url"] == "/p/acme?q=ru"


def test_the_page_refetches_its_columns_on_its_projects_task_moves(web):
    p = make_project("acme")
    make_task(p, title="t")
    page = html(web.get("/p/acme?stage=review&archived=1"))
    live = re.search(r'<div id="board-live"[^>]*>', page).group(0)
    assert 'hx-get="/p/acme/board/columns"' in live
    assert 'hx-include="#board-state"' in live
    assert "rbp-task-created from:body" in live
    assert "rbp-task-stage_changed from:body" in live
    assert 'hx-sync="#board:queue last"' in live
    state = re.search(r'<div id="board-state" hidden>(.*?)</div>', page).group(1)
    assert 'name="stage" value="review"' in state
    assert 'name="archived" value="1"' in state


def test_the_card_fragment_is_the_same_partial(web):
    p = make_project("acme")
    task = make_task(p, title="Fix login", stage="dev", waiting_on="owner", branch="fix/login")
    fragment = html(web.get(f"/p/acme/card/{task.key}"))
    assert fragment.lstrip().startswith(f'<article class="card" id="card-{task.key}"')
    assert f'hx-trigger="rbc-{task.key} from:body delay:150ms"' in fragment
    assert f'hx-get="/p/acme/card/{task.key}"' in fragment
    page = html(web.get("/p/acme"))
    card = re.search(rf'<article class="card" id="card-{task.key}".*?</article>', page, re.S)
    assert card.group(0).strip() == fragment.strip()


# --- cards ---------------------------------------------------------------------------------


def test_a_card_shows_key_title_waiting_on_branch_and_next_step(web):
    p = make_project("acme")
    task = make_task(
        p, title="Fix login", stage="dev", waiting_on="owner", branch="fix/login", next_step="n"
    )
    card = html(web.get(f"/p/acme/card/{task.key}"))
    assert f'<span class="card-key">{task.key}</span>' in card
    assert f'href="/p/acme?task={task.key}"' in card
    assert ">Fix login</a>" in card
    assert '<p class="card-waiting"><span>Waiting on</span> <span>owner</span></p>' in card
    assert '<span class="visually-hidden">Branch</span> <span>fix/login</span>' in card
    assert '<p class="card-next">' in card
    assert "stale" not in card


def test_a_stale_next_step_is_muted_with_a_marker(web):
    p = make_project("acme")
    task = make_task(p, title="t", next_step="read the code")
    services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    card = html(web.get(f"/p/acme/card/{task.key}"))
    assert '<p class="card-next is-stale"><span class="stale-mark"' in card
    assert ">stale</span>" in card
    # Written again with the move: confirmed, not stale.
    services.task_set_stage(key=task.key, stage="test", actor=ACTOR, next_step="read the code")
    assert "is-stale" not in html(web.get(f"/p/acme/card/{task.key}"))


def test_done_cards_hide_waiting_on_and_the_next_step(web):
    p = make_project("acme")
    task = make_task(p, title="t", stage="dev", waiting_on="owner", next_step="n", branch="b")
    close(task)
    card = html(web.get(f"/p/acme/card/{task.key}"))
    assert 'class="card is-done"' in card
    assert "Waiting on" not in card
    assert "card-next" not in card
    assert '<span class="visually-hidden">Branch</span> <span>b</span>' in card


def test_the_tracker_badge_links_and_shows_the_logged_mark(web):
    p = make_project("acme")
    task = make_task(
        p,
        title="t",
        tracker_name="Jira",
        tracker_ref="SHOP-7",
        tracker_url="https://jira.example/SHOP-7",
        tracker_logged=True,
    )
    card = html(web.get(f"/p/acme/card/{task.key}"))
    assert '<a class="tracker is-logged" href="https://jira.example/SHOP-7"' in card
    assert '<span class="tracker-ref">Jira SHOP-7</span>' in card
    assert "✓" in card
    assert "not logged" not in card
    plain = make_task(p, title="u", tracker_ref="SHOP-8")
    card = html(web.get(f"/p/acme/card/{plain.key}"))
    assert '<span class="tracker"><span class="tracker-ref">SHOP-8</span></span>' in card
    assert "not logged" not in card  # only with require_tracker_log
    bare = make_task(p, title="v")
    assert "tracker" not in html(web.get(f"/p/acme/card/{bare.key}"))


def test_with_require_tracker_log_unlogged_tasks_say_not_logged(web, configure):
    configure(require_tracker_log=True)
    p = make_project("acme")
    ref = make_task(p, title="t", tracker_ref="SHOP-1")
    done_bare = make_task(p, title="u", stage="done")
    logged = make_task(p, title="v", tracker_ref="SHOP-2", tracker_logged=True)
    open_bare = make_task(p, title="w")
    assert "not logged" in html(web.get(f"/p/acme/card/{ref.key}"))
    assert "not logged" in html(web.get(f"/p/acme/card/{done_bare.key}"))
    assert "not logged" not in html(web.get(f"/p/acme/card/{logged.key}"))
    assert "not logged" not in html(web.get(f"/p/acme/card/{open_bare.key}"))


def test_card_extras_add_the_desktop_link_the_status_dot_and_badges(web, card_extras):
    p = make_project("acme")
    task = make_task(p, title="t", stage="review")
    plain = make_task(p, title="u")
    card_extras[task.key] = CardExtra(
        badges=(
            ("Review 2/5", "is-bad", f"/p/acme?task={task.key}&tab=review"),
            ("Plan 1/3 · draft", "", ""),
            ("evil", "", "javascript:alert(1)"),
        ),
        session_name="fix-login",
        hook_status="working",
        desktop_link="claude://resume?session=local_1",
    )
    card = html(web.get(f"/p/acme/card/{task.key}"))
    assert 'class="card-desktop" href="claude://resume?session=local_1"' in card
    assert 'aria-label="Open in desktop: fix-login (working)"' in card
    assert '<span class="status-dot" data-status="working"' in card
    assert 'data-session="fix-login"' in card
    assert f'<a class="chip is-bad" href="/p/acme?task={task.key}&amp;tab=review"' in card
    assert '<span class="chip ">Plan 1/3 · draft</span>' in card
    assert '<span class="chip ">evil</span>' in card  # the script link is dropped
    assert "javascript:" not in card
    # Nothing at all when no extension has anything for the task.
    other = html(web.get(f"/p/acme/card/{plain.key}"))
    assert "card-desktop" not in other
    assert "status-dot" not in other


def test_a_session_without_a_desktop_link_still_shows_its_status(web, card_extras):
    p = make_project("acme")
    task = make_task(p, title="t")
    card_extras[task.key] = CardExtra(session_name="s1", hook_status="waiting")
    card = html(web.get(f"/p/acme/card/{task.key}"))
    assert "card-desktop" not in card
    assert '<span class="status-dot" data-status="waiting"' in card
    assert "Session s1: waiting" in card


EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)">'


def test_agent_text_is_escaped_everywhere_on_the_board(web, card_extras):
    p = make_project("acme", name=f"Shop {EVIL}")
    task = make_task(
        p,
        title=f"Title {EVIL}",
        stage="dev",
        waiting_on=f"W {EVIL}"[:200],
        next_step=f"[click](javascript:alert(3)) {EVIL}",
        branch=f"b {EVIL}",
        tracker_name=f"T {EVIL}"[:100],
        tracker_ref=f"R {EVIL}"[:100],
    )
    card_extras[task.key] = CardExtra(
        badges=((f"B {EVIL}", '" onmouseover="x', "javascript:alert(4)"),),
        session_name=f"S {EVIL}",
        hook_status="working",
        desktop_link=" JaVaScRiPt:alert(5)",
    )
    for url in ("/p/acme", f"/p/acme/card/{task.key}", "/p/acme/board/columns?q=title"):
        page = html(web.get(url))
        assert "<script>alert" not in page
        assert "<img" not in page
        assert 'onerror="' not in page
        assert 'onmouseover="' not in page
        assert not re.search(r"(href|src)=\"\s*javascript", page, re.I)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_a_tracker_url_that_is_not_http_is_not_a_link(web):
    p = make_project("acme")
    task = make_task(p, title="t", tracker_ref="X-1", tracker_url="https://ok.example/X-1")
    # The services accept only http(s); the card guards again for older rows.
    assert 'href="https://ok.example/X-1"' in html(web.get(f"/p/acme/card/{task.key}"))
    from tasks.selectors.board import safe_href

    assert safe_href("javascript:alert(1)", web_only=True) == ""
    assert safe_href(" java\tscript:alert(1)") == ""
    assert safe_href("data:text/html,x") == ""
    assert safe_href("ftp://x", web_only=True) == ""
    assert safe_href("claude://resume?session=1") == "claude://resume?session=1"


# --- done column, archive, search ------------------------------------------------------------


def test_the_done_column_shows_the_window_and_archives_older_tasks(web, monkeypatch):
    p = make_project("acme")
    recent = close(make_task(p, title="recent"), monkeypatch, days=2)
    old = close(make_task(p, title="old"), monkeypatch, days=30)
    today = close(make_task(p, title="today"))
    page = html(web.get("/p/acme?page=2"))
    assert column_keys(page, "done") == [today.key, recent.key]
    assert count_of(page, "done") == 2
    assert "1 archived (closed over 7 days ago)" in page
    assert 'href="/p/acme?page=2&amp;archived=1"' in page
    shown = html(web.get("/p/acme?page=2&archived=1"))
    assert column_keys(shown, "done") == [today.key, recent.key, old.key]
    assert count_of(shown, "done") == 3
    assert 'class="card is-done is-archived"' in shown
    assert "Hide archived" in shown


def test_the_done_window_comes_from_the_config(web, monkeypatch, configure):
    configure(done_window_days=1)
    p = make_project("acme")
    close(make_task(p, title="two days"), monkeypatch, days=2)
    today = close(make_task(p, title="today"))
    page = html(web.get("/p/acme?page=2"))
    assert column_keys(page, "done") == [today.key]
    assert "closed over 1 day ago" in page


def test_search_matches_key_or_title_case_insensitively_and_finds_the_archive(web, monkeypatch):
    p = make_project("acme")
    login = make_task(p, title="Fix LOGIN page", stage="dev")
    other = make_task(p, title="Something else", stage="dev")
    old = close(make_task(p, title="Old login bug"), monkeypatch, days=90)
    page = html(web.get("/p/acme?q=login"))
    assert column_keys(page, "dev") == [login.key]
    assert count_of(page, "dev") == 1
    assert re.search(r'id="tab-done".*?<span class="tab-count">1</span>', page, re.S)
    assert "No Plan task matches “login”." in page
    done = html(web.get("/p/acme?page=2&q=LOGIN"))
    assert column_keys(done, "done") == [old.key]
    by_key = html(web.get(f"/p/acme?q={other.key.upper()}"))
    assert column_keys(by_key, "dev") == [other.key]
    assert 'id="board-hint"' not in html(web.get("/p/acme?q=nothing-matches"))


def test_the_done_column_is_capped_at_200_with_a_note(web, monkeypatch):
    p = make_project("acme")
    project = services.project_upsert(slug="acme", actor=ACTOR).obj
    keys = []
    for n in range(205):
        task = services.task_create(project=project.slug, title=f"d{n}", actor=ACTOR).obj
        keys.append(close(task).key)
    page = html(web.get("/p/acme?page=2"))
    shown = column_keys(page, "done")
    assert len(shown) == 200
    assert shown[0] == keys[-1]  # the most recent first
    assert count_of(page, "done") == 205
    assert "Showing the 200 most recent of 205 done tasks." in page
    assert p.slug == "acme"


def test_with_require_tracker_log_an_unlogged_done_task_is_never_archived(
    web, monkeypatch, configure
):
    configure(require_tracker_log=True)
    p = make_project("acme")
    unlogged = close(make_task(p, title="unlogged", tracker_ref="S-1"), monkeypatch, days=60)
    bare = close(make_task(p, title="no ref"), monkeypatch, days=60)
    logged = close(
        make_task(p, title="logged", tracker_ref="S-2", tracker_logged=True), monkeypatch, days=60
    )
    page = html(web.get("/p/acme?page=2"))
    assert set(column_keys(page, "done")) == {unlogged.key, bare.key}
    assert logged.key not in column_keys(page, "done")
    assert "1 archived" in page
    assert page.count("not logged") == 2


# --- long columns: the first cards and "Show N more" ------------------------------------------


def more_link(page: str, stage: str) -> tuple[str, str, str] | None:
    """(href, hx-get, N) of a column's "Show N more", the URLs unescaped."""
    match = re.search(
        rf'<a class="column-more-link" href="([^"]+)" hx-get="([^"]+)" '
        rf'hx-target="#col-{stage}" hx-swap="outerHTML"[^>]*>Show (\d+) more</a>',
        page,
    )
    return None if match is None else (unescape(match[1]), unescape(match[2]), match[3])


def test_a_long_column_shows_its_first_cards_and_the_more_link_returns_the_rest(web):
    p = make_project("acme")
    tasks = [make_task(p, title=f"d{n}", stage="dev") for n in range(COLUMN_LIMIT + 7)]
    make_task(p, title="short", stage="plan")
    page = html(web.get("/p/acme"))
    shown = column_keys(page, "dev")
    newest_first = [t.key for t in reversed(tasks)]
    assert shown == newest_first[:COLUMN_LIMIT]
    assert count_of(page, "dev") == COLUMN_LIMIT + 7
    link = more_link(page, "dev")
    assert link is not None
    assert link[2] == "7"
    assert link[0] == f"/p/acme?shown_dev={2 * COLUMN_LIMIT}"
    assert link[1] == f"/p/acme/board/column/dev?shown_dev={2 * COLUMN_LIMIT}"
    assert more_link(page, "plan") is None  # a short column has no link
    # The column again, through the same card partial, with every card; the state follows.
    response = web.get(link[1])
    assert response.status_code == 200
    body = html(response)
    assert body.lstrip().startswith('<section class="column column-dev"')
    assert "<html" not in body
    assert column_keys(body, "dev") == newest_first
    assert more_link(body, "dev") is None
    one = re.search(rf'<article class="card" id="card-{tasks[0].key}".*?</article>', body, re.S)
    assert one.group(0).strip() == html(web.get(f"/p/acme/card/{tasks[0].key}")).strip()
    state = re.search(r'<div id="board-state" hidden hx-swap-oob="true">(.*?)</div>', body)
    assert state.group(1) == f'<input type="hidden" name="shown_dev" value="{2 * COLUMN_LIMIT}">'
    # Without scripts the link is the page with the column open; the live refresh, which
    # sends the board state back, keeps it open.
    assert column_keys(html(web.get(link[0])), "dev") == newest_first
    live = html(web.get(f"/p/acme/board/columns?shown_dev={2 * COLUMN_LIMIT}"))
    assert column_keys(live, "dev") == newest_first
    assert column_keys(html(web.get("/p/acme/board/columns")), "dev") == shown


def test_a_column_says_how_many_more_beyond_the_next_batch(web, monkeypatch):
    monkeypatch.setattr(board_selectors, "COLUMN_LIMIT", 2)
    p = make_project("acme")
    for n in range(7):
        make_task(p, title=f"r{n}", stage="review")
    page = html(web.get("/p/acme?stage=review&q=r"))
    assert len(column_keys(page, "review")) == 2
    assert '<span class="column-more-count">5 more</span>' in page
    link = more_link(page, "review")
    assert link[2] == "2"
    assert "stage=review" in link[1]
    assert "q=r" in link[1]
    assert "shown_review=4" in link[1]
    body = html(web.get(link[1]))
    assert len(column_keys(body, "review")) == 4
    assert more_link(body, "review")[2] == "2"
    assert '<span class="column-more-count">3 more</span>' in body


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/p/acme/board/column/done", 404),
        ("/p/acme/board/column/nope", 404),
        ("/p/nope/board/column/dev", 404),
        ("/p/acme/board/column/dev?shown_dev=abc", 200),
        ("/p/acme/board/column/dev?shown_dev=-5", 200),
        ("/p/acme/board/column/dev?shown_dev=99999999999", 200),
        ("/p/acme/board/column/live?page=1", 200),
    ],
)
def test_the_column_fragment_refuses_what_it_cannot_show_in_words(web, url, status):
    p = make_project("acme")
    make_task(p, title="one", stage="dev")
    make_task(p, title="two", stage="live")
    response = web.get(url)
    assert response.status_code == status
    if status == 404:
        assert response["Content-Type"].startswith("text/plain")
        assert "Traceback" not in html(response)
        assert html(response).strip()
    else:
        assert len(re.findall(r'<article class="card', html(response))) == 1


# --- query counts ----------------------------------------------------------------------------


def fill(project, n: int, card_extras) -> None:
    stages = ("plan", "dev", "review", "test", "live", "done")
    for i in range(n):
        task = make_task(project, title=f"t{i}", stage=stages[i % 6], next_step="n", branch="b")
        card_extras[task.key] = CardExtra(session_name="s", hook_status="idle")


@pytest.mark.parametrize(
    "url",
    [
        "/p/{slug}",
        "/p/{slug}?page=2",
        "/p/{slug}?q=t&archived=1",
        "/p/{slug}/board/columns?page=1&nav=push",
        "/p/{slug}/board/columns?page=2&q=t",
        "/p/{slug}/board/column/dev?shown_dev=200",
    ],
)
def test_the_query_count_does_not_grow_with_the_tasks(
    web, card_extras, django_assert_num_queries, url
):
    small, big = make_project("small"), make_project("big")
    fill(small, 5, card_extras)
    fill(big, 50, card_extras)
    web.get(url.format(slug="small"))  # warm caches (templates, config)
    with CaptureQueriesContext(connection) as few:
        assert web.get(url.format(slug="small")).status_code == 200
    with django_assert_num_queries(len(few)):
        assert web.get(url.format(slug="big")).status_code == 200


@pytest.mark.parametrize("query", ["page=1", "page=2", "q=t&archived=1"])
def test_a_column_set_costs_at_most_five_queries_plus_one_per_card_extension(
    web, card_extras, query
):
    # The project, the counts, the open tasks, the done tasks, and (with a search) the
    # project's task total; no page frame.
    p = make_project("acme")
    fill(p, 12, card_extras)
    with CaptureQueriesContext(connection) as queries:
        web.get(f"/p/acme/board/columns?{query}")
    assert len(queries) <= 5 + len(extensions._card_extras), [q["sql"] for q in queries]


def test_the_card_fragment_costs_a_fixed_number_of_queries(web, card_extras):
    p = make_project("acme")
    fill(p, 6, card_extras)
    with CaptureQueriesContext(connection) as queries:
        web.get("/p/acme/card/acme-1")
    # The project, the task and one per card extension; no page frame.
    assert len(queries) == 2 + len(extensions._card_extras)
    assert settings.RELAYBAY.done_window_days == 7
