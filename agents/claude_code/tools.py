"""Claude Code's tool table: its tool calls as neutral Tools (sessions/hooks/event.py).

The only place that knows Claude Code's tool names and the keys of their inputs: `Bash`
runs a shell command; `mcp__<server>__<tool>` calls an MCP server; Edit, Write, MultiEdit
and NotebookEdit change the file they name; AskUserQuestion and ExitPlanMode wait on the
owner by themselves; everything else reads. Codex copied these shapes for Bash and MCP tools
(agents/codex/tools.py uses `shell_or_mcp` from here).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sessions.hooks import event as ev
from sessions.hooks.event import Tool
from sessions.hooks.payload import first_line, text

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
ASKING_TOOLS = frozenset({"AskUserQuestion", "ExitPlanMode"})
TODO_TOOLS = frozenset({"TaskCreate", "TaskUpdate", "TodoWrite"})
PATH_KEYS = ("file_path", "notebook_path")  # the file an edit tool changes
WAITS_ON_KEYS = ("command", "file_path", "url", "pattern", "path")


def tool(name: str, given: Mapping[str, Any]) -> Tool:
    """One Claude Code tool call as a neutral Tool."""
    if (shared := shell_or_mcp(name, given)) is not None:
        return shared
    if name in ASKING_TOOLS:
        return Tool(name, ev.ASKS, given, waits_on=_asks(name, given))
    if name in EDIT_TOOLS:
        paths = tuple(p.strip() for p in (text(given, k) for k in PATH_KEYS) if p.strip())
        return Tool(name, ev.EDIT, given, waits_on=waits_on(given), paths=paths)
    return Tool(name, ev.OTHER, given, waits_on=waits_on(given))


def shell_or_mcp(name: str, given: Mapping[str, Any]) -> Tool | None:
    """`Bash` with its command, and `mcp__<server>__<tool>`; None for any other name."""
    if name == "Bash":
        command = text(given, "command")
        return Tool(name, ev.SHELL, given, command=command, waits_on=command)
    if name.startswith("mcp__"):
        server, _, mcp_tool = name[len("mcp__") :].partition("__")
        return Tool(name, ev.MCP, given, mcp_server=server, mcp_tool=mcp_tool)
    return None


def waits_on(given: Mapping[str, Any]) -> str:
    """What a tool call would wait on, as a waiting line shows it: its command, file, URL,
    pattern or path (the first of them it has)."""
    for key in WAITS_ON_KEYS:
        if found := text(given, key):
            return found
    return ""


def _asks(name: str, given: Mapping[str, Any]) -> str:
    """What AskUserQuestion asks (its first question) or ExitPlanMode's plan title."""
    if name == "AskUserQuestion":
        questions = given.get("questions")
        first = questions[0] if isinstance(questions, list) and questions else {}
        question = text(first, "question") if isinstance(first, Mapping) else ""
        return question or text(given, "question")
    return first_line(text(given, "plan")) or "plan approval"
