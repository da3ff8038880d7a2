"""The hook routes: each agent adapter's path → its door (relaybay_site/asgi.py routes
them after the Host, Origin and Bearer checks). A second agent is one more line here."""

from __future__ import annotations

from sessions.hooks import claude_code, codex
from sessions.hooks.endpoint import App, door

ROUTES: dict[str, App] = {claude_code.PATH: door(claude_code), codex.PATH: door(codex)}
