"""A year of use (issue 33): every page and MCP read tool costs the same number of queries
with 10 and with 10,000 rows in every table that grows — events, tasks, decisions, notes,
documents, comments, sessions, reports (tests/support/year.py) — and the Inbox and Docs &
rules stay bounded however long their lists get.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from memory.mcp_documents import _list as doc_list
from memory.mcp_search import _search as memory_search
from tasks.mcp_comments import _list as comments_list
from tasks.mcp_events import _events_since as events_since
from tasks.mcp_projects import _snapshot as project_snapshot
from tasks.mcp_reports import _decision_list as decision_list
from tasks.mcp_tasks import _task_get as task_get
from tasks.mcp_tasks import _task_list as task_list
from tasks.models import Event
from tasks.selectors.inbox import GROUP_LIMIT, forget_badge
from tests.support.board import signed_in_client
from tests.support.year import World, base, grow

pytestmark = pytest.mark.django_db

SMALL, BIG = 10, 10_000


def pages(world: World) -> dict[str, str]:
    """Every page and fragment issue 33 names, with every Activity filter, and the Effort
    page (issue 31) with its region and CSV."""
    key, old = world.busy.key, _middle_event_id()
    status = "session.status_changed"
    return {
        "board": "/p/acme",
        "board page 2": "/p/acme?page=2",
        "activity": "/activity",
        "activity ?project": "/activity?project=acme",
        "activity ?project (a quiet one)": "/activity?project=quiet",
        "activity ?kind": "/activity?kind=report.added",
        "activity ?project&kind": "/activity?project=acme&kind=report.added",
        "activity ?kind=status (hidden)": f"/activity?kind={status}",
        "activity ?project&kind=status": f"/activity?project=acme&kind={status}",
        "activity ?project&kind (none there)": "/activity?project=quiet&kind=live.action",
        "activity paged back": f"/activity?before={old}",
        "activity ?project paged back": f"/activity?project=acme&before={old}",
        "activity rows, Load more": f"/activity/rows?project=acme&before={old}",
        "activity rows, live": f"/activity/rows?after={old}",
        "activity live actions, quiet": "/activity/live-actions?project=quiet",
        "inbox": "/inbox",
        "inbox groups": "/inbox/groups",
        "inbox group, Show more": "/inbox/group/waiting-on-you?shown_waiting-on-you=40",
        "sessions": "/sessions",
        "project sessions": "/p/acme/sessions",
        "task page": f"/t/{key}",
        "task dialog": f"/p/acme/t/{key}/dialog",
        "docs & rules": "/p/acme/docs",
        "docs & rules search": "/p/acme/docs?q=deploy",
        "docs lists": "/p/acme/docs/_lists",
        "docs list, Show more": "/p/acme/docs/_list/notes?shown_notes=100",
        "stands & access": "/p/acme/environments",
        "settings → policy": "/settings/policy",
        "settings → storage": "/settings/storage",
        "effort": "/p/acme/effort",
        "effort, all time by agent time": "/p/acme/effort?range=all&sort=agent",
        "effort, one stage": "/p/acme/effort?stage=dev&range=all",
        "effort region": "/p/acme/effort/region",
        "effort.csv": "/p/acme/effort.csv?range=all",
    }


def tools(world: World) -> dict[str, Callable[[], str]]:
    """Every MCP read tool issue 33 names, as the tool's own function runs it."""
    key = world.busy.key
    return {
        "events_since": lambda: events_since(_middle_event_id(), "", 100),
        "events_since ?project": lambda: events_since(_middle_event_id(), "acme", 100),
        "events_since ?project, from 0": lambda: events_since(0, "quiet", 100),
        "task_list ?query": lambda: task_list("acme", "", False, "open task 1"),
        "task_get": lambda: task_get(key),
        "project_snapshot": lambda: project_snapshot("acme"),
        "memory_search": lambda: memory_search("deploy", "acme", [], False, 20),
        "decision_list": lambda: decision_list("acme", "", None, False),
        "doc_list": lambda: doc_list("acme"),
        "comments_list ?task": lambda: comments_list(key, "", False),
        "comments_list ?project": lambda: comments_list("", "acme", False),
    }


def _middle_event_id() -> int:
    ids = Event.objects.order_by("id").values_list("id", flat=True)
    return ids[ids.count() // 2]


def _page_queries(client: Client, url: str) -> int:
    client.get(url)  # warm: per-process caches (rules, links, the badge's stamp)
    forget_badge()
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(queries)


def _tool_queries(call: Callable[[], str]) -> int:
    call()
    with CaptureQueriesContext(connection) as queries:
        call()
    return len(queries)


def _counts(world: World, client: Client) -> dict[str, int]:
    counts = {name: _page_queries(client, url) for name, url in pages(world).items()}
    counts |= {f"tool {name}": _tool_queries(call) for name, call in tools(world).items()}
    return counts


@pytest.fixture
def world() -> World:
    return base()


def test_no_page_or_read_tool_costs_more_queries_at_10000_rows_than_at_10(world: World) -> None:
    client = signed_in_client()
    grow(world, SMALL)
    few = _counts(world, client)
    grow(world, BIG - SMALL)
    many = _counts(world, client)
    grew = {name: (few[name], many[name]) for name in few if many[name] != few[name]}
    assert grew == {}, f"queries at {SMALL} → {BIG} rows: {grew}"


# --- bounded lists -------------------------------------------------------------------------------


def _rows(html: str, group: str) -> int:
    section = re.search(
        rf'<section class="inbox-group" id="inbox-{group}".*?</section>', html, re.S
    )
    assert section is not None, group
    return section.group(0).count('class="inbox-row"')


def test_a_long_inbox_group_shows_its_first_rows_and_show_more_brings_the_next(
    world: World,
) -> None:
    grow(world, 100)  # 50 more tasks waiting on the owner
    client = signed_in_client()
    html = client.get("/inbox").content.decode()
    assert _rows(html, "waiting-on-you") == GROUP_LIMIT
    count = re.search(
        r'id="inbox-waiting-on-you-title">Waiting on you <span class="count">(\d+)', html
    )
    assert count is not None
    assert int(count[1]) == 52  # the group's whole count: 50 grown, the busy and quiet tasks
    more = re.search(r'<a class="inbox-more-link" href="([^"]+)" hx-get="([^"]+)"', html)
    assert more is not None
    assert more[1] == "/inbox?shown_waiting-on-you=40#inbox-waiting-on-you"
    assert more[2] == "/inbox/group/waiting-on-you?shown_waiting-on-you=40"
    part = client.get(more[2].replace("&amp;", "&")).content.decode()
    assert _rows(part, "waiting-on-you") == 2 * GROUP_LIMIT
    assert part.count('<section class="inbox-group"') == 1  # the group alone
    state = re.search(r'<div id="inbox-state" hidden hx-swap-oob="true">(.*?)</div>', part)
    assert state is not None
    assert 'name="shown_waiting-on-you" value="40"' in state[1]
    # The list's live refresh sends that state and keeps the group opened.
    again = client.get("/inbox/groups?shown_waiting-on-you=40").content.decode()
    assert _rows(again, "waiting-on-you") == 2 * GROUP_LIMIT
    assert 'hx-include="#inbox-state"' in again
    # The page itself, without script: the plain link opens it further.
    assert _rows(client.get(more[1].split("#")[0]).content.decode(), "waiting-on-you") == 40


def test_the_inbox_badge_counts_every_row_of_a_bounded_group(world: World) -> None:
    grow(world, 100)
    client = signed_in_client()
    forget_badge()
    html = client.get("/inbox").content.decode()
    total = re.search(r'data-total="(\d+)"', html)
    badge = re.search(r'<span id="inbox-badge"[^>]*>(\d+)</span>', html)
    assert total is not None
    assert badge is not None
    assert int(total[1]) == int(badge[1]) >= 52


def test_docs_lists_show_their_first_rows_and_show_more_brings_the_next(world: World) -> None:
    grow(world, 200)
    client = signed_in_client()
    html = client.get("/p/acme/docs").content.decode()
    notes = re.search(
        r'<div class="docs-list-wrap" id="docs-list-notes">.*?</ul>.*?</p>', html, re.S
    )
    assert notes is not None
    assert notes[0].count('class="docs-item docs-note"') == 50
    link = re.search(r'hx-get="(/p/acme/docs/_list/notes\?shown_notes=100)"', notes[0])
    assert link is not None
    part = client.get(link[1]).content.decode()
    assert part.count('class="docs-item docs-note"') == 100
    assert 'name="shown_notes" value="100"' in part
    assert client.get("/p/acme/docs/_list/nope").status_code == 404


def test_settings_storage_shows_the_database_size_and_the_event_count(world: World) -> None:
    grow(world, SMALL)
    html = signed_in_client().get("/settings/storage").content.decode()
    events = re.search(r'id="storage-events"><strong>([\d,]+)</strong>', html)
    assert events is not None
    assert int(events[1].replace(",", "")) == Event.objects.count()
    assert re.search(r'id="storage-size"><strong>[\d.]+ (B|KB|MB)</strong>', html)
    assert '<a href="/settings/storage" aria-current="page"' in html or "Storage" in html
