"""The agent's todo list, kept from its todo tool calls (§4 Todo capture).

The agent's adapter reads its own todo tools (Claude Code's TaskCreate, TaskUpdate and
TodoWrite) into a neutral TodoChange (event.py); here the change is applied to the list
stored for this agent session id (`next_items`, pure) and, when the list changed, stored
through sessions.services.hooks.store_todo inside the hook's transaction. Every text is
one line, cut, a token in it masked: a hook cannot refuse what the agent wrote, and no
secret is stored (§9.9).
"""

from __future__ import annotations

from dataclasses import replace

from core import no_secrets
from sessions.hooks.event import TodoChange, TodoItem
from sessions.models import TODO_MAX_ITEMS, TODO_STATUSES, TODO_TEXT_MAX, Session, SessionTodo
from sessions.services import hooks as hook_steps
from tasks.models import Event

DELETED = "deleted"


def capture(session: Session, agent_id: str, change: TodoChange, *, actor: str) -> list[Event]:
    """Store the list after `change` when it changed; its events."""
    before = current_items(session, agent_id)
    after = next_items(before, change)
    if after is None or after == before:
        return []
    return hook_steps.store_todo(session, agent_id, after, actor=actor)


def current_items(session: Session, agent_id: str) -> list[TodoItem]:
    rows = SessionTodo.objects.filter(session=session, agent_session_id=agent_id).order_by(
        "position", "id"
    )
    return [TodoItem(r.item_id, r.subject, r.status, r.active_form) for r in rows]


def next_items(items: list[TodoItem], change: TodoChange) -> list[TodoItem] | None:
    """The list after one change, or None when the change says nothing we can apply."""
    if change.op == "create":
        return _created(items, change)
    if change.op == "update":
        return _updated(items, change)
    if change.op == "replace":
        return [_clean(item) for item in change.items[:TODO_MAX_ITEMS]]
    return None


def _created(items: list[TodoItem], change: TodoChange) -> list[TodoItem] | None:
    subject = clean_text(change.subject)
    if not change.item_id or not subject:
        return None
    active_form = clean_text(change.active_form or "")
    for index, item in enumerate(items):
        if item.item_id == change.item_id:  # the same id again: its texts change, not status
            changed = replace(item, subject=subject, active_form=active_form)
            return [*items[:index], changed, *items[index + 1 :]]
    if len(items) >= TODO_MAX_ITEMS:
        return None
    return [*items, TodoItem(change.item_id, subject, "pending", active_form)]


def _updated(items: list[TodoItem], change: TodoChange) -> list[TodoItem] | None:
    index = next((i for i, it in enumerate(items) if it.item_id == change.item_id), None)
    if index is None:
        return None  # an id never seen (created before relaybay listened, another list)
    if change.status == DELETED:
        return [*items[:index], *items[index + 1 :]]
    item = items[index]
    if change.status in TODO_STATUSES:
        item = replace(item, status=change.status)
    if subject := clean_text(change.subject):
        item = replace(item, subject=subject)
    if change.active_form is not None:
        item = replace(item, active_form=clean_text(change.active_form))
    return [*items[:index], item, *items[index + 1 :]]


def _clean(item: TodoItem) -> TodoItem:
    status = item.status if item.status in TODO_STATUSES else "pending"
    subject, active_form = clean_text(item.subject), clean_text(item.active_form)
    return TodoItem(item.item_id, subject, status, active_form)


def clean_text(value: str) -> str:
    """One line of the agent's todo, at most TODO_TEXT_MAX characters, tokens masked."""
    text = no_secrets.masked(" ".join(value.split()))
    return text if len(text) <= TODO_TEXT_MAX else text[: TODO_TEXT_MAX - 1] + "…"
