"""The Docs & rules lists' rows as HTML (issue 33), each kept by what it shows.

A row's HTML is a pure function of its row (a frozen DocRow, DecisionRow or NoteRow: texts,
the note's rendered markdown, its age), so it is kept in a bounded LRU cache as the board
keeps its cards (tasks/templatetags/board_cards.py) and Sessions its rows: five lists of a
busy project then cost their lookups instead of most of the page's template time, and a row
renders again as soon as anything it shows changes (its age included), being another key.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

# Each list's kind: its item's template and the name the template gives the item.
TEMPLATES = {
    "document": ("memory/partials/doc.html", "doc"),
    "decision": ("memory/partials/decision.html", "d"),
    "note": ("memory/partials/note.html", "n"),
}
CACHED_ROWS = 4096  # ~1 KB each (a note with its markdown a few): a few MB at most


@lru_cache(maxsize=CACHED_ROWS)
def row_html(kind: str, row: Hashable) -> SafeString:
    """One row's <li> (a page_lists DocRow, DecisionRow or NoteRow of that kind), without the
    whitespace around it (the list's template indents it)."""
    template, name = TEMPLATES[kind]
    return SafeString(render_to_string(template, {name: row}).strip())
