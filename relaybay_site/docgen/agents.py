"""docs/agents.md: what works for each agent CLI, side by side, from the adapters of the
hook room (sessions/hooks/): the events each reads, what each becomes, and the facts each
adapter sets on every event — so the page changes when an adapter does."""

from __future__ import annotations

from types import ModuleType

from relaybay_site.docgen.common import GENERATED, cell
from sessions.hooks import claude_code, codex
from sessions.hooks import event as ev
from sessions.hooks.routes import ROUTES

ADAPTERS: tuple[ModuleType, ...] = (claude_code, codex)

# What relaybay does with each neutral kind (the pipeline, sessions/hooks/service.py).
DOES = {
    ev.SESSION_START: "status working; the hook session line; unread comments counted; the "
    "plan reminder",
    ev.PROMPT: "status working; a turn begins; owner comments delivered",
    ev.PRE_TOOL: "the guard (deny / ask / warn); status working; owner comments delivered",
    ev.POST_TOOL: "status working; owner comments; the agent's todo; plan reminders",
    ev.NOTICE: "status waiting, with what the agent waits on",
    ev.STOP: "status idle; a Stop block while owner comments wait, or for the turn-end check",
    ev.SESSION_END: "status ended and the session's tasks unbound — unless the adapter says "
    "the work goes on",
}


def _sample(adapter: ModuleType, name: str) -> ev.HookEvent | None:
    return adapter.parse({"hook_event_name": name, "session_id": "x", "reason": "other"})


def _events() -> list[str]:
    names = sorted({name for a in ADAPTERS for name in a.KINDS}, key=lambda n: (_order(n), n))
    rows = []
    for name in names:
        cells = []
        for adapter in ADAPTERS:
            kind = adapter.KINDS.get(name)
            cells.append(f"`{kind}`" if kind else "—")
        kinds = {adapter.KINDS.get(name) for adapter in ADAPTERS} - {None}
        does = "; ".join(DOES[k] for k in sorted(kinds, key=ev.KINDS.index))
        rows.append(f"| {name} | {' | '.join(cells)} | {cell(does)} |")
    titles = " | ".join(a.TITLE for a in ADAPTERS)
    return [
        "## Hook events",
        "",
        "What each agent's hook event becomes in relaybay's words (`sessions/hooks/event.py`), "
        "and what relaybay does with it. An event no adapter reads is answered 204 and "
        "changes nothing.",
        "",
        f"| Event | {titles} | relaybay does |",
        "| --- | " + " | ".join("---" for _ in ADAPTERS) + " | --- |",
        *rows,
        "",
    ]


def _order(name: str) -> int:
    kinds = [a.KINDS.get(name) for a in ADAPTERS if a.KINDS.get(name)]
    return ev.KINDS.index(kinds[0]) if kinds else len(ev.KINDS)


def _facts() -> list[str]:
    def fact(adapter: ModuleType, what: str) -> str:
        start = _sample(adapter, "SessionStart")
        end = _sample(adapter, "SessionEnd")
        assert start is not None
        assert end is not None
        return {
            "route": f"`POST {adapter.PATH}`",
            "can_ask": "yes"
            if start.can_ask
            else "no: an ask is sent as a deny that says to ask the owner",
            "meta_links": "yes: `_meta.sessionId` links the session exactly"
            if start.meta_links
            else "no: pass `hook_session` (the SessionStart line gives it)",
            "end": "ends the process, not the work: bindings kept, status idle"
            if end.process_only
            else "ends the session (bindings kept only after /clear or /resume)",
        }[what]

    rows = [
        ("Hook route", "route"),
        ("Honours an “ask” answer", "can_ask"),
        ("MCP calls carry the session id", "meta_links"),
        ("SessionEnd", "end"),
    ]
    head = " | ".join(a.TITLE for a in ADAPTERS)
    return [
        "## Side by side",
        "",
        f"| | {head} |",
        "| --- | " + " | ".join("---" for _ in ADAPTERS) + " |",
        *(
            f"| {label} | " + " | ".join(cell(fact(a, key)) for a in ADAPTERS) + " |"
            for label, key in rows
        ),
        "",
    ]


def render() -> str:
    assert {a.PATH for a in ADAPTERS} == set(ROUTES), "every routed adapter is on this page"
    lines = [
        GENERATED,
        "",
        "# Agents",
        "",
        "relaybay watches the coding agents you run through their hooks and lets them work "
        "through its MCP tools. Two agent CLIs are supported side by side, each through an "
        "adapter of the hook room (`sessions/hooks/`, docs/architecture.md §11): **Claude "
        "Code** (`relaybay setup`) and **Codex** (`relaybay setup --agent codex`). Both get "
        "the same board, the same guard in front of live stands, owner comments in their "
        "context and the same MCP tools.",
        "",
        *_facts(),
        *_events(),
        "## What does not work (yet)",
        "",
        "- Codex has no wake-up hook: it cannot be woken in the background, so an owner "
        "comment reaches an idle Codex session with its next event (a prompt, a tool call, "
        "`codex exec resume`), never on its own. Claude Code's opt-in wake-up hook "
        "(`relaybay setup --apply --wake`) has no Codex counterpart.",
        "- Codex treats a PreToolUse “ask” (and “allow”) as a failed hook and runs the tool, "
        "so relaybay never sends it one: where the guard would ask, Codex is denied with a "
        "reason that tells it to ask the owner first, and the journal says so (decision ask, "
        "sent as deny).",
        "- Codex has no http hooks (only command hooks, which must be trusted: `relaybay "
        "setup --agent codex` writes their trust entries) and no Notification event: a "
        "PermissionRequest is what makes a Codex session “waiting”. relaybay never answers "
        "a PermissionRequest for the owner.",
        "- Codex has no todo tool its hooks report, so a Codex session's work shows without "
        "“Agent's plan” items; plan_set works the same for both.",
        "- A Codex sub-agent's events carry its parent's session id: they count for the "
        "parent (its tool calls are guarded), and the sub-agent's own task prompt and "
        "rollout file are left out.",
        "",
    ]
    return "\n".join(lines)
