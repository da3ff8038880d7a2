"""The agent's todo list read from PostToolUse of Claude Code's todo tools (§4 Todo capture).

Private steps of sessions.hook_service.hook_event, run inside its transaction. Reading a
payload is pure (`next_items`); `capture` stores the list when it changed and appends one
session.todo_updated per task bound to the session.

Shapes (Claude Code 2.1.332, fixtures/claude-code-2.1.332/hooks):
- TaskCreate: tool_input {subject, description, activeForm}, tool_response {task: {id, …}};
- TaskUpdate: tool_input {taskId, status?, subject?, activeForm?}, tool_response
  {success, taskId, statusChange: {from, to}}; status "deleted" removes the item;
- TodoWrite (older builds): tool_input {todos: [{content, status, activeForm}]} replaces it.
Anything else is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from core import no_secrets
from sessions.models import (
    TODO_MAX_ITEMS,
    TODO_STATUSES,
    TODO_TEXT_MAX,
    Session,
    SessionTodo,
    TaskBinding,
)
from tasks.events import EventKind, record_event
from tasks.models import Event

TODO_TOOLS = frozenset({"TaskCreate", "TaskUpdate", "TodoWrite"})
DELETED = "deleted"


@dataclass(frozen=True)
class Item:
    item_id: str
    subject: str
    status: str = "pending"
    active_form: str = ""


def capture(session: Session, cc_id: str, payload: Mapping[str, Any], *, actor: str) -> list[Event]:
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or tool not in TODO_TOOLS:
        return []
    before = current_items(session, cc_id)
    after = next_items(before, str(tool), payload.get("tool_input"), payload.get("tool_response"))
    if after is None or after == before:
        return []
    # The list belongs to the session and this Claude Code id: lists of earlier ids of the
    # session are no longer current and go (a new id after /clear starts a fresh list).
    SessionTodo.objects.filter(session=session).delete()
    SessionTodo.objects.bulk_create(
        SessionTodo(
            session=session,
            cc_session_id=cc_id,
            item_id=item.item_id,
            subject=item.subject,
            status=item.status,
            active_form=item.active_form,
            position=position,
        )
        for position, item in enumerate(after)
    )
    return _events(session, after, actor)


def current_items(session: Session, cc_id: str) -> list[Item]:
    rows = SessionTodo.objects.filter(session=session, cc_session_id=cc_id).order_by(
        "position", "id"
    )
    return [Item(r.item_id, r.subject, r.status, r.active_form) for r in rows]


def next_items(
    items: list[Item], tool: str, tool_input: Any, tool_response: Any
) -> list[Item] | None:
    """The list after one todo tool call, or None when the call changes nothing we know."""
    if not isinstance(tool_input, Mapping):
        return None
    response = tool_response if isinstance(tool_response, Mapping) else {}
    if tool == "TaskCreate":
        return _created(items, tool_input, response)
    if tool == "TaskUpdate":
        return _updated(items, tool_input, response)
    return _written(tool_input)


def _created(
    items: list[Item], tool_input: Mapping[str, Any], response: Mapping[str, Any]
) -> list[Item] | None:
    task = response.get("task")
    subject = _text(tool_input.get("subject"))
    item_id = _id(task.get("id")) if isinstance(task, Mapping) else None
    if item_id is None or not subject:
        return None
    active_form = _text(tool_input.get("activeForm"))
    for index, item in enumerate(items):
        if item.item_id == item_id:  # the same id again: its texts change, not its status
            changed = replace(item, subject=subject, active_form=active_form)
            return [*items[:index], changed, *items[index + 1 :]]
    if len(items) >= TODO_MAX_ITEMS:
        return None
    return [*items, Item(item_id, subject, "pending", active_form)]


def _updated(
    items: list[Item], tool_input: Mapping[str, Any], response: Mapping[str, Any]
) -> list[Item] | None:
    if response.get("success") is False:
        return None
    item_id = _id(tool_input.get("taskId"))
    if item_id is None:
        item_id = _id(response.get("taskId"))
    index = next((i for i, it in enumerate(items) if it.item_id == item_id), None)
    if index is None:
        return None  # an id never seen (created before relaybay listened, another list)
    status = tool_input.get("status")
    change = response.get("statusChange")
    if not isinstance(status, str) and isinstance(change, Mapping):
        status = change.get("to")
    if status == DELETED:
        return [*items[:index], *items[index + 1 :]]
    item = items[index]
    if status in TODO_STATUSES:
        item = replace(item, status=status)
    if subject := _text(tool_input.get("subject")):
        item = replace(item, subject=subject)
    if isinstance(tool_input.get("activeForm"), str):
        item = replace(item, active_form=_text(tool_input["activeForm"]))
    return [*items[:index], item, *items[index + 1 :]]


def _written(tool_input: Mapping[str, Any]) -> list[Item] | None:
    todos = tool_input.get("todos")
    if not isinstance(todos, list):
        return None
    items: list[Item] = []
    for entry in todos:
        if not isinstance(entry, Mapping) or not (content := _text(entry.get("content"))):
            continue
        status = entry.get("status")
        items.append(
            Item(
                item_id=str(len(items) + 1),
                subject=content,
                status=status if status in TODO_STATUSES else "pending",
                active_form=_text(entry.get("activeForm")),
            )
        )
        if len(items) == TODO_MAX_ITEMS:
            break
    return items


def _text(value: Any) -> str:
    """One line of the agent's todo, a token in it masked: a hook cannot refuse what the
    agent wrote, and no secret is stored (§9.9)."""
    if not isinstance(value, str):
        return ""
    text = no_secrets.masked(" ".join(value.split()))
    return text if len(text) <= TODO_TEXT_MAX else text[: TODO_TEXT_MAX - 1] + "…"


def _id(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    return text[:100] if text else None


def in_progress_text(items: list[Item]) -> str:
    """What the agent is doing now: the active form of the first item in progress."""
    for item in items:
        if item.status == "in_progress":
            return item.active_form or item.subject
    return ""


def _events(session: Session, items: list[Item], actor: str) -> list[Event]:
    bindings = TaskBinding.objects.select_related("task__project").filter(
        session=session, unbound_at__isnull=True
    )
    payload = {"session": session.name, "items": len(items), "in_progress": in_progress_text(items)}
    return [
        record_event(
            EventKind.SESSION_TODO_UPDATED,
            project=b.task.project,
            task=b.task,
            actor=actor,
            payload=dict(payload),
        )
        for b in bindings
    ]
