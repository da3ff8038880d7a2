"""Django test clients for board views."""

from __future__ import annotations

from django.test import Client

from core import tokens
from core.security import COOKIE_NAME, current_token


def signed_in_client() -> Client:
    """A client carrying the board cookie derived from the current token (§9)."""
    client = Client()
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client
