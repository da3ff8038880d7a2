"""fakecli's hooks: {"ev": "begin" | "said" | "before" | "after" | "wait" | "bye", "sid",
"dir", "log" (its transcript, transcripts.py), "call": {"tool": "run" | "put" | "rpc", …}}.
It answers {"note": "…"} for context and {"verdict": "refuse", "why": "…"} to stop a call;
it has no turn end and cannot ask."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sessions.hooks import event as ev
from sessions.hooks.answer import HookAnswer
from sessions.hooks.event import HookEvent, Notice, Tool
from sessions.hooks.payload import mapping, text
from sessions.hooks.registry import AgentSpec, Capabilities

AGENT = "fakecli"
KINDS = {
    "begin": ev.SESSION_START,
    "said": ev.PROMPT,
    "before": ev.PRE_TOOL,
    "after": ev.POST_TOOL,
    "wait": ev.NOTICE,
    "bye": ev.SESSION_END,
}
NAMES = {kind: name for name, kind in KINDS.items()}


def tool(call: Mapping[str, Any]) -> Tool:
    """fakecli's tool table: `run` {"line"} is a shell, `put` {"target"} an edit,
    `rpc` {"server", "method", "args"} an MCP call."""
    name = text(call, "tool")
    if name == "run":
        line = text(call, "line")
        return Tool(name, ev.SHELL, call, command=line, waits_on=line)
    if name == "put":
        target = text(call, "target")
        return Tool(name, ev.EDIT, call, waits_on=target, paths=(target,) if target else ())
    if name == "rpc":
        args = mapping(call, "args")
        return Tool(
            name, ev.MCP, args, mcp_server=text(call, "server"), mcp_tool=text(call, "method")
        )
    return Tool(name or "?", ev.OTHER, call)


def parse(payload: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> HookEvent | None:
    kind = KINDS.get(text(payload, "ev"))
    if kind is None:
        return None
    call = mapping(payload, "call")
    return HookEvent(
        agent=AGENT,
        kind=kind,
        session_id=text(payload, "sid"),
        name=text(payload, "ev"),
        cwd=text(payload, "dir"),
        transcript_path=text(payload, "log"),
        source=text(payload, "why") if kind == ev.SESSION_START else "",
        reason=text(payload, "why") if kind == ev.SESSION_END else "",
        tool=tool(call) if kind in (ev.PRE_TOOL, ev.POST_TOOL) else None,
        notice=Notice(ev.PERMISSION, text(payload, "text")) if kind == ev.NOTICE else None,
    )


def render(answer: HookAnswer, event: HookEvent) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    if answer.decision is not None and event.kind == ev.PRE_TOOL:
        out = {"verdict": "refuse", "why": answer.decision_reason}
    if answer.lines:
        out["note"] = answer.context
    return out or None


SPEC = AgentSpec(
    name=AGENT,
    title="FakeCLI",
    mark="FK",
    path="/hooks/fakecli",
    parse=parse,
    render=render,
    capabilities=Capabilities(turn_end=False, asks=False),
    kinds=NAMES,
)
