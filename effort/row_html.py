"""The Effort table's rows as HTML, each kept by what it shows (core/row_html.py).

A row's HTML is a pure function of its RowView (its texts and numbers, frozen), so it is
kept in the one bounded LRU of rendered rows, as the board keeps its cards: a live refresh,
a re-sort or another range renders again only the rows whose figures changed, and 100 rows
cost their lookups instead of ~10 ms of template time. A task still being worked on changes
its row once a minute (its durations are in minutes).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.safestring import SafeString

from core import row_html as rows
from core.display import Stamp

ROW_TEMPLATE = "effort/partials/effort_row.html"


@dataclass(frozen=True, slots=True)
class RowView:
    """What one row of the table shows (effort.page.Row.view)."""

    key: str
    title: str
    href: str
    stage: str
    stage_label: str
    cost: str
    unknown: bool  # some of its tokens have no price
    cost_note: str
    tokens: str
    agent: str
    wall: str
    waiting: str
    sessions: int
    turns: int
    created: Stamp | None


def row_html(view: RowView) -> SafeString:
    """The row's <tr>, its template's own comment and surrounding blank lines left out."""
    return rows.row_html(ROW_TEMPLATE, r=view)
