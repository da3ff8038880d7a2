"""The Gemini CLI adapter of the hook room: its hook input in, its output out.

The only code that knows Gemini CLI 0.61.0's hooks (tests/fixtures/gemini-cli-0.61.0/, which
differ from Gemini's own docs in several places): its events (SessionStart, BeforeAgent,
BeforeTool, AfterTool, AfterAgent, Notification, SessionEnd; BeforeModel, AfterModel,
BeforeToolSelection and PreCompress are not relaybay's business — PreCompress `auto` fires
before every model request and does not mean a compression), its payload keys (`session_id`
is kept across `--resume`; there is no tool-call id, so a BeforeTool and its AfterTool pair
by their order in the session, as the room pairs every agent's), its tools (tools.py) and
its answers.

Its quirks, as neutral facts and capabilities:
- it reads `additionalContext` on BeforeAgent (an extra part after the prompt) and on
  AfterTool (after the tool's output) only: on BeforeTool and AfterAgent it is ignored, and
  SessionStart's is put at the start of the stored prompt in `gemini -p`, where `--resume`
  drops every prompt that starts with it — so `context_on` is BeforeAgent and AfterTool,
  and what relaybay says at SessionStart (the hook session line, the resume brief) or
  before a tool waits for the next of them (sessions/hooks/carried.py);
- AfterAgent is its Stop: `{"decision": "deny", "reason": R}` goes on with the turn, and R
  comes back as a new BeforeAgent prompt (`block_returns_as_prompt`); `stop_hook_active`
  is true only in the continuation's first request, so relaybay counts its own block and
  blocks a turn at most once (`turn_end_blocks`);
- a BeforeTool deny is `{"decision": "deny", "reason": …}`; Claude's permissionDecision is
  ignored, "allow" does nothing and "ask" hangs `gemini -p` — an ask is sent as a deny whose
  reason tells the agent to ask the owner;
- every `gemini -p` process ends with SessionEnd `exit`, also when `--resume` goes on with
  the same session, and the TUI's /quit fires it three times: a SessionEnd ends the
  process, not the work (the bindings stay, the session goes idle; a repeat changes
  nothing);
- a Notification `ToolPermission` is Gemini waiting for the owner's confirmation, the
  question in its `details`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.gemini_cli import NAME, tools
from agents.shapes import common_fields
from sessions.hooks import event as ev
from sessions.hooks.answer import ASK, DENY, HookAnswer
from sessions.hooks.event import HookEvent, Notice, Tool
from sessions.hooks.payload import mapping, text
from sessions.hooks.registry import AgentSpec, Capabilities

AGENT = NAME
TITLE = "Gemini CLI"
MARK = "GM"
PATH = "/hooks/gemini"
PASSED_HEADERS = ("user-agent",)
KINDS = {
    "SessionStart": ev.SESSION_START,
    "BeforeAgent": ev.PROMPT,
    "BeforeTool": ev.PRE_TOOL,
    "AfterTool": ev.POST_TOOL,
    "Notification": ev.NOTICE,
    "AfterAgent": ev.STOP,
    "SessionEnd": ev.SESSION_END,
}
NAMES = {kind: name for name, kind in KINDS.items()}
# The events whose additionalContext reaches the model and stays in its conversation.
CONTEXT_ON = frozenset({ev.PROMPT, ev.POST_TOOL})
PERMISSION = "ToolPermission"
ASK_INSTEAD = (
    " Gemini CLI cannot ask for permission from a hook, so relaybay refused the call: ask "
    "the owner in the chat, then try again once they have said yes."
)


def parse(payload: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> HookEvent | None:
    """Gemini CLI's hook input as a neutral event; None for an event relaybay does not
    handle. The prompt is never read: in `-p` it starts with SessionStart's context, and in
    a continuation it is relaybay's own block reason."""
    name = text(payload, "hook_event_name")
    kind = KINDS.get(name)
    if kind is None:
        return None
    return HookEvent(
        agent=AGENT,
        kind=kind,
        **common_fields(payload),
        keeps_bindings=kind == ev.SESSION_END and CAPABILITIES.end_is_process,
        process_only=kind == ev.SESSION_END and CAPABILITIES.end_is_process,
        tool=_tool(payload) if kind in (ev.PRE_TOOL, ev.POST_TOOL) else None,
        notice=_notice(payload) if kind == ev.NOTICE else None,
    )


def _tool(payload: Mapping[str, Any]) -> Tool:
    context = mapping(payload, "mcp_context")
    return tools.tool(text(payload, "tool_name"), mapping(payload, "tool_input"), context)


def _notice(payload: Mapping[str, Any]) -> Notice:
    """A ToolPermission waits on the owner: its question is the confirmation's title and
    what it runs (`details`: a command, a file, an MCP tool); any other notification says
    something."""
    message = text(payload, "message")
    if text(payload, "notification_type") != PERMISSION:
        return Notice(ev.MESSAGE, message)
    details = mapping(payload, "details")
    what = (
        text(details, "command")
        or text(details, "fileName")
        or text(details, "filePath")
        or text(details, "toolDisplayName")
        or text(details, "toolName")
    )
    title = text(details, "title")
    question = f"{title}: {what}" if title and what and what not in title else title or what
    return Notice(ev.PERMISSION, message, question or message)


def render(answer: HookAnswer, event: HookEvent) -> dict[str, Any] | None:
    """The JSON Gemini CLI reads, or None (204). A tool call is denied as
    `{"decision": "deny"}` — never "allow", never "ask" (an ask is a deny that says to ask
    the owner); a turn end is continued the same way; context goes out only where Gemini
    reads it."""
    if event.kind == ev.STOP:
        if answer.block_reason:
            return {"decision": "deny", "reason": answer.block_reason}
        return None
    # the owner's Approve is the empty answer: Gemini ignores a BeforeTool "allow"
    if event.kind == ev.PRE_TOOL and answer.decision in (DENY, ASK):
        reason = answer.decision_reason
        if answer.decision == ASK:
            reason += ASK_INSTEAD
        return {"decision": "deny", "reason": reason}
    if event.kind in CONTEXT_ON and answer.lines:
        return {
            "hookSpecificOutput": {
                "hookEventName": NAMES[event.kind],
                "additionalContext": answer.context,
            }
        }
    return None


# What does not work with Gemini CLI (docs/agents.md).
LIMITS = (
    (
        "Gemini CLI has no wake-up hook: an owner comment reaches an idle Gemini session "
        "with its next prompt or tool output (`gemini --resume <id> -p …` included), never on "
        "its own."
    ),
    (
        "Gemini CLI ignores a hook's “allow” and hangs `gemini -p` on an “ask”, so relaybay "
        "never sends either: where the guard would ask, the hook waits for your Approve or "
        "Deny on the board (an Approve is the empty answer); a hook that cannot wait is denied "
        "with a reason that tells Gemini to ask the owner first, and the journal says so "
        "(decision ask, sent as deny). Gemini's own confirmations happen only in its TUI and "
        "never reach a hook: they cannot be answered from the board."
    ),
    (
        "Gemini CLI reads relaybay's context only with a prompt (BeforeAgent) and after a "
        "tool ran (AfterTool): what relaybay says at SessionStart (the hook session line, the "
        "resume brief) or before a tool (a guard warning, a collision) reaches it with the "
        "next of them, and owner comments are delivered only there."
    ),
    (
        "Every `gemini -p` process ends with SessionEnd `exit`, also when `--resume` goes on "
        "with the same session, and the interactive /quit sends it three times: relaybay "
        "takes it as the end of the process (bindings kept, status idle), never of the work."
    ),
    (
        "Gemini CLI's MCP calls carry no session id: the agent passes the hook session the "
        "BeforeAgent context gives it as hook_session. A script that starts Gemini can choose "
        "the id itself — `gemini --session-id <id>` with `RELAYBAY_SESSION=<id>` in its "
        'environment and `"X-Relaybay-Session": "${RELAYBAY_SESSION}"` added to the headers '
        "of `mcpServers.relaybay` (relaybay setup keeps it): Gemini then sends that header with "
        "every MCP request, and relaybay links the session a write names to that hook session "
        "exactly (an unexpanded `${RELAYBAY_SESSION}` links nothing)."
    ),
    (
        "Gemini CLI runs no hook at all in a folder it does not trust (and `gemini -p` does "
        "not start there): `relaybay setup --agent gemini --check` and `relaybay doctor` name "
        "the project folders it does not trust and how to trust them; relaybay never writes "
        "trustedFolders.json. It has no todo tool its hooks report."
    ),
)

CAPABILITIES = Capabilities(
    turn_end=True,
    asks=False,
    allows=False,
    wakes=False,
    meta_links=False,
    end_is_process=True,
    context_on=CONTEXT_ON,
    turn_end_blocks=1,
    block_returns_as_prompt=True,
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
