"""The answers every app's views share (docs/architecture.md §3): a short plain text, an HTML
fragment without the page frame, and a domain failure with its own status.

One home, so a refusal reads the same on every page and a fragment never pays for the
frame's context processor (sidebar projects, newest event id) on a live refresh.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.template.loader import render_to_string

from core.errors import DomainError

# The content type of every plain answer, the raw ASGI and HTTP ones too (as bytes there).
PLAIN_TEXT = "text/plain; charset=utf-8"


def plain(message: str, status: int = 200) -> HttpResponse:
    """One short text a plain form post, a script or curl shows as it is (one line end)."""
    return HttpResponse(message + "\n", status=status, content_type=PLAIN_TEXT)


def refused(exc: DomainError) -> HttpResponse:
    """A domain failure as plain text with the status its class names (NotFound 404, a
    conflict 409, Forbidden 403, else 400): adapters never map statuses themselves."""
    return plain(str(exc), exc.status)


def fragment(template: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    """A piece of a page that htmx swaps in: rendered without the request, so the page
    frame's context processor costs a live refresh nothing."""
    return HttpResponse(render_to_string(template, context), status=status)
