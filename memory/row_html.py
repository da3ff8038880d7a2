"""The Docs & rules lists' rows as HTML, each kept by what it shows (core/row_html.py).

A row's HTML is a pure function of its row (a frozen DocRow, DecisionRow or NoteRow: texts,
the note's rendered markdown, its age): five lists of a busy project then cost their lookups
instead of most of the page's template time, and a row renders again as soon as anything it
shows changes (its age included), being another key.
"""

from __future__ import annotations

from collections.abc import Hashable

from django.utils.safestring import SafeString

from core import row_html as kept_rows

# Each list's kind: its item's template and the name the template gives the item.
TEMPLATES = {
    "document": ("memory/partials/doc.html", "doc"),
    "decision": ("memory/partials/decision.html", "d"),
    "note": ("memory/partials/note.html", "n"),
}


def row_html(kind: str, row: Hashable) -> SafeString:
    """One row's <li> (a page_lists DocRow, DecisionRow or NoteRow of that kind), without the
    whitespace around it (the list's template indents it)."""
    template, name = TEMPLATES[kind]
    return kept_rows.row_html(template, **{name: row})
