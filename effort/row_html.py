"""The Effort table's rows as HTML (issue 31, 33), each kept by what it shows.

A row's HTML is a pure function of its RowView (its texts and numbers, frozen), so it is
kept in a bounded LRU cache, as the board keeps its cards (tasks/templatetags/board_cards.py):
a live refresh, a re-sort or another range renders again only the rows whose figures
changed, and 100 rows cost their lookups instead of ~10 ms of template time. A task still
being worked on changes its row once a minute (its durations are in minutes).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from core.caches import kept
from core.display import Stamp

ROW_TEMPLATE = "effort/partials/effort_row.html"
CACHED_ROWS = 4096  # ~0.9 KB each: a few MB at most


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


@kept("a RowView")
@lru_cache(maxsize=CACHED_ROWS)
def row_html(view: RowView) -> SafeString:
    """The row's <tr>, its template's own comment and surrounding blank lines left out."""
    return SafeString(render_to_string(ROW_TEMPLATE, {"r": view}).strip())
