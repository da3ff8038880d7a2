"""The hook room's door: one agent-neutral event in, one neutral answer out (§4).

An agent CLI's hook input reaches relaybay through its adapter (agents/<agent>/hooks.py,
registered in sessions/hooks/registry.py), the only code that knows that agent's payload
keys, event names, answer shapes and quirks; its tool table (agents/<agent>/tools.py) makes
neutral Tools of its tool calls. The adapter turns the request into a `HookEvent`; the
pipeline (service.py) and every step plugged into it — linking, status, todos, owner
comments, the guard, turn-end, waiting, stuck, plan reminders — read only these fields; the
adapter turns the `HookAnswer` (answer.py) back into the agent's JSON.

What an adapter must provide (docs/architecture.md §9):
- `parse(payload, headers) -> HookEvent | None` (None: an event relaybay does not handle);
- `render(answer, event) -> dict | None` (None: 204, nothing to say);
- its route, and the fixtures of that agent's real traffic its tests replay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# What happened, in relaybay's words (the adapter maps the agent's event names onto these).
SESSION_START = "session_start"  # a new process or context: startup, resume, clear, compact
PROMPT = "prompt"  # the person (or a script) sent a prompt: a turn begins
PRE_TOOL = "pre_tool"  # a tool call is about to run (the guard may deny it)
POST_TOOL = "post_tool"  # a tool call ran
NOTICE = "notice"  # the agent waits: for a permission, for input, or says something
# The CLI's own permission prompt for a tool call, which a hook may answer (allow / deny)
# while the CLI waits: the owner answers it on the board when the hook is held.
APPROVAL = "approval"
STOP = "stop"  # the turn ends (a block continues it)
SESSION_END = "session_end"  # the process ends
KINDS = (SESSION_START, PROMPT, PRE_TOOL, APPROVAL, POST_TOOL, NOTICE, STOP, SESSION_END)

# What a tool call does, as far as relaybay cares.
SHELL = "shell"  # runs a command: the guard reads it; turn-end counts it as work
EDIT = "edit"  # changes files: turn-end counts it as work
MCP = "mcp"  # a call to an MCP server's tool: the guard reads its input
ASKS = "asks"  # waits on the owner by itself (a question, a plan to approve)
OTHER = "other"  # reads, searches, anything else

# Why an agent waits (NOTICE).
PERMISSION = "permission"  # on a permission for its last tool call
INPUT = "input"  # idle, on the person's input
MESSAGE = "message"  # something else it says


@dataclass(frozen=True)
class Tool:
    """One tool call. `input` is only hashed (stuck) or read by the guard, never stored;
    `waits_on` is the short text a waiting line shows (a command, a path, a question)."""

    name: str  # the agent's own name, shown as it is ("Bash", "Edit", "mcp__x__y")
    kind: str = OTHER
    input: Mapping[str, Any] = field(default_factory=dict)
    command: str = ""  # SHELL: the command text
    mcp_server: str = ""  # MCP: the server and the tool as the agent names them
    mcp_tool: str = ""
    waits_on: str = ""
    paths: tuple[str, ...] = ()  # EDIT: the files it changes, as the agent names them


@dataclass(frozen=True)
class Notice:
    kind: str  # PERMISSION, INPUT or MESSAGE
    message: str = ""
    # PERMISSION: what the agent asks the owner, in its own words, when it says so (its
    # confirmation's title and command); else the waiting line names the last tool call.
    question: str = ""


@dataclass(frozen=True)
class TodoItem:
    item_id: str
    subject: str
    status: str = "pending"
    active_form: str = ""


@dataclass(frozen=True)
class TodoChange:
    """What a call of the agent's own todo tool did to its list: an item created, one
    updated (a status of "deleted" removes it), or the whole list replaced (`items`)."""

    op: str  # "create", "update" or "replace"
    item_id: str = ""
    subject: str = ""
    status: str = ""
    active_form: str | None = None  # None: not given (an update keeps it)
    items: tuple[TodoItem, ...] = ()


@dataclass(frozen=True)
class Host:
    """The desktop session the agent's environment names, and whether a person is at it."""

    desktop_id: str
    attended: bool


@dataclass(frozen=True)
class HookEvent:
    """One hook event, in relaybay's words."""

    agent: str  # the adapter's name: "claude-code"
    kind: str  # one of KINDS
    session_id: str  # the agent's id of the session (what an agent passes as hook_session)
    name: str = ""  # the agent's own name of the event ("PreToolUse"), shown and logged
    cwd: str = ""
    transcript_path: str = ""
    source: str = ""  # SESSION_START: startup, resume, clear or compact
    reason: str = ""  # SESSION_END: why
    keeps_bindings: bool = False  # SESSION_END: the work goes on (after /clear, /resume)
    process_only: bool = False  # SESSION_END ends the process, not the session: it goes idle
    tool: Tool | None = None  # PRE_TOOL, APPROVAL, POST_TOOL
    notice: Notice | None = None  # NOTICE
    stop_continued: bool = False  # STOP: another hook already continued this turn
    # PROMPT: the agent's continuation after relaybay blocked the turn's end (set by the
    # hook service for an agent whose block returns as a prompt): no new turn begins.
    continues_turn: bool = False
    host: Host | None = None  # the desktop session the environment names
    todo: TodoChange | None = None  # POST_TOOL of the agent's todo tool
    # Seconds the hook's client waits for this answer (its X-Relaybay-Hold, set by the
    # door): a PRE_TOOL the guard asks about, or an APPROVAL, may wait that long for the
    # owner's decision; 0: answer now, as always.
    hold: float = 0.0
    # The stored test secret values, which whatever is kept of this event is masked with
    # (set by sessions/hooks/observed.py; an adapter leaves it empty).
    test_values: tuple[str, ...] = field(default=(), repr=False)
