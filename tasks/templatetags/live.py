"""`{% live_trigger "name" %}` and `{% live_table %}`: the refresh table in the page.

Both render tasks/live_refresh.py, so a fragment's `hx-trigger` and the scripts' kind lists
come from the same table.
"""

from __future__ import annotations

import json

from django import template

from tasks import live_refresh

register = template.Library()


@register.simple_tag
def live_trigger(name: str, delay_ms: int = 0) -> str:
    """The hx-trigger value of fragment `name` (escaped by the template like any value)."""
    return live_refresh.hx_trigger(name, delay_ms)


@register.simple_tag
def live_table() -> str:
    """The table as JSON for the scripts, for a <meta> content attribute (escaped there):
    pages carry no inline script at all, not even a data block."""
    return json.dumps(live_refresh.table_for_scripts(), separators=(",", ":"))
