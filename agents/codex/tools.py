"""Codex's tool table: its tool calls as neutral Tools (sessions/hooks/event.py).

A shell command arrives as `Bash` {"command"} and MCP tools as mcp__<server>__<tool>, the
shapes Codex shares with another CLI (agents/shapes.py); `apply_patch` changes the
files its patch names (each `*** Add|Update|Delete File:` and `*** Move to:` line);
`request_user_input` waits on the owner; everything else reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import regex

from agents.shapes import bash_or_mcp, first_text
from sessions.hooks import event as ev
from sessions.hooks.event import Tool
from sessions.hooks.payload import text

EDIT_TOOLS = frozenset({"apply_patch"})
ASKING_TOOLS = frozenset({"request_user_input"})
WAITS_ON_KEYS = ("command", "file_path", "url", "pattern", "path")
_PATCH_FILE = regex.compile(
    r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", regex.M
)


def tool(name: str, given: Mapping[str, Any]) -> Tool:
    """One Codex tool call as a neutral Tool."""
    if (shared := bash_or_mcp(name, given)) is not None:
        return shared
    if name in ASKING_TOOLS:
        asks = text(given, "question") or text(given, "prompt") or "your input"
        return Tool(name, ev.ASKS, given, waits_on=asks)
    if name in EDIT_TOOLS:
        return Tool(
            name, ev.EDIT, given, waits_on=first_text(given, WAITS_ON_KEYS), paths=patched(given)
        )
    return Tool(name, ev.OTHER, given, waits_on=first_text(given, WAITS_ON_KEYS))


def patched(given: Mapping[str, Any]) -> tuple[str, ...]:
    """The files an apply_patch call adds, updates, deletes or moves to, in order."""
    patch = text(given, "command") or text(given, "patch")
    if "*** " not in patch:
        return ()
    found = (a or b for a, b in _PATCH_FILE.findall(patch))
    return tuple(p.strip() for p in found if p.strip())
