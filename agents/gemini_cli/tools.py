"""Gemini CLI's tool table: its tool calls as neutral Tools (sessions/hooks/event.py).

The only place that knows Gemini CLI 0.61.0's tool names and the keys of their inputs
(tests/fixtures/gemini-cli-0.61.0/): `run_shell_command` {command, description, dir_path?}
runs a shell command; `write_file` {file_path, content} and `replace` {file_path,
old_string, new_string, …} change the file they name, as the model wrote it (relative to the
session's folder, where the collision warnings resolve it); an MCP server's tool is
`mcp_<server>_<tool>`, and its hook input names both in `mcp_context` {server_name,
tool_name}; everything else reads (read_file, glob, grep_search, list_directory, web_fetch …).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.shapes import first_text
from sessions.hooks import event as ev
from sessions.hooks.event import Tool
from sessions.hooks.payload import text

SHELL_TOOLS = frozenset({"run_shell_command"})
EDIT_TOOLS = frozenset({"write_file", "replace"})
MCP_PREFIX = "mcp_"
WAITS_ON_KEYS = ("command", "file_path", "dir_path", "pattern", "query", "prompt")


def tool(name: str, given: Mapping[str, Any], mcp_context: Mapping[str, Any] | None = None) -> Tool:
    """One Gemini CLI tool call as a neutral Tool; `mcp_context` is the hook input's own
    naming of an MCP call's server and tool (the name alone is ambiguous when a server's
    name holds an underscore)."""
    if name in SHELL_TOOLS:
        command = text(given, "command")
        return Tool(name, ev.SHELL, given, command=command, waits_on=command)
    if name in EDIT_TOOLS:
        path = text(given, "file_path").strip()
        return Tool(name, ev.EDIT, given, waits_on=path, paths=(path,) if path else ())
    if mcp_context or name.startswith(MCP_PREFIX):
        server, mcp_tool = mcp_names(name, mcp_context or {})
        if server and mcp_tool:
            return Tool(name, ev.MCP, given, mcp_server=server, mcp_tool=mcp_tool)
    return Tool(name, ev.OTHER, given, waits_on=waits_on(given))


def mcp_names(name: str, context: Mapping[str, Any]) -> tuple[str, str]:
    """(server, tool) from `mcp_context`, else split from `mcp_<server>_<tool>` at the first
    underscore after the prefix; ("", "") for a name that is not an MCP tool's."""
    server, mcp_tool = text(context, "server_name"), text(context, "tool_name")
    if server and mcp_tool:
        return server, mcp_tool
    if not name.startswith(MCP_PREFIX):
        return "", ""
    server, _, mcp_tool = name[len(MCP_PREFIX) :].partition("_")
    return server, mcp_tool


def waits_on(given: Mapping[str, Any]) -> str:
    """What a tool call would wait on, as a waiting line shows it (its first such field)."""
    return first_text(given, WAITS_ON_KEYS)
