"""The agent CLIs relaybay knows, as the hook room sees them: one `AgentSpec` each.

An agent CLI is a package of its own (agents/<agent>/, docs/architecture.md "An agent is a
package"): its hook adapter, its tool table, its capabilities. The `agents` app registers
each one here when Django starts (agents/apps.py); the room, the board and the docs read
only this table — the route of each agent's hooks, its title and mark, and its capabilities
as flags — so nothing outside an agent's package names an agent or reads its payload keys.
The room imports no agent package: the registration is a seam, as the providers are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sessions.hooks import event as ev

# The events whose answer context an agent may read (additionalContext): all four, unless
# its package says it reads fewer.
CONTEXT_KINDS = frozenset({ev.SESSION_START, ev.PROMPT, ev.PRE_TOOL, ev.POST_TOOL})


@dataclass(frozen=True)
class Capabilities:
    """What an agent CLI does with relaybay's answers, as facts the steps read
    (docs/agents.md's table is rendered from them)."""

    turn_end: bool = True  # a turn end relaybay may block (Claude Code's Stop): the owner
    # comment block and the turn-end check run there; without one, comments wait for the
    # next prompt or tool output
    asks: bool = True  # honours "ask" on a tool call; else the guard denies, saying to ask
    allows: bool = False  # honours "allow" (relaybay never sends it: it would skip a prompt)
    wakes: bool = False  # runs the opt-in wake-up hook (an idle agent wakes on a comment)
    meta_links: bool = False  # its MCP calls carry its session id: they link by themselves
    end_keeps_bindings: frozenset[str] = frozenset()  # SessionEnd reasons after which the
    # work goes on (the bindings stay)
    end_is_process: bool = False  # every SessionEnd ends the process, not the session: the
    # bindings stay and the session goes idle
    todo: bool = False  # reports its own todo list (plan reminders show its items)
    # The events whose answer context reaches the model and stays in its conversation.
    # What relaybay says on another of CONTEXT_KINDS (a tool call's context the agent
    # ignores, a SessionStart context that would start the stored prompt) waits for the
    # session's next event of these; owner comments are delivered only on these.
    context_on: frozenset[str] = CONTEXT_KINDS
    turn_end_blocks: int = 2  # how often relaybay may block the end of one turn
    # A turn-end block comes back as a prompt event carrying its reason (the agent's
    # continuation): that prompt goes on with the turn instead of starting one.
    block_returns_as_prompt: bool = False
    # The events whose answer the CLI waits for while relaybay holds it (a held hook, up to
    # its timeout): the guard's ask on a tool call, the CLI's own permission prompt. There
    # the owner can Approve or Deny on the board (setup writes them a long timeout).
    holds: frozenset[str] = frozenset({ev.PRE_TOOL})


@dataclass(frozen=True)
class AgentSpec:
    """One agent CLI as the room and the board know it."""

    name: str  # "claude-code": stored on sessions, events and the journal
    title: str  # "Claude Code": how people call it
    mark: str  # "CC": two letters on cards and rows
    path: str  # "/hooks/claude-code": its hook route
    # (payload, headers) -> HookEvent | None, and (HookAnswer, HookEvent) -> dict | None; not
    # spelled with those types, since the answer's module reads the sessions this one names
    parse: Callable[..., Any]
    render: Callable[..., Any]
    capabilities: Capabilities = field(default_factory=Capabilities)
    passed_headers: tuple[str, ...] = ()  # request headers it may read; never Authorization
    wait_path: str = ""  # its wake-up hook's route, when it has one (capabilities.wakes)
    # Its own names of relaybay's neutral kinds (session_start → "SessionStart"), for docs.
    kinds: Mapping[str, str] = field(default_factory=dict)
    # What does not work with this agent, one sentence each (docs/agents.md lists them).
    limits: tuple[str, ...] = ()


_agents: dict[str, AgentSpec] = {}
_NONE = Capabilities()
_changes = [0]  # how often the list changed: what is built from it is kept until it does


def register(spec: AgentSpec) -> None:
    """Add an agent (idempotent by name: a second registration replaces the first)."""
    _agents[spec.name] = spec
    _changes[0] += 1


def unregister(name: str) -> None:
    """Take an agent out again (the fake agent of the tests)."""
    if _agents.pop(name, None) is not None:
        _changes[0] += 1


def changes() -> int:
    """A number that moves whenever an agent is registered or taken out."""
    return _changes[0]


def registered() -> tuple[AgentSpec, ...]:
    """Every agent, in the order they were registered."""
    return tuple(_agents.values())


def get(name: str) -> AgentSpec | None:
    return _agents.get(name)


KIND_WORDS = {
    ev.SESSION_START: "session start",
    ev.PROMPT: "prompt",
    ev.PRE_TOOL: "tool call",
    ev.POST_TOOL: "tool result",
}


def comments_arrive(name: str) -> str:
    """When the agent reads an owner comment, in the board's words: "with its next hook
    event", or the events whose context it reads ("with its next prompt or tool result")."""
    kinds = capabilities(name).context_on
    if kinds >= CONTEXT_KINDS:
        return "with its next hook event"
    words = [KIND_WORDS[k] for k in KIND_WORDS if k in kinds and k != ev.SESSION_START]
    return "with its next " + " or ".join(words or ["hook event"])


def capabilities(name: str) -> Capabilities:
    """The agent's capabilities; an unknown name has the defaults (it may ask, it has a turn
    end): what relaybay assumed before it knew more than one agent."""
    spec = _agents.get(name)
    return spec.capabilities if spec is not None else _NONE


def title(name: str) -> str:
    """How people call the agent ("" for an unknown one)."""
    spec = _agents.get(name)
    return spec.title if spec is not None else ""


def mark(name: str) -> str:
    """The agent's two letters ("" for an unknown one)."""
    spec = _agents.get(name)
    return spec.mark if spec is not None else ""


def agent_title(agent: str) -> str:
    """How people call the agent whose hooks report a session ("" when none does)."""
    return title(agent)


def agent_mark(agent: str) -> str:
    """The agent's two letters a card shows beside the status dot ("" when none)."""
    return mark(agent)


def named_with_agent(name: str, agent: str) -> str:
    """ "acme-shop (Codex)": a session's name as the Inbox heads a row with it."""
    shown = title(agent)
    return f"{name} ({shown})" if shown else name


def hook_paths() -> tuple[str, ...]:
    """Every hook route and wake-up route of the registered agents (request limits)."""
    paths = [spec.path for spec in _agents.values()]
    paths += [spec.wait_path for spec in _agents.values() if spec.wait_path]
    return tuple(paths)
