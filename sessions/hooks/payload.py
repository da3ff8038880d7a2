"""Reading an agent's hook input: small readers every adapter uses, so each adapter module
holds only what its agent means (its keys, names and quirks), not how JSON is read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sessions.hooks import event as ev
from sessions.hooks.event import Tool


def text(payload: Mapping[str, Any], key: str) -> str:
    """A string field, or "" when it is missing or not a string."""
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def mapping(payload: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """An object field, or {} when it is missing or not an object."""
    value = payload.get(key)
    return value if isinstance(value, Mapping) else {}


def first_line(value: str) -> str:
    """The first non-empty line, without a markdown heading's #."""
    for line in value.splitlines():
        if line := line.strip().lstrip("#").strip():
            return line
    return ""


def waits_on(tool_input: Mapping[str, Any]) -> str:
    """What a tool call would wait on, as a waiting line shows it: its command, file, URL,
    pattern or path (the first of them it has)."""
    for key in ("command", "file_path", "url", "pattern", "path"):
        if found := text(tool_input, key):
            return found
    return ""


def context_answer(name: str, output: Mapping[str, Any]) -> dict[str, Any] | None:
    """`{"hookSpecificOutput": {"hookEventName": name, …}}`, the shape both Claude Code and
    Codex read context and decisions from; None when there is nothing in it."""
    if not output:
        return None
    return {"hookSpecificOutput": {"hookEventName": name, **output}}


def shell_or_mcp_tool(name: str, given: Mapping[str, Any]) -> Tool | None:
    """The tools both CLIs name alike (Codex copied Claude Code's hook shapes): "Bash" with
    its command, and "mcp__<server>__<tool>"; None for any other name, which each adapter
    reads its own way."""
    if name == "Bash":
        command = text(given, "command")
        return Tool(name, ev.SHELL, given, command=command, waits_on=command)
    if name.startswith("mcp__"):
        server, _, tool = name[len("mcp__") :].partition("__")
        return Tool(name, ev.MCP, given, mcp_server=server, mcp_tool=tool)
    return None
