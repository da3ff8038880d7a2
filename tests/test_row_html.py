"""core/row_html.py: rows kept as HTML by their template and what they show."""

from __future__ import annotations

import threading
from typing import Any

from django.template.loader import render_to_string

from core import row_html
from tasks.extensions import InboxRow

TEMPLATE = "tasks/partials/inbox_row.html"


ROW = InboxRow(title="Deploy <it>", href="/p/acme/t/acme-1", key="acme-1", detail="a & b")
CONTEXT = {"group_id": "g", "counter": 0, "row": ROW, "csrf_token": "c"}


def test_a_row_is_its_template_rendered_once_while_kept() -> None:
    row_html.reset()
    first = row_html.row_html(TEMPLATE, **CONTEXT)
    assert first == render_to_string(TEMPLATE, CONTEXT).strip()
    assert "Deploy &lt;it&gt;" in first
    assert row_html.row_html(TEMPLATE, **CONTEXT) is first
    assert row_html.info()[:3] == (1, 1, 1)


def test_unstripped_rows_keep_their_whitespace_under_another_key() -> None:
    row_html.reset()
    whole = row_html.row_html(TEMPLATE, strip=False, **CONTEXT)
    assert whole == render_to_string(TEMPLATE, CONTEXT)
    assert row_html.row_html(TEMPLATE, **CONTEXT) == whole.strip()
    assert row_html.info().misses == 2


def test_the_least_recently_used_row_goes_first_past_the_bound(monkeypatch: Any) -> None:
    monkeypatch.setattr(row_html, "ROWS_KEPT", 2)
    row_html.reset()
    for counter in (1, 2, 1, 3):  # 1 used again after 2: 2 is the one forgotten
        row_html.row_html(TEMPLATE, **{**CONTEXT, "counter": counter})
    assert row_html.info()[:3] == (1, 3, 2)
    row_html.row_html(TEMPLATE, **{**CONTEXT, "counter": 1})
    assert row_html.info().hits == 2
    row_html.row_html(TEMPLATE, **{**CONTEXT, "counter": 2})
    assert row_html.info().misses == 4


def test_threads_asking_at_once_get_the_same_html() -> None:
    row_html.reset()
    seen: list[str] = []

    def ask() -> None:
        for n in range(50):
            row = InboxRow(title=f"Task {n}", href=f"/p/acme/t/acme-{n}", key=f"acme-{n}")
            seen.append(row_html.row_html(TEMPLATE, **{**CONTEXT, "row": row}))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 200
    assert len(set(seen)) == 50  # one HTML per row, whichever thread rendered it
    assert row_html.info().size == 50
