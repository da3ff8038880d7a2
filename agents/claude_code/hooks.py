"""The Claude Code adapter of the hook room (§4): its hook input in, its hook output out.

The only code that knows Claude Code's payload keys (`hook_event_name`, `session_id`,
`tool_name`, `tool_input`, `tool_response`, `stop_hook_active`, `notification_type` …), its
event names, its tools (Bash, Edit, TaskCreate …, mcp__<server>__<tool>) and its answer
shapes (`hookSpecificOutput.additionalContext`, `permissionDecision`, Stop's
`decision: "block"`). Real traffic: tests/fixtures/claude-code-2.1.332/. Its tools become
neutral Tools in tools.py beside this file; its capabilities are SPEC's flags.

Quirks kept here: a SessionEnd after /clear or /resume keeps the session's bindings (the
work goes on); the desktop session the environment names comes in the body (command hooks,
`relaybay_host_session`) or in headers (http hooks, X-Relaybay-Host-Session); relaybay
never answers "allow", which would skip Claude Code's own permission prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agents.claude_code import NAME, tools
from agents.shapes import claude_style_answer, common_fields
from core import actor as actors
from sessions.fields import desktop_id
from sessions.hooks import event as ev
from sessions.hooks import service
from sessions.hooks.answer import HookAnswer
from sessions.hooks.event import HookEvent, Host, Notice, TodoChange, TodoItem, Tool
from sessions.hooks.payload import mapping, text
from sessions.hooks.registry import AgentSpec, Capabilities
from sessions.models import Session
from tasks.models import Event

AGENT = NAME
TITLE = "Claude Code"
MARK = "CC"
PATH = "/hooks/claude-code"
WAIT_PATH = "/hooks/claude-code/wait"  # the opt-in wake-up hook (§4 Wake-up hook)
KINDS = {
    "SessionStart": ev.SESSION_START,
    "UserPromptSubmit": ev.PROMPT,
    "PreToolUse": ev.PRE_TOOL,
    "PermissionRequest": ev.APPROVAL,
    "PostToolUse": ev.POST_TOOL,
    "Notification": ev.NOTICE,
    "Stop": ev.STOP,
    "SessionEnd": ev.SESSION_END,
}
NAMES = {kind: name for name, kind in KINDS.items()}
# The events whose answer may carry hookSpecificOutput.additionalContext (§4).
CONTEXT_KINDS = frozenset({ev.SESSION_START, ev.PROMPT, ev.PRE_TOOL, ev.POST_TOOL})
# SessionEnd reasons after which the session lives on (§4): /clear and /resume.
KEEPS_BINDINGS = frozenset({"clear", "resume"})
NOTICES = {"permission_prompt": ev.PERMISSION, "idle_prompt": ev.INPUT}
HOST_FIELD = "relaybay_host_session"
ATTENDED_FIELD = "relaybay_host_attended"
HOST_HEADER = "x-relaybay-host-session"
ATTENDED_HEADER = "x-relaybay-host-attended"
# Headers the hook room may read; never the Authorization or Cookie headers.
PASSED_HEADERS = (HOST_HEADER, ATTENDED_HEADER, "user-agent")


# --- the request ----------------------------------------------------------------------------


def parse(payload: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> HookEvent | None:
    """Claude Code's hook input as a neutral event; None for an event relaybay does not
    handle. Unknown fields are ignored."""
    name = text(payload, "hook_event_name")
    kind = KINDS.get(name)
    if kind is None:
        return None
    tool = _tool(payload) if kind in (ev.PRE_TOOL, ev.APPROVAL, ev.POST_TOOL) else None
    common = common_fields(payload)
    return HookEvent(
        agent=AGENT,
        kind=kind,
        **common,
        keeps_bindings=kind == ev.SESSION_END
        and common["reason"] in CAPABILITIES.end_keeps_bindings,
        tool=tool,
        notice=_notice(payload) if kind == ev.NOTICE else None,
        host=_host(payload, headers or {}),
        todo=_todo(payload)
        if kind == ev.POST_TOOL and tool and tool.name in tools.TODO_TOOLS
        else None,
    )


def _tool(payload: Mapping[str, Any]) -> Tool:
    return tools.tool(text(payload, "tool_name"), mapping(payload, "tool_input"))


def _notice(payload: Mapping[str, Any]) -> Notice:
    kind = NOTICES.get(text(payload, "notification_type"), ev.MESSAGE)
    return Notice(kind, text(payload, "message"))


def _host(payload: Mapping[str, Any], headers: Mapping[str, str]) -> Host | None:
    """The desktop id from the body (command hook) or the headers (http hook), if valid;
    a malformed one is ignored like a missing one (§4 step 1)."""
    raw, attended = payload.get(HOST_FIELD), payload.get(ATTENDED_FIELD)
    if raw is None:
        raw, attended = headers.get(HOST_HEADER), headers.get(ATTENDED_HEADER)
    found = desktop_id(raw)
    return None if found is None else Host(found, attended=str(attended) == "1")


def _todo(payload: Mapping[str, Any]) -> TodoChange | None:
    """TaskCreate {subject, activeForm} → {task: {id}}; TaskUpdate {taskId, status?,
    subject?, activeForm?} → {success, taskId, statusChange}; TodoWrite {todos: [{content,
    status, activeForm}]} (older builds) replaces the list."""
    name = text(payload, "tool_name")
    if not isinstance(payload.get("tool_input"), Mapping):
        return None
    given, response = mapping(payload, "tool_input"), mapping(payload, "tool_response")
    if name == "TaskCreate":
        task = response.get("task")
        item_id = _id(task.get("id")) if isinstance(task, Mapping) else None
        if item_id is None:
            return None
        active = given.get("activeForm")
        return TodoChange("create", item_id, text(given, "subject"), "", _str_or_none(active))
    if name == "TaskUpdate":
        if response.get("success") is False:
            return None
        item_id = _id(given.get("taskId")) or _id(response.get("taskId"))
        status = given.get("status")
        change = response.get("statusChange")
        if not isinstance(status, str) and isinstance(change, Mapping):
            status = change.get("to")
        if item_id is None:
            return None
        status = status if isinstance(status, str) else ""
        active = _str_or_none(given.get("activeForm"))
        return TodoChange("update", item_id, text(given, "subject"), status, active)
    return _written(given)


def _written(given: Mapping[str, Any]) -> TodoChange | None:
    todos = given.get("todos")
    if not isinstance(todos, list):
        return None
    items: list[TodoItem] = []
    for entry in todos:
        if not isinstance(entry, Mapping) or not (content := text(entry, "content")):
            continue
        status = text(entry, "status") or "pending"
        items.append(TodoItem(str(len(items) + 1), content, status, text(entry, "activeForm")))
    return TodoChange("replace", items=tuple(items))


def _id(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    return text[:100] if text else None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# --- the answer -------------------------------------------------------------------------------


def render(answer: HookAnswer, event: HookEvent) -> dict[str, Any] | None:
    """The JSON body Claude Code reads, or None when there is nothing to say (204)."""
    return claude_style_answer(answer, event, NAMES, CONTEXT_KINDS, _decision)


def _decision(answer: HookAnswer) -> dict[str, Any]:
    """deny, ask, or the owner's allow, as Claude Code's permissionDecision."""
    return {
        "permissionDecision": answer.decision,
        "permissionDecisionReason": answer.decision_reason,
    }


CAPABILITIES = Capabilities(
    turn_end=True,
    asks=True,
    allows=True,
    wakes=True,
    meta_links=False,
    end_keeps_bindings=KEEPS_BINDINGS,
    todo=True,
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
    wait_path=WAIT_PATH,
    kinds=NAMES,
)


# --- the adapter as one call ------------------------------------------------------------------


@dataclass(frozen=True)
class HookResult:
    """Claude Code's answer body (None → 204), the session and the events of one input."""

    answer: dict[str, Any] | None
    session: Session | None = None
    events: tuple[Event, ...] = ()
    ignored: bool = False  # an event relaybay does not handle, or no usable session_id
    dropped: bool = False  # a SessionEnd for an id no session holds
    flush_in: float | None = None  # an activity is pending: flush_pending_activity after this


def hook_event(
    *,
    payload: Mapping[str, Any],
    headers: Mapping[str, str] | None = None,
    actor: str = actors.HOOK,
) -> HookResult:
    """One Claude Code hook input through the room (§4): parsed, handled, answered."""
    event = parse(payload, headers)
    if event is None:
        return HookResult(answer=None, ignored=True)
    done = service.hook_event(event, actor=actor)
    answer = render(done.answer, event) if done.answer is not None else None
    return HookResult(answer, done.session, done.events, done.ignored, done.dropped, done.flush_in)
