"""`{% board_card card %}`: one board card, rendered by tasks/partials/card.html.

A card's HTML is a pure function of its `Card` (a frozen value: key, texts, stale and
archived flags, the extensions' badges and session status), so it is kept by what it shows
(core/row_html.py): a board of 500 open cards costs its template time once, and a card
renders again as soon as anything it shows changes (docs/architecture.md §10 board target).
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from core.row_html import row_html
from tasks.selectors.board import Card

register = template.Library()
CARD_TEMPLATE = "tasks/partials/card.html"


def render_card(card: Card) -> SafeString:
    """The card as its template writes it, surrounding newlines included."""
    return row_html(CARD_TEMPLATE, strip=False, card=card)


@register.simple_tag(takes_context=True)
def board_card(context: Any, card: Card) -> SafeString:
    return render_card(card)
