"""`{% board_card card %}`: one board card, rendered by tasks/partials/card.html.

A card's HTML is a pure function of its `Card` (a frozen value: key, texts, stale and
archived flags, the extensions' badges and session status) and of whether the task dialog
exists, so it is kept in a bounded LRU cache keyed by exactly those. A board of 500 open
cards then costs its template time once; a card renders again as soon as anything it shows
changes, because the changed Card is a different key (docs/architecture.md §10 board target).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from tasks.selectors.board import Card

register = template.Library()
CACHED_CARDS = 4096  # ~1.5 KB each: a few MB at most


@lru_cache(maxsize=CACHED_CARDS)
def render_card(card: Card) -> SafeString:
    return render_to_string("tasks/partials/card.html", {"card": card})


@register.simple_tag(takes_context=True)
def board_card(context: Any, card: Card) -> SafeString:
    return render_card(card)
