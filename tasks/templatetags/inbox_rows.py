"""`{% inbox_rows group %}`: an Inbox group's rows, rendered by tasks/partials/inbox_row.html.

A row's HTML is a pure function of the row (a frozen InboxRow), its group's id, its place
when it has no task key, and the page's CSRF value, so it is kept in a bounded LRU cache as
the board keeps its cards (board_cards.py): the Inbox's ~200 rows cost their lookups instead
of their template time on each live refresh (issue 33).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from tasks.extensions import InboxRow

register = template.Library()
ROW_TEMPLATE = "tasks/partials/inbox_row.html"
CACHED_ROWS = 4096  # ~0.5 KB each: a few MB at most
INDENT = "\n    "  # where the group's <ul> puts each row


@lru_cache(maxsize=CACHED_ROWS)
def row_html(group_id: str, counter: int, row: InboxRow, csrf_token: str) -> str:
    """One row; `counter` (its place from 1) names it only when it has no task key."""
    context = {"group_id": group_id, "counter": counter, "row": row, "csrf_token": csrf_token}
    return render_to_string(ROW_TEMPLATE, context).strip()


@register.simple_tag(takes_context=True)
def inbox_rows(context: Any, group: Any) -> SafeString:
    """Every row of the group, each on its own indented line as a template loop would."""
    csrf = str(context.get("csrf_token", ""))
    html = "".join(
        INDENT + row_html(group.id, 0 if row.key else n, row, csrf) + INDENT
        for n, row in enumerate(group.rows, start=1)
    )
    return mark_safe(html)  # noqa: S308 - rows rendered by a template that escapes
