"""`{% inbox_badge %}`: the sidebar's Inbox count, rendered with the page (§2 Navigation).

Counted on the server so the first paint is right and no page load needs a request of its
own; afterwards the badge refetches itself from /inbox/badge (tasks/views/inbox.py).
"""

from __future__ import annotations

import logging
from typing import Any

from django import template

register = template.Library()
logger = logging.getLogger(__name__)


@register.inclusion_tag("tasks/partials/inbox_badge.html", takes_context=True)
def inbox_badge(context: template.Context) -> dict[str, Any]:
    from tasks.selectors.inbox import Inbox, inbox_total

    known = context.get("inbox")  # the Inbox page has just counted it
    try:
        total = known.total if isinstance(known, Inbox) else inbox_total()
    except Exception:
        # A broken Inbox group must not take every page down with it; /inbox shows the error.
        logger.exception("the Inbox badge could not be counted")
        total = 0
    return {"inbox_badge_total": total}
