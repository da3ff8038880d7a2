"""`{% inbox_rows group %}`: an Inbox group's rows, rendered by tasks/partials/inbox_row.html.

A row's HTML is a pure function of the row (a frozen InboxRow), its group's id, its place
when it has no task key, and the page's CSRF value, so it is kept by exactly those
(core/row_html.py): the Inbox's ~200 rows cost their lookups instead of their template time
on each live refresh.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from core.row_html import row_html

register = template.Library()
ROW_TEMPLATE = "tasks/partials/inbox_row.html"
INDENT = "\n    "  # where the group's <ul> puts each row


@register.simple_tag(takes_context=True)
def inbox_rows(context: Any, group: Any) -> SafeString:
    """Every row of the group, each on its own indented line as a template loop would;
    `counter` (a row's place from 1) names a row only when it has no task key."""
    csrf = str(context.get("csrf_token", ""))
    html = "".join(
        INDENT
        + (
            row_html(row.block.template, view=row.block.view, csrf_token=csrf)
            if row.block is not None  # a row its app renders whole (an approval's buttons)
            else row_html(
                ROW_TEMPLATE,
                group_id=group.id,
                counter=0 if row.key else n,
                row=row,
                csrf_token=csrf,
            )
        )
        + INDENT
        for n, row in enumerate(group.rows, start=1)
    )
    return mark_safe(html)  # noqa: S308 - rows rendered by a template that escapes
