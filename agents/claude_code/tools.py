"""Claude Code's tool table: its tool calls as neutral Tools (sessions/hooks/event.py).

The only place that knows Claude Code's tool names and the keys of their inputs: `Bash`
runs a shell command; `mcp__<server>__<tool>` calls an MCP server; Edit, Write, MultiEdit
and NotebookEdit change the file they name; AskUserQuestion and ExitPlanMode wait on the
owner by themselves; everything else reads. The Bash and MCP names are the shared shapes
of agents/shapes.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.shapes import bash_or_mcp, first_text
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
    if (shared := bash_or_mcp(name, given)) is not None:
        return shared
    if name in ASKING_TOOLS:
        return Tool(name, ev.ASKS, given, waits_on=_asks(name, given))
    if name in EDIT_TOOLS:
        paths = tuple(p.strip() for p in (text(given, k) for k in PATH_KEYS) if p.strip())
        return Tool(name, ev.EDIT, given, waits_on=waits_on(given), paths=paths)
    return Tool(name, ev.OTHER, given, waits_on=waits_on(given))


def waits_on(given: Mapping[str, Any]) -> str:
    """What a tool call would wait on, as a waiting line shows it."""
    return first_text(given, WAITS_ON_KEYS)


def _asks(name: str, given: Mapping[str, Any]) -> str:
    """What AskUserQuestion asks (its first question) or ExitPlanMode's plan title."""
    if name == "AskUserQuestion":
        questions = given.get("questions")
        first = questions[0] if isinstance(questions, list) and questions else {}
        question = text(first, "question") if isinstance(first, Mapping) else ""
        return question or text(given, "question")
    return first_line(text(given, "plan")) or "plan approval"
