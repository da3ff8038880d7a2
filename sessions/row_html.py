"""The Sessions pages' rows as HTML, each kept by what it shows (core/row_html.py).

A row's HTML is a pure function of its SessionItem (frozen: texts, status, stamps, bound
tasks, signals): 200 rows of mostly ended sessions then cost their lookups instead of
~30 ms of template time, and a row renders again as soon as anything it shows changes (its
age included), because the changed item is a different key.
"""

from __future__ import annotations

from django.utils.safestring import SafeString

from core.row_html import row_html
from sessions.panels import SessionItem

ROW_TEMPLATE = "sessions/partials/session_row.html"


def rows_html(items: list[SessionItem]) -> list[SafeString]:
    """Each row without the whitespace around it (the list's template indents it)."""
    return [row_html(ROW_TEMPLATE, s=item) for item in items]
