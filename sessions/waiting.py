"""Agents waiting for an answer (issue 19 §2): what a session waits on, as one short line.

A session becomes "waiting" at once when Claude Code asks for permission (Notification
`permission_prompt`: the pending call is the session's last PreToolUse), when it is idle
for input (`idle_prompt`), or when it calls AskUserQuestion / ExitPlanMode (the question or
the plan's title). The hook service writes the line as the session's `activity` with the
status `waiting`; the next UserPromptSubmit, PostToolUse or Stop replaces both, so the line
is gone when the wait ends.

This is the one exception to "tool input is never stored" (§9): only this summary — the
tool's name and the start of its command, question or plan title — every secret-shaped
spot masked by the stands' detectors (environments.secrets.mask), cut at 200 characters.
The last PreToolUse's summary waits for a permission prompt in this process's memory only.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from environments.secrets import mask

SUMMARY_MAX = 200
ASKING_TOOLS = frozenset({"AskUserQuestion", "ExitPlanMode"})
PERMISSION = "permission_prompt"
IDLE = "idle_prompt"
IDLE_LINE = "your input (idle)"
RAW_MAX = 4000  # of a command kept until its permission prompt (masked when used)
STATE_MAX = 10_000

_last_calls: dict[str, tuple[str, str]] = {}  # Claude Code id → (tool name, raw text)
_lock = threading.Lock()


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line
    return ""


def summary(tool_name: str, raw: str) -> str:
    """ "Bash git push origin main": the tool and its text, masked, at most 200 characters."""
    line = " ".join(f"{tool_name} {raw}".split()) if raw else tool_name
    return mask(line)[:SUMMARY_MAX]


def _raw(tool_name: str, tool_input: Mapping[str, Any]) -> str:
    """The part of a tool's input that says what it waits on (cut before masking)."""
    if tool_name == "AskUserQuestion":
        questions = tool_input.get("questions")
        first = questions[0] if isinstance(questions, list) and questions else {}
        text = _text(first.get("question")) if isinstance(first, dict) else ""
        return text or _text(tool_input.get("question"))
    if tool_name == "ExitPlanMode":
        return _first_line(_text(tool_input.get("plan"))) or "plan approval"
    for key in ("command", "file_path", "url", "pattern", "path"):
        if text := _text(tool_input.get(key)):
            return text
    return ""


def _input(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    value = payload.get("tool_input")
    return value if isinstance(value, Mapping) else {}


def asking(payload: Mapping[str, Any]) -> str | None:
    """A PreToolUse that waits on the owner by itself (AskUserQuestion, ExitPlanMode): its
    line, else None. Every PreToolUse is remembered for a permission prompt that may follow."""
    tool_name = _text(payload.get("tool_name"))
    cc_id = _text(payload.get("session_id"))
    raw = _raw(tool_name, _input(payload))[:RAW_MAX]
    with _lock:
        if len(_last_calls) >= STATE_MAX and cc_id not in _last_calls:
            _last_calls.pop(next(iter(_last_calls)))
        _last_calls[cc_id] = (tool_name, raw)
    if tool_name in ASKING_TOOLS:
        return summary(tool_name, raw)
    return None


def notified(payload: Mapping[str, Any]) -> str | None:
    """The line of a Notification that means waiting (a permission or an idle prompt)."""
    kind = _text(payload.get("notification_type"))
    if kind == IDLE:
        return IDLE_LINE
    if kind != PERMISSION:
        return None
    with _lock:
        last = _last_calls.get(_text(payload.get("session_id")))
    if last is None:
        return "permission for a tool"
    return summary(*last)


def call_ended(cc_id: str) -> None:
    """The pending call ran, or the turn moved on (PostToolUse, UserPromptSubmit, Stop,
    SessionEnd): a later permission prompt is not about it, so its text is dropped."""
    with _lock:
        _last_calls.pop(cc_id, None)


def forget() -> None:
    """Drop the remembered calls (tests)."""
    with _lock:
        _last_calls.clear()
