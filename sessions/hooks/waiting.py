"""Agents waiting for an answer: what a session waits on, as one short line.

A session becomes "waiting" at once when the agent asks for permission (a NOTICE of kind
permission: the pending call is the session's last PRE_TOOL; Claude Code's Notification
`permission_prompt`), when it is idle for input, or when it calls a tool that asks the
owner by itself (Claude Code's AskUserQuestion / ExitPlanMode: the question or the plan's
title). The hook service writes the line as the session's `activity` with the
status `waiting`; the next UserPromptSubmit, PostToolUse or Stop replaces both, so the line
is gone when the wait ends.

This is the one exception to "tool input is never stored" (§9): only this summary — the
tool's name and the start of its command, question or plan title — every secret-shaped
spot masked by the stands' detectors and every stored test secret value
(environments.secrets.mask, as the journal), cut at 200 characters.
The last PRE_TOOL's summary waits for a permission prompt in this process's memory only.
"""

from __future__ import annotations

from core import caches
from core.memo import Memo
from environments.secrets import mask
from sessions.hooks import event as ev
from sessions.hooks.event import HookEvent

SUMMARY_MAX = 200
IDLE_LINE = "your input (idle)"
RAW_MAX = 4000  # of a command kept until its permission prompt (masked when used)
STATE_MAX = 10_000

_last_calls: Memo[str, tuple[str, str]] = Memo(STATE_MAX)  # agent session id → (tool, text)
caches.register(
    "sessions.hooks.waiting._last_calls",
    key="an agent session id",
    bound=STATE_MAX,
    invalidation="the call's end forgets it; the oldest set first past the bound",
    reset="`waiting.forget()` (the autouse fixture)",
)


def summary(tool_name: str, raw: str, test_values: tuple[str, ...] = ()) -> str:
    """ "Bash git push origin main": the tool and its text, masked like the journal (every
    spot and every stored test secret value), at most 200 characters."""
    line = " ".join(f"{tool_name} {raw}".split()) if raw else tool_name
    return mask(line, test_values=test_values)[:SUMMARY_MAX]


def asking(event: HookEvent) -> str | None:
    """A PRE_TOOL that waits on the owner by itself (a question, a plan to approve): its
    line, else None. Every PRE_TOOL is remembered for a permission prompt that may follow."""
    tool = event.tool
    if tool is None:
        return None
    raw = tool.waits_on[:RAW_MAX]
    _last_calls.set(event.session_id, (tool.name, raw))
    if tool.kind == ev.ASKS:
        return summary(tool.name, raw, event.test_values)
    return None


def notified(event: HookEvent) -> str | None:
    """The line of a NOTICE that means waiting (a permission or an idle prompt)."""
    kind = event.notice.kind if event.notice else ev.MESSAGE
    if kind == ev.INPUT:
        return IDLE_LINE
    if kind != ev.PERMISSION:
        return None
    if event.notice is not None and event.notice.question:
        return summary(event.notice.question, "", event.test_values)
    last = _last_calls.get(event.session_id)
    if last is None:
        return "permission for a tool"
    return summary(*last, event.test_values)


def call_ended(agent_session_id: str) -> None:
    """The pending call ran, or the turn moved on (POST_TOOL, PROMPT, STOP, SESSION_END): a
    later permission prompt is not about it, so its text is dropped."""
    _last_calls.pop(agent_session_id)


def forget() -> None:
    """Drop the remembered calls (tests)."""
    _last_calls.clear()
