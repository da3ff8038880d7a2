"""The one refresh table (tasks/live_refresh.py) drives every live fragment (§2 Live updates).

The kinds that refresh a fragment used to be written in templates' hx-trigger lists and in
four scripts, and drifted. These tests pin the table to the event catalogue and fail when a
template or a script carries its own list again.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from tasks import live_refresh
from tasks.events import KINDS
from tests.support.board import signed_in_client
from tests.tasks.factories import make_project

ROOT = Path(__file__).resolve().parent.parent
# A kind outside a refresh, allowed in a script: the browser notification of §2.
# The two browser notifications name the one kind each reacts to (not a refresh list).
# The notifications act on these kinds themselves (what they say), not a refresh list.
SCRIPT_KIND_ALLOWED = {
    ("notify.js", "task.stage_changed"),
    ("notify.js", "session.status_changed"),
    ("notify.js", "approval.requested"),
    ("notify.js", "approval.decided"),
}


def test_every_pattern_of_the_table_names_kinds_of_the_catalogue() -> None:
    for name, fragment in live_refresh.TABLE.items():
        for pattern in fragment.patterns:
            assert live_refresh._expand(pattern), f"{name}: {pattern} matches no event kind"
        assert fragment.scope in ("all", "project"), name


def test_prefixes_expand_to_exact_kinds_and_the_trigger_lists_them() -> None:
    assert live_refresh.kinds("comments") == (
        "comment.added",
        "comment.delivered",
        "comment.read",
        "task.session_bound",
        "task.session_unbound",
    )
    assert live_refresh.hx_trigger("board_columns", 100) == (
        "rbp-task-created from:body delay:100ms, rbp-task-stage_changed from:body delay:100ms"
    )
    assert "task.tracker_unlogged" in live_refresh.kinds("inbox")  # task.* grows with the log


def test_no_template_writes_its_own_list_of_event_kinds() -> None:
    found = []
    for path in (ROOT / "templates").rglob("*.html"):
        for match in re.finditer(r"\brbp?-([a-z]+)-([a-z_]+) from:body", path.read_text()):
            if f"{match.group(1)}.{match.group(2)}" in KINDS:
                found.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert found == [], "use {% live_trigger %} (tasks/live_refresh.py):\n" + "\n".join(found)


def test_no_script_writes_its_own_list_of_event_kinds() -> None:
    found = []
    for path in (ROOT / "static" / "relaybay").glob("*.js"):
        text = path.read_text()
        for kind in sorted(KINDS):
            if f'"{kind}"' in text and (path.name, kind) not in SCRIPT_KIND_ALLOWED:
                found.append(f"{path.name}: {kind}")
        if re.search(r"/\^\(?(task|session|review|comment)\\\.", text):
            found.append(f"{path.name}: a kind pattern")
    assert found == [], "ask window.relaybayLive.concerns(name, kind) instead:\n" + "\n".join(found)


@pytest.mark.django_db
def test_every_page_carries_the_table_and_the_fragments_take_their_trigger_from_it() -> None:
    make_project("acme")
    client = signed_in_client()
    for url in ("/", "/p/acme", "/inbox"):
        html = client.get(url).content.decode()
        data = re.search(r'<meta name="relaybay-live-table" content="([^"]*)">', html)
        assert data, url
        assert json.loads(unescape(data.group(1))) == live_refresh.table_for_scripts()
    assert f'hx-trigger="{live_refresh.hx_trigger("projects")}"' in client.get("/").content.decode()
    board = client.get("/p/acme").content.decode()
    assert f'hx-trigger="{live_refresh.hx_trigger("board_columns", 100)}"' in board
