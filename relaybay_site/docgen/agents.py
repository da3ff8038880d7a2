"""docs/agents.md: what works for each agent CLI, side by side, from the agents' packages
(agents/<agent>/, the one list in agents/registry.py): the events each reads, what each
becomes, and each agent's capabilities as flags — so the page changes when a package does."""

from __future__ import annotations

from agents.registry import specs
from agents.setup import hold
from core.config import SETTINGS
from relaybay_site.docgen.common import GENERATED, cell
from sessions.hooks import event as ev
from sessions.hooks.registry import CONTEXT_KINDS, AgentSpec, Capabilities


def _agents() -> tuple[AgentSpec, ...]:
    return specs()


# What relaybay does with each neutral kind (the pipeline, sessions/hooks/service.py).
DOES = {
    ev.SESSION_START: "status working; the hook session line; unread comments counted; the "
    "plan reminder",
    ev.PROMPT: "status working; a turn begins; owner comments delivered",
    ev.PRE_TOOL: "the guard (deny / ask / warn); status working; owner comments delivered",
    ev.POST_TOOL: "status working; owner comments; the agent's todo; plan reminders",
    ev.NOTICE: "status waiting, with what the agent waits on",
    ev.APPROVAL: "status waiting; held for your Approve or Deny on the board when its hook can "
    "wait, else left to the CLI",
    ev.STOP: "status idle; a Stop block while owner comments wait, or for the turn-end check",
    ev.SESSION_END: "status ended and the session's tasks unbound — unless the adapter says "
    "the work goes on",
}


def _events() -> list[str]:
    names = sorted({name for a in _agents() for name in _kinds(a)}, key=lambda n: (_order(n), n))
    rows = []
    for name in names:
        cells = []
        for agent in _agents():
            kind = _kinds(agent).get(name)
            cells.append(f"`{kind}`" if kind else "—")
        kinds = {_kinds(agent).get(name) for agent in _agents()} - {None}
        does = "; ".join(DOES[k] for k in sorted(kinds, key=ev.KINDS.index))
        rows.append(f"| {name} | {' | '.join(cells)} | {cell(does)} |")
    titles = " | ".join(a.title for a in _agents())
    return [
        "## Hook events",
        "",
        "What each agent's hook event becomes in relaybay's words (`sessions/hooks/event.py`), "
        "and what relaybay does with it. An event no adapter reads is answered 204 and "
        "changes nothing.",
        "",
        f"| Event | {titles} | relaybay does |",
        "| --- | " + " | ".join("---" for _ in _agents()) + " | --- |",
        *rows,
        "",
    ]


def _kinds(agent: AgentSpec) -> dict[str, str]:
    """The agent's event names → relaybay's kinds (a spec names its kinds' events)."""
    found: dict[str, str] = {}
    for kind, name in agent.kinds.items():
        found.setdefault(name, kind)
    for name, kind in _read_only_events(agent).items():
        found.setdefault(name, kind)
    return found


def _read_only_events(agent: AgentSpec) -> dict[str, str]:
    """Events an adapter reads as a kind it has another name for (Codex's PermissionRequest
    is a NOTICE): asked of its own parse, one sample each."""
    found = {}
    for name in ("PermissionRequest", "Notification"):
        event = agent.parse({"hook_event_name": name, "session_id": "x"}, None)
        if event is not None and agent.kinds.get(event.kind) != name:
            found[name] = event.kind
    return found


def _order(name: str) -> int:
    kinds = [_kinds(a).get(name) for a in _agents() if _kinds(a).get(name)]
    return ev.KINDS.index(kinds[0]) if kinds else len(ev.KINDS)


# Each capability flag as a row of the side-by-side table: its label, and what yes and no
# mean for the owner (docs/agents.md reads these, so a new flag needs its row here).
FLAGS: tuple[tuple[str, str, str, str], ...] = (
    (
        "turn_end",
        "A turn end relaybay may block",
        "yes: the owner-comment block and the turn-end check run there",
        "no: owner comments wait for the next prompt or tool output",
    ),
    (
        "asks",
        "Honours an “ask” answer",
        "yes",
        "no: an ask is sent as a deny that says to ask the owner",
    ),
    ("wakes", "Wakes on an owner comment (opt-in hook)", "yes", "no"),
    (
        "meta_links",
        "MCP calls carry the session id",
        "yes: `_meta.sessionId` links the session exactly",
        "no: pass `hook_session` (the SessionStart line gives it)",
    ),
    (
        "end_is_process",
        "SessionEnd",
        "ends the process, not the work: bindings kept, status idle",
        "ends the session",
    ),
    ("todo", "Reports its own todo list", "yes", "no"),
    (
        "context_on",
        "Reads relaybay's context (owner comments, reminders) on",
        "",
        "",
    ),
    ("turn_end_blocks", "Turn-end blocks per turn, at most", "", ""),
    ("holds", "The owner approves on the board (the hook is held)", "", ""),
)


def _flag(agent: AgentSpec, key: str, yes: str, no: str) -> str:
    caps = agent.capabilities
    if key == "context_on":
        read = [agent.kinds.get(kind, kind) for kind in ev.KINDS if kind in caps.context_on]
        unread = [
            agent.kinds.get(kind, kind)
            for kind in ev.KINDS
            if kind in CONTEXT_KINDS and kind not in caps.context_on
        ]
        later = f" (what it would get on {', '.join(unread)} waits for the next)" if unread else ""
        return ", ".join(read) + later
    if key == "turn_end_blocks":
        again = " (the block returns as a new prompt: the same turn)"
        return str(caps.turn_end_blocks) + (again if caps.block_returns_as_prompt else "")
    if key == "holds":
        return _holds(agent)
    text = yes if getattr(agent.capabilities, key) else no
    if key == "end_is_process" and not agent.capabilities.end_is_process:
        kept = agent.capabilities.end_keeps_bindings
        text += f" (bindings kept after {' or '.join(sorted(kept))})" if kept else ""
    return text


HOLD_WORDS = {
    ev.PRE_TOOL: "the guard's ask on {name} (Approve runs the call, Deny or no answer in time "
    "blocks it)",
    ev.APPROVAL: "its own permission prompt, {name} (Approve allows, Deny refuses with your "
    "words, no answer in time leaves it to the CLI)",
}


def _holds(agent: AgentSpec) -> str:
    """Which of its events wait for the owner's Approve or Deny on the board."""
    held = [
        HOLD_WORDS[kind].format(name=agent.kinds.get(kind, kind))
        for kind in ev.KINDS
        if kind in agent.capabilities.holds and kind in HOLD_WORDS
    ]
    return "; ".join(held) or "no"


def _facts() -> list[str]:
    shown_elsewhere = {"allows", "end_keeps_bindings", "block_returns_as_prompt"}
    assert {f[0] for f in FLAGS} | shown_elsewhere == set(Capabilities.__dataclass_fields__), (
        "every capability flag has its row (FLAGS)"
    )
    rows = [
        "| Hook route | " + " | ".join(f"`POST {a.path}`" for a in _agents()) + " |",
        *(
            f"| {label} | " + " | ".join(cell(_flag(a, key, yes, no)) for a in _agents()) + " |"
            for key, label, yes, no in FLAGS
        ),
    ]
    head = " | ".join(a.title for a in _agents())
    return [
        "## Side by side",
        "",
        "Each agent's capabilities, as the flags of its package (`agents/<agent>/hooks.py`, "
        "`CAPABILITIES`) that relaybay's hook steps read.",
        "",
        f"| | {head} |",
        "| --- | " + " | ".join("---" for _ in _agents()) + " |",
        *rows,
        "",
    ]


def _approvals() -> list[str]:
    """What setup writes on the events an agent waits on, and what its check says."""
    [wait] = [s.default for s in SETTINGS if s.name == "approval_wait_seconds"]
    answers = hold.HOLD_SECONDS - hold.MARGIN_SECONDS
    held = [
        f"- {a.title}: " + ", ".join(hold.held_events(a)) for a in _agents() if hold.held_events(a)
    ]
    return [
        "## Approvals from the board",
        "",
        "`relaybay setup --agent <agent> --apply` writes the hooks of the events the agent "
        f"waits on (the row “The owner approves on the board” above) with a timeout of "
        f"{hold.HOLD_TIMEOUT} s (in the unit the agent reads) and the hook client's "
        f"`--hold {hold.HOLD_SECONDS}`, which tells the server how long the hook waits; every "
        "other event keeps a timeout of a few seconds. The server holds the answer for "
        f"`approval_wait_seconds` ({wait} s by default, [configuration.md](configuration.md)) "
        f"and answers {hold.MARGIN_SECONDS} s before the hook's hold ends ({answers} s) "
        "whatever that setting says, so a held guard ask is always answered before the agent "
        "gives up on its hook (a tool call whose hook timed out would run).",
        "",
        *held,
        "",
        "`relaybay setup --check` and `relaybay doctor` say for each connected agent whether "
        "approvals from the board are possible (its “approvals from the board” line, with what "
        "the agent cannot approve there): hooks an older setup wrote (no `--hold`, a short "
        "timeout) fail there with the `relaybay setup … --apply` that writes them again, and "
        "`approval_wait_seconds` 0 (holding off) is said as such.",
        "",
    ]


def render() -> str:
    lines = [
        GENERATED,
        "",
        "# Agents",
        "",
        "relaybay watches the coding agents you run through their hooks and lets them work "
        f"through its MCP tools. {len(_agents())} agent CLIs are supported side by side, each "
        "through an agent package (`agents/<agent>/`, docs/architecture.md §11): "
        + ", ".join(f"**{a.title}** (`relaybay setup --agent {a.name}`)" for a in _agents())
        + ". Each gets the same board, the same guard in front of live stands, owner comments "
        "in its context and the same MCP tools.",
        "",
        *_facts(),
        *_events(),
        *_approvals(),
        "## What does not work (yet)",
        "",
        *(f"- {limit}" for agent in _agents() for limit in agent.limits),
        "",
    ]
    return "\n".join(lines)
