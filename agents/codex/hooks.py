"""The Codex CLI adapter of the hook room: its hook input in, its output out.

The only code that knows Codex 0.169.0's hooks (tests/fixtures/codex-0.169.0/): its events
(SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, Stop,
SessionEnd; PreCompact, PostCompact, SubagentStart, SubagentStop and Interrupt are not
relaybay's business), its payload keys (`session_id` is the thread id, kept across resume
and compaction; a sub-agent's events carry its parent's id with an `agent_id`), its tools
(a shell command arrives as `Bash` {"command"}, MCP tools as mcp__<server>__<tool>) and
its answers.

Its quirks, as neutral facts:
- every `codex exec` process ends with SessionEnd `reason: "other"`, also when the same
  session goes on with `codex exec resume <id>`: it ends the process, not the work — the
  bindings stay and the session goes idle (`process_only`); the forgotten and idle rules
  end it;
- there is no Notification: a PermissionRequest is Codex waiting for an answer (APPROVAL),
  which the owner may answer on the board while its hook is held;
- PreToolUse honours `permissionDecision: "deny"` but treats "ask" and "allow" as a failed
  hook and runs the tool (`asks` False: the guard denies with a reason that says to ask
  the owner, or holds the call for the owner, whose Approve is the empty answer);
- its MCP calls carry the thread id as `_meta.sessionId` / `_meta.threadId`
  (`meta_links`): they link the session without a hook_session argument;
- a sub-agent's rollout is its own file: only the parent's transcript path is kept, and a
  sub-agent's task prompt is not the person's prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.codex import NAME, tools
from agents.shapes import claude_style_answer, common_fields
from sessions.hooks import event as ev
from sessions.hooks.answer import ASK, DENY, HookAnswer
from sessions.hooks.event import HookEvent, Tool
from sessions.hooks.payload import mapping, text
from sessions.hooks.registry import AgentSpec, Capabilities

AGENT = NAME
TITLE = "Codex"
MARK = "CX"
PATH = "/hooks/codex"
PASSED_HEADERS = ("user-agent",)
KINDS = {
    "SessionStart": ev.SESSION_START,
    "UserPromptSubmit": ev.PROMPT,
    "PreToolUse": ev.PRE_TOOL,
    "PermissionRequest": ev.APPROVAL,
    "PostToolUse": ev.POST_TOOL,
    "Stop": ev.STOP,
    "SessionEnd": ev.SESSION_END,
}
NAMES = {kind: name for name, kind in KINDS.items()}
CONTEXT_KINDS = frozenset({ev.SESSION_START, ev.PROMPT, ev.PRE_TOOL, ev.POST_TOOL})
ASK_INSTEAD = (
    " Codex cannot ask for permission from a hook, so relaybay refused the call: ask the "
    "owner in the chat, then try again once they have said yes."
)


def parse(payload: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> HookEvent | None:
    """Codex's hook input as a neutral event; None for an event relaybay does not handle."""
    name = text(payload, "hook_event_name")
    kind = KINDS.get(name)
    sub_agent = bool(text(payload, "agent_id"))
    if kind is None or (kind == ev.PROMPT and sub_agent):
        return None
    tool = _tool(payload) if kind in (ev.PRE_TOOL, ev.APPROVAL, ev.POST_TOOL) else None
    return HookEvent(
        agent=AGENT,
        kind=kind,
        **{**common_fields(payload), **({"transcript_path": ""} if sub_agent else {})},
        keeps_bindings=kind == ev.SESSION_END and CAPABILITIES.end_is_process,
        process_only=kind == ev.SESSION_END and CAPABILITIES.end_is_process,
        tool=tool,
    )


def _tool(payload: Mapping[str, Any]) -> Tool:
    return tools.tool(text(payload, "tool_name"), mapping(payload, "tool_input"))


def render(answer: HookAnswer, event: HookEvent) -> dict[str, Any] | None:
    """The JSON Codex reads, or None (204). Never "allow" or "ask": an ask becomes a deny
    whose reason tells the agent to ask the owner; a PermissionRequest is the owner's."""
    return claude_style_answer(answer, event, NAMES, CONTEXT_KINDS, _decision)


def _decision(answer: HookAnswer) -> dict[str, Any]:
    """A deny (an ask says to ask the owner); the owner's Approve is the empty answer, since
    Codex ignores a PreToolUse "allow"."""
    if answer.decision not in (DENY, ASK):
        return {}
    reason = answer.decision_reason + (ASK_INSTEAD if answer.decision == ASK else "")
    return {"permissionDecision": "deny", "permissionDecisionReason": reason}


# What does not work with Codex (docs/agents.md).
LIMITS = (
    (
        "Codex has no wake-up hook: it cannot be woken in the background, so an owner comment"
        " reaches an idle Codex session with its next event (a prompt, a tool call, `codex "
        "exec resume`), never on its own. Claude Code's opt-in wake-up hook (`relaybay setup "
        "--apply --wake`) has no Codex counterpart."
    ),
    (
        "Codex treats a PreToolUse “ask” (and “allow”) as a failed hook and runs the tool, so"
        " relaybay never sends it one: where the guard would ask, the hook waits for your "
        "Approve or Deny on the board (an Approve is the empty answer); a hook that cannot "
        "wait (written without --hold) is denied with a reason that tells Codex to ask the "
        "owner first, and the journal says so (decision ask, sent as deny)."
    ),
    (
        "Codex has no http hooks (only command hooks, which must be trusted: `relaybay setup "
        "--agent codex` writes their trust entries) and no Notification event: a "
        "PermissionRequest is what makes a Codex session “waiting”. relaybay answers a "
        "PermissionRequest only with the owner's Approve or Deny on the board, and `codex "
        "exec` asks one only with on-request approvals (`--approve-for-me`)."
    ),
    (
        "Codex has no todo tool its hooks report, so a Codex session's work shows without "
        "“Agent's plan” items; plan_set works the same for both."
    ),
    (
        "A Codex sub-agent's events carry its parent's session id: they count for the parent "
        "(its tool calls are guarded), and the sub-agent's own task prompt and rollout file "
        "are left out."
    ),
)

CAPABILITIES = Capabilities(
    turn_end=True,
    asks=False,
    allows=False,
    wakes=False,
    meta_links=True,
    end_is_process=True,
    holds=frozenset({ev.PRE_TOOL, ev.APPROVAL}),
)
SPEC = AgentSpec(
    name=AGENT,
    title=TITLE,
    mark=MARK,
    path=PATH,
    parse=parse,
    render=render,
    capabilities=CAPABILITIES,
    passed_headers=PASSED_HEADERS,
    kinds=NAMES,
    limits=LIMITS,
)
