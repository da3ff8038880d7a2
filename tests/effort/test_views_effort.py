"""The board side of effort (issue 31) through Django's test client on a real SQLite: the
task dialog's Effort section, the project's Effort page (rows, sorting, filters, totals,
charts, its live region) and the CSV export. Usage is made the way the hooks make it: a
Claude Code session whose transcript, in a throwaway configuration folder, is counted by
effort.services.transcript_read."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core import row_html, tokens
from core.security import COOKIE_NAME, current_token
from effort import page as effort_page
from effort.models import TaskEffort
from effort.paths import Roots
from effort.services.tally import effort_backfill
from sessions.models import Session, TaskBinding
from tasks import live_refresh
from tasks.models import Task
from tests.effort.effort_support import assistant, bind, claude_session, counted, say
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db

EVIL = "<script>alert(1)</script>"


@pytest.fixture
def web(client):
    """The test client signed in with the board cookie."""
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client


def worked(
    task: Task,
    name: str,
    roots: Roots,
    *,
    responses: int = 1,
    days_ago: int = 0,
    model: str = "claude-opus-5-5",
    input_: int = 100_000,
    output: int = 20_000,
) -> Session:
    """A session bound to `task` (bound 30 days back) that wrote `responses` responses
    `days_ago` days ago, counted."""
    session = claude_session(name, roots)
    bind(task, session)
    long_ago = timezone.now() - timedelta(days=30)
    TaskBinding.objects.filter(session=session).update(bound_at=long_ago)
    at = timezone.now() - timedelta(days=days_ago, minutes=1)
    say(
        session,
        *(
            assistant(f"{name}-{days_ago}-{n}", at, model=model, input_=input_, output=output)
            for n in range(responses)
        ),
    )
    counted(session, roots)
    return session


def page(web, url: str) -> str:
    answer = web.get(url)
    assert answer.status_code == 200, answer.content[:300]
    return answer.content.decode()


def row_keys(html: str) -> list[str]:
    return re.findall(r'<tr id="effort-row-([^"]+)"', html)


def cost_in(html: str, key: str) -> str:
    row = re.search(rf'<tr id="effort-row-{key}">(.*?)</tr>', html, re.S).group(1)
    return re.search(r'<td [^>]*data-label="Cost"[^>]*>([^<]*)</td>', row).group(1)


# --- the task's Effort section ----------------------------------------------------------------


def test_the_dialog_has_an_effort_section_with_time_tokens_and_cost(web, roots) -> None:
    task = make_task(make_project("acme"), "Login")
    worked(task, "alice", roots, responses=2)  # 2 × (100k in, 20k out) of claude-opus-*

    html = page(web, f"/p/acme/t/{task.key}/dialog")

    section = re.search(r'<section class="td-panel" id="panel-effort".*?</section>', html, re.S)
    assert section, "no Effort section"
    text = section.group(0)
    assert "data-live-section" in text
    assert "data-live-effort" in text
    assert f'hx-get="/p/acme/t/{task.key}/panel/effort"' in text
    assert '<rect class="ef-part stage-plan"' in text  # the stage bar
    assert "Agent time" in text
    assert "Wall time" in text
    assert "Waiting on you" in text
    assert "240,000" in text  # input 200k + output 40k
    assert "200,000" in text
    assert "40,000" in text
    assert "$1.60" in text  # 0.2 M × $5 + 0.04 M × $15
    assert "in 2 responses" in text
    assert "style=" not in text  # the CSP has no unsafe-inline


def test_the_section_is_its_own_fragment_and_says_when_nothing_is_counted(web) -> None:
    task = make_task(make_project("acme"))

    html = page(web, f"/p/acme/t/{task.key}/panel/effort")

    assert 'id="panel-effort"' in html
    assert "Nothing counted yet" in html
    assert page(web, f"/t/{task.key}").count('id="panel-effort"') == 1  # the task page


def test_a_model_without_a_price_says_cost_unknown_never_a_guess(web, roots) -> None:
    task = make_task(make_project("acme"))
    worked(task, "alice", roots, model="mystery-9")

    html = page(web, f"/p/acme/t/{task.key}/panel/effort")

    assert "cost unknown (mystery-9 has no price)" in html
    assert "ef-unknown" in html


def test_responses_shared_with_another_task_are_said_to_be_split(web, roots) -> None:
    project = make_project("acme")
    first, second = make_task(project, "One"), make_task(project, "Two")
    alice = claude_session("alice", roots)
    bind(first, alice)
    bind(second, alice)
    TaskBinding.objects.filter(session=alice).update(bound_at=timezone.now() - timedelta(days=1))
    say(alice, assistant("r1", timezone.now() - timedelta(minutes=1)))
    counted(alice, roots)

    html = page(web, f"/p/acme/t/{first.key}/panel/effort")

    said = "Its one response was shared with other tasks bound at the same time, split evenly"
    assert said in html


def test_claude_codes_own_total_shows_beside_relaybays(web, roots) -> None:
    task = make_task(make_project("acme"))
    alice = worked(task, "alice", roots, input_=900, output=180)
    say(alice, {"type": "cost-state", "totalCostUSD": 0.0072, "startTime": 1796506194909})
    counted(alice, roots)

    html = unescape(page(web, f"/p/acme/t/{task.key}/panel/effort"))

    assert "Claude Code's own total for session alice: $0.0072 · relaybay: $0.0072" in html


def test_claude_codes_own_total_names_a_session_by_its_title_as_the_session_panel_does(
    web, roots
) -> None:
    task = make_task(make_project("acme"))
    raw = "local_0000002a-0000-4000-8000-000000000000"
    alice = worked(task, raw, roots, input_=900, output=180)
    Session.objects.filter(pk=alice.pk).update(title="Checkout speed")
    say(alice, {"type": "cost-state", "totalCostUSD": 0.0072, "startTime": 1796506194909})
    counted(alice, roots)

    html = unescape(page(web, f"/p/acme/t/{task.key}/panel/effort"))

    assert "Claude Code's own total for session Checkout speed: $0.0072" in html
    assert raw not in html


# --- the Effort page -----------------------------------------------------------------------


def test_the_page_lists_every_task_with_its_figures_and_a_total(web, roots) -> None:
    project = make_project("acme")
    cheap, dear, idle = (make_task(project, t) for t in ("Cheap", "Dear", EVIL))
    worked(cheap, "alice", roots, responses=1)
    worked(dear, "bob", roots, responses=3)

    html = page(web, "/p/acme/effort")

    assert row_keys(html) == [dear.key, cheap.key, idle.key]  # by cost, the dearest first
    assert cost_in(html, dear.key) == "$2.40"
    assert cost_in(html, cheap.key) == "$0.80"
    assert f'href="/p/acme?task={dear.key}"' in html  # the title opens the task's dialog
    assert EVIL not in html
    assert "&lt;script&gt;" in html
    total = re.search(r'<tr class="ef-total">(.*?)</tr>', html, re.S).group(1)
    assert "Total · 3 tasks" in total
    assert "$3.20" in total
    assert "480,000" in total
    assert 'aria-sort="descending"' in html
    assert "style=" not in html


def test_the_column_heads_sort_by_cost_tokens_agent_time_and_age(web, roots) -> None:
    project = make_project("acme")
    old, big, new = (make_task(project, t) for t in ("Old", "Big", "New"))
    Task.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=9))
    worked(big, "alice", roots, input_=500_000, output=0)  # 500k tokens, $2.50
    worked(new, "bob", roots, input_=10_000, output=40_000)  # 50k tokens, $0.65

    by_tokens = page(web, "/p/acme/effort?sort=tokens")
    assert row_keys(by_tokens) == [big.key, new.key, old.key]
    head = re.search(r'<th [^>]*aria-sort="descending"><a href="([^"]+)">Tokens', by_tokens)
    assert unescape(head.group(1)) == "/p/acme/effort?sort=tokens&order=asc"  # again: reversed
    ascending = page(web, "/p/acme/effort?sort=tokens&order=asc")
    assert row_keys(ascending) == [old.key, new.key, big.key]
    assert row_keys(page(web, "/p/acme/effort?sort=agent"))  # agent time sorts too
    assert row_keys(page(web, "/p/acme/effort?sort=age"))[0] == old.key  # the oldest first
    assert 'aria-sort="ascending"' in page(web, "/p/acme/effort?sort=age&order=asc")
    assert row_keys(page(web, "/p/acme/effort?sort=nonsense")) == row_keys(
        page(web, "/p/acme/effort")
    )


def test_the_stage_filter_keeps_the_tasks_of_one_stage(web) -> None:
    project = make_project("acme")
    planned, building = make_task(project, "Plan it"), make_task(project, "Build", stage="dev")

    html = page(web, "/p/acme/effort?stage=dev")

    assert row_keys(html) == [building.key]
    assert planned.key not in row_keys(html)
    assert re.search(r'<a href="[^"]*stage=dev[^"]*" aria-current="true">Dev</a>', html)


def test_the_time_range_limits_tokens_and_cost_to_its_days_and_says_so(web, roots) -> None:
    project = make_project("acme")
    task, stale = make_task(project, "Recent"), make_task(project, "Stale")
    alice = worked(task, "alice", roots, days_ago=10)  # $0.80 ten days ago …
    say(alice, assistant("today", timezone.now() - timedelta(minutes=1), input_=100_000, output=0))
    counted(alice, roots)  # … and $0.50 today
    Task.objects.filter(pk=stale.pk).update(updated_at=timezone.now() - timedelta(days=40))

    week, month, ever = (page(web, f"/p/acme/effort?range={r}") for r in ("7d", "30d", "all"))

    assert cost_in(week, task.key) == "$0.50"
    assert cost_in(month, task.key) == "$1.30"
    assert "Tokens and cost count the last 7 days" in week
    assert "Times are each task's whole life" in week
    assert stale.key not in row_keys(month)  # nothing happened to it in those days
    assert stale.key in row_keys(ever)
    assert "Tokens and cost count all time" in ever


def test_a_range_keeps_a_task_for_each_reason_the_sql_reads(web, roots) -> None:
    """The range is filtered in the tasks' SQL (effort/page.py): a task changed long
    ago is kept for tokens in the range, a session working now, or a replayed tally."""
    project = make_project("acme")
    paid, busy, old, gone = (make_task(project, t) for t in ("Paid", "Busy", "Old", "Gone"))
    worked(paid, "alice", roots, days_ago=10)
    TaskEffort.objects.filter(task=busy).update(agents_open=1)
    TaskEffort.objects.filter(task__in=[old, gone]).delete()  # as from before issue 31
    effort_backfill()  # the one-time step (migration effort 0002)
    long_ago = timezone.now() - timedelta(days=40)
    Task.objects.filter(pk__in=[paid.pk, busy.pk, gone.pk]).update(updated_at=long_ago)

    month, ever = (row_keys(page(web, f"/p/acme/effort?range={r}")) for r in ("30d", "all"))

    assert sorted(month) == sorted([paid.key, busy.key, old.key])
    assert sorted(ever) == sorted([paid.key, busy.key, old.key, gone.key])
    assert TaskEffort.objects.filter(task__in=[old, gone]).count() == 2  # replayed and kept


def test_a_token_count_in_the_billions_gets_a_tile_that_keeps_it_on_one_line(web, roots) -> None:
    project = make_project("acme")
    worked(make_task(project, "Small"), "alice", roots)
    assert '<div class="ef-tile"><dt>Tokens</dt>' in page(web, "/p/acme/effort")
    worked(make_task(project, "Huge"), "bob", roots, input_=2_000_000_000)
    assert '<div class="ef-tile ef-long"><dt>Tokens</dt>' in page(web, "/p/acme/effort")


def test_the_charts_are_inline_svg_with_a_legend(web, roots) -> None:
    project = make_project("acme")
    task = make_task(project, "Login", stage="dev")
    worked(task, "alice", roots)

    html = page(web, "/p/acme/effort")

    assert 'class="ef-plot"' in html
    assert "Cost per day" in html
    assert re.search(r'<rect class="ef-s0" x="[\d.]+%" y="[\d.]+" width="[\d.]+%"', html)
    assert f'<span class="ef-series-key" title="Login">{task.key}</span>' in html
    assert "Time per stage" in html
    assert '<li class="ef-hbar stage-dev">' in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)  # no inline script


def test_a_cost_the_price_table_cannot_tell_is_unknown_and_says_why(web, roots) -> None:
    project = make_project("acme")
    priced, unpriced = make_task(project, "Priced"), make_task(project, "Unpriced")
    worked(priced, "alice", roots)
    worked(unpriced, "bob", roots, model="mystery-9")

    html = page(web, "/p/acme/effort")

    assert cost_in(html, unpriced.key) == "unknown"
    assert 'title="mystery-9 has no price: set one in config.toml"' in html
    total = re.search(r'<tr class="ef-total">(.*?)</tr>', html, re.S).group(1)
    assert "$0.80 + unknown" in total
    assert "Cost unknown in part: mystery-9 has no price: set one in config.toml." in html


def test_a_project_without_effort_says_what_is_counted_and_how(web) -> None:
    make_task(make_project("acme"))

    html = page(web, "/p/acme/effort")

    assert "Nothing counted yet for these tasks" in html
    assert "transcript" in html
    assert "hooks" in html
    assert "No priced tokens" in html


def test_an_unknown_project_is_404(web) -> None:
    answer = web.get("/p/nope/effort")
    assert answer.status_code == 404
    assert "There is no project" in answer.content.decode()
    assert web.get("/p/nope/effort.csv").status_code == 404
    assert web.get("/p/nope/effort/region").status_code == 404


def test_the_live_region_refetches_with_the_pages_filters(web, roots) -> None:
    project = make_project("acme")
    make_task(project, "Build", stage="dev")

    html = page(web, "/p/acme/effort?stage=dev&sort=tokens")
    region = re.search(r'<div class="ef-region" id="effort-region"[^>]*>', html).group(0)

    assert "data-effort-live" in region
    assert 'hx-trigger="refresh"' in region
    url = unescape(re.search(r'hx-get="([^"]+)"', region).group(1))
    assert url == "/p/acme/effort/region?stage=dev&sort=tokens"
    fragment = page(web, url)
    assert 'id="effort-region"' in fragment
    assert "<html" not in fragment
    assert "relaybay/effort.js" in html


def test_show_more_stops_at_the_most_a_page_shows_and_offers_the_csv(web, monkeypatch) -> None:
    """A page of every row of 2,000 tasks was 1.8 MB (issue 33: ≤ 300 KiB): "Show more"
    stops at SHOWN_MAX rows; the totals count them all and the CSV carries them."""
    monkeypatch.setattr(effort_page, "SHOWN_MAX", 2)
    project = make_project("acme")
    for title in ("One", "Two", "Three"):
        make_task(project, title)

    html = unescape(page(web, "/p/acme/effort?shown=2000"))

    assert len(row_keys(html)) == 2
    assert "Total · 3 tasks" in html
    assert "Show more" not in html
    assert '<a href="/p/acme/effort.csv" download>Download CSV for all 3 rows</a>' in html
    assert len(csv_of(web, "/p/acme/effort.csv?shown=2000")[1]) == 3


def test_a_row_is_rendered_once_and_again_only_when_what_it_shows_changes(web) -> None:
    task = make_task(make_project("acme"), "Before")
    row_html.reset()

    page(web, "/p/acme/effort")
    page(web, "/p/acme/effort?sort=tokens")
    Task.objects.filter(pk=task.pk).update(title="After")
    html = page(web, "/p/acme/effort")

    assert (row_html.info().misses, row_html.info().hits) == (2, 1)
    assert row_keys(html) == [task.key]
    assert "After" in html
    assert "Before" not in html


def test_the_sidebar_links_each_projects_effort_page(web) -> None:
    make_project("acme")
    html = page(web, "/p/acme/effort")
    assert re.search(r'<a href="/p/acme/effort" aria-current="page">Effort</a>', html)


def test_the_page_costs_the_same_queries_for_3_tasks_or_30(web, roots) -> None:
    small, big = make_project("small"), make_project("big")
    for project, n in ((small, 3), (big, 30)):
        tasks = [make_task(project, f"Task {i}") for i in range(n)]
        worked(tasks[0], f"agent-{project.slug}", roots)
    page(web, "/p/small/effort")  # warm caches (templates, config)
    with CaptureQueriesContext(connection) as few:
        page(web, "/p/small/effort")
    with CaptureQueriesContext(connection) as many:
        page(web, "/p/big/effort")
    assert len(many) == len(few), [q["sql"] for q in many]
    with CaptureQueriesContext(connection) as csv_small:
        web.get("/p/small/effort.csv")
    with CaptureQueriesContext(connection) as csv_big:
        web.get("/p/big/effort.csv")
    assert len(csv_big) == len(csv_small), [q["sql"] for q in csv_big]


# --- the CSV ------------------------------------------------------------------------------------


def csv_of(web, url: str) -> tuple[object, list[dict[str, str]]]:
    answer = web.get(url)
    assert answer.status_code == 200
    return answer, list(csv.DictReader(io.StringIO(answer.content.decode())))


def test_the_csv_has_the_same_rows_as_plain_numbers_and_iso_times(web, roots) -> None:
    project = make_project("acme")
    task, other = make_task(project, "Login", stage="dev"), make_task(project, "Idle")
    worked(task, "alice", roots, responses=2)

    answer, found = csv_of(web, "/p/acme/effort.csv")

    assert answer["Content-Type"] == "text/csv; charset=utf-8"
    today = timezone.localdate().isoformat()
    assert answer["Content-Disposition"] == f'attachment; filename="acme-effort-30d-{today}.csv"'
    assert [r["key"] for r in found] == [task.key, other.key]
    row = found[0]
    assert (row["title"], row["stage"]) == ("Login", "dev")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", row["created"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", row["updated"])
    assert (row["input_tokens"], row["output_tokens"], row["total_tokens"]) == (
        "200000",
        "40000",
        "240000",
    )
    assert row["responses"] == "2"
    assert row["sessions"] == "1"
    assert row["cost_usd"] == "1.600000"
    for column in ("agent_seconds", "wall_seconds", "waiting_seconds", "dev_seconds"):
        assert re.fullmatch(r"\d+", row[column]), column
    assert found[1]["cost_usd"] == "0.000000"
    assert found[1]["total_tokens"] == "0"


def test_the_csv_follows_the_filters_and_leaves_an_unknown_cost_empty(web, roots) -> None:
    project = make_project("acme")
    task, other = make_task(project, "Mystery", stage="dev"), make_task(project, "Other")
    worked(task, "alice", roots, model="mystery-9")

    answer, found = csv_of(web, "/p/acme/effort.csv?stage=dev&range=all")

    assert [r["key"] for r in found] == [task.key]
    assert other.key not in answer.content.decode()
    assert found[0]["cost_usd"] == ""
    assert found[0]["unpriced_models"] == "mystery-9"
    assert "acme-effort-dev-all-" in answer["Content-Disposition"]


@pytest.mark.parametrize("title", ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)"])
def test_a_title_that_would_be_a_formula_is_quoted(web, title: str) -> None:
    make_task(make_project("acme"), title)

    _, found = csv_of(web, "/p/acme/effort.csv")

    assert found[0]["title"] == "'" + title


# --- live refresh ------------------------------------------------------------------------------


def test_effort_notices_refresh_the_effort_section_and_page_only() -> None:
    assert live_refresh.kinds("effort_section") == ("effort.updated",)
    assert "effort.updated" in live_refresh.kinds("effort")
    for kind in ("task.stage_changed", "task.session_bound", "session.status_changed"):
        assert kind in live_refresh.kinds("effort")
    others = [n for n in live_refresh.TABLE if n not in ("effort", "effort_section")]
    assert all("effort.updated" not in live_refresh.kinds(n) for n in others)
