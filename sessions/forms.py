"""Parsing of the Session panel's two forms (values only; the services hold the rules)."""

from __future__ import annotations

from django.http import QueryDict

from core.errors import InvalidField


def parse_bind(data: QueryDict) -> int:
    """The id of the session picked in "Bind a session"."""
    raw = (data.get("session_id") or "").strip()
    if not raw.isdigit():
        raise InvalidField("session_id", "Pick a session from the Bind a session list.")
    return int(raw)


def parse_unbind(data: QueryDict) -> str:
    """The optional reason typed before confirming (the service checks its length)."""
    return data.get("reason") or ""
