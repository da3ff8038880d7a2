"""The Sessions pages' rows as HTML (issue 33), each kept by what it shows.

A row's HTML is a pure function of its SessionItem (frozen: texts, status, stamps, bound
tasks, signals), so it is kept in a bounded LRU cache as the board keeps its cards
(tasks/templatetags/board_cards.py): 200 rows of mostly ended sessions then cost their
lookups instead of ~30 ms of template time, and a row renders again as soon as anything it
shows changes (its age included), because the changed item is a different key.
"""

from __future__ import annotations

from functools import lru_cache

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from sessions.panels import SessionItem

ROW_TEMPLATE = "sessions/partials/session_row.html"
CACHED_ROWS = 4096  # ~1.2 KB each: a few MB at most


@lru_cache(maxsize=CACHED_ROWS)
def row_html(item: SessionItem) -> SafeString:
    """One row, without the whitespace around it (the list's template indents it)."""
    return mark_safe(render_to_string(ROW_TEMPLATE, {"s": item}).strip())  # noqa: S308


def rows_html(items: list[SessionItem]) -> list[SafeString]:
    return [row_html(item) for item in items]
