"""Board links from URL names, for the pages that build one per row.

URLs have one source: the `urls.py` route tables. Templates use `{% url %}`, Python uses
`reverse()`, and the browser scripts read URLs from `data-*` attributes the templates fill.
A page that links hundreds of rows (the board's cards: the dialog, the card refresh, the
badges) would spend about 20 µs per `reverse()` call, so it reverses once with
placeholders and fills them per row. The browser scripts use the same placeholders
(`__slug__`, `__key__`) in their URL templates.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from django.urls import reverse

# What reverse() leaves unquoted in a path (RFC 3986 sub-delims, ~ : @), without "/":
# a route argument is one path segment.
_SAFE = "!$&'()*+,;=~:@"


def mark(param: str) -> str:
    """The placeholder a URL template carries for one route argument: `__slug__`."""
    return f"__{param}__"


def link_pattern(name: str, *params: str) -> Callable[..., str]:
    """reverse(name) once with a placeholder per route argument; the answer fills them.

    `link_pattern("task_dialog", "slug", "key")("acme", "acme-7")` is
    `reverse("task_dialog", kwargs={"slug": "acme", "key": "acme-7"})`.
    """
    text = reverse(name, kwargs={p: mark(p) for p in params})

    def fill(*values: str) -> str:
        url = text
        for param, value in zip(params, values, strict=True):
            url = url.replace(mark(param), quote(str(value), safe=_SAFE))
        return url

    return fill
