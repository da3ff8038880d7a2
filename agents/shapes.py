"""Answer and tool shapes more than one agent CLI speaks (one copied the other's hook
protocol): the `hookSpecificOutput` envelope, a PermissionRequest's answer, the `Bash` and
`mcp__<server>__<tool>` tool names, and the first of an input's fields a waiting line
shows. Kept here so that no agent package imports another's."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sessions.hooks import event as ev
from sessions.hooks.answer import ALLOW, DENY, HookAnswer
from sessions.hooks.event import Tool
from sessions.hooks.payload import text


def hook_specific_output(name: str, output: Mapping[str, Any]) -> dict[str, Any] | None:
    """`{"hookSpecificOutput": {"hookEventName": name, …}}`, the envelope these CLIs read
    context and decisions from; None when there is nothing to say."""
    if not output:
        return None
    return {"hookSpecificOutput": {"hookEventName": name, **output}}


def claude_style_answer(
    answer: HookAnswer,
    event: ev.HookEvent,
    names: Mapping[str, str],
    context_kinds: frozenset[str],
    decision: Callable[[HookAnswer], dict[str, Any]],
) -> dict[str, Any] | None:
    """The answer of a CLI that speaks Claude Code's hook protocol, or None (204): a turn
    end's block, a PermissionRequest's decision, and for the events that read context the
    `hookSpecificOutput` with the tool call's decision as that CLI says it (`decision`)."""
    if event.kind == ev.STOP:
        if answer.block_reason:
            return {"decision": "block", "reason": answer.block_reason}
        return None
    if event.kind == ev.APPROVAL:
        return permission_request_answer(answer)
    if event.kind not in context_kinds:
        return None
    output = decision(answer) if answer.decision and event.kind == ev.PRE_TOOL else {}
    if answer.lines:
        output["additionalContext"] = answer.context
    return hook_specific_output(names[event.kind], output)


def permission_request_answer(answer: HookAnswer) -> dict[str, Any] | None:
    """A PermissionRequest's answer, the owner's Approve or Deny on the board: `allow`, or
    `deny` with the owner's words; None leaves the prompt to the CLI (no answer in time, or
    the person answered in the terminal)."""
    if answer.decision == ALLOW:
        decision: dict[str, Any] = {"behavior": "allow"}
    elif answer.decision == DENY:
        decision = {"behavior": "deny", "message": answer.decision_reason}
    else:
        return None
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


def bash_or_mcp(name: str, given: Mapping[str, Any]) -> Tool | None:
    """`Bash` with its command, and `mcp__<server>__<tool>`; None for any other name."""
    if name == "Bash":
        command = text(given, "command")
        return Tool(name, ev.SHELL, given, command=command, waits_on=command)
    if name.startswith("mcp__"):
        server, _, mcp_tool = name[len("mcp__") :].partition("__")
        return Tool(name, ev.MCP, given, mcp_server=server, mcp_tool=mcp_tool)
    return None


def common_fields(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The fields every input of these CLIs carries, as HookEvent's keywords: the session,
    the event's name, the folder, the transcript, SessionStart's source, SessionEnd's reason
    and whether the turn end already continued once (`stop_hook_active`)."""
    return {
        "session_id": text(payload, "session_id"),
        "name": text(payload, "hook_event_name"),
        "cwd": text(payload, "cwd"),
        "transcript_path": text(payload, "transcript_path"),
        "source": text(payload, "source"),
        "reason": text(payload, "reason"),
        "stop_continued": payload.get("stop_hook_active") is True,
    }


def first_text(given: Mapping[str, Any], keys: Iterable[str]) -> str:
    """The first of `keys` the input has as text: what a waiting line shows a tool call
    waits on (its command, file, URL, pattern or path)."""
    for key in keys:
        if found := text(given, key):
            return found
    return ""
