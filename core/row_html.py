"""Rows of long lists kept as HTML by what they show (docs/architecture.md §7).

A board card, an Inbox row, a Sessions row, an Effort row and a Docs & rules row are each a
pure function of their template and a small frozen view, so each is rendered once and kept
here: a refresh or a re-sort then renders only the rows whose view changed (per-row
`{% include %}` was most of a busy page's time). One bounded LRU for every list, keyed by
(template, whether the row is stripped, the context's names and values): a caller keeps only
its template and what its row shows, and a changed view is another key, so nothing here is
ever invalidated — the oldest rows are forgotten past the bound.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import NamedTuple

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from core import caches

# Five lists kept 4,096 rows each before they shared one cache; ~0.5-1.5 KB a row: ~16 MB
# at the very most, and a busy page's rows (a board's open columns, 200 Inbox rows) fit.
ROWS_KEPT = 16_384

type Key = tuple[str, bool, tuple[tuple[str, Hashable], ...]]


class Info(NamedTuple):
    """What the cache did since its last reset (tests count renders with it)."""

    hits: int
    misses: int
    size: int
    bound: int


_rows: OrderedDict[Key, SafeString] = OrderedDict()
_lock = threading.Lock()
_hits = 0
_misses = 0


def row_html(template: str, *, strip: bool = True, **context: Hashable) -> SafeString:
    """The row `template` renders from `context` (frozen values), rendered at most once while
    it is kept; `strip` leaves out the whitespace around it (the list's template indents it).
    Two threads asking for a new row at once may both render it: the same HTML, kept once."""
    global _hits, _misses
    key: Key = (template, strip, tuple(context.items()))
    with _lock:
        html = _rows.get(key)
        if html is not None:
            _rows.move_to_end(key)
            _hits += 1
            return html
        _misses += 1
    rendered = render_to_string(template, context)
    html = SafeString(rendered.strip() if strip else rendered)
    with _lock:
        _rows[key] = html
        _rows.move_to_end(key)
        while len(_rows) > ROWS_KEPT:
            _rows.popitem(last=False)
    return html


def info() -> Info:
    with _lock:
        return Info(_hits, _misses, len(_rows), ROWS_KEPT)


def reset() -> None:
    """Forget every row and the counts (a test that counts renders starts from nothing)."""
    global _hits, _misses
    with _lock:
        _rows.clear()
        _hits = _misses = 0


caches.register(
    "core.row_html._rows",
    key="(template, stripped, the row's frozen view and context)",
    bound=ROWS_KEPT,
    invalidation="never: a changed view is another key; the least recently used go first",
    reset="`core.row_html.reset()`",
)
