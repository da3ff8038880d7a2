"""What relaybay keeps of a hook event: what it observed, masked, never refused (§9.9).

A hook tells relaybay what an agent is doing; nobody chose to write what it carries. A
folder may be named like a token (`sk-1234-fix-login-redirect`), a session id or a
notification may hold a `PGPASSWORD=…`. Refusing such a write would cost the hook its
answer — the guard's deny above all — so every text of the event that the pipeline stores
(the session id, the folder, the transcript path, the start source, the end reason, the
notification, the tool's name, the todo list) is masked here, once, by the one function
observations use (environments.secrets.safe_text: every spot of the journal's table and
every stored test secret value). The tool call itself stays as it came: the guard reads it,
nothing stores it, and what is kept of it (the waiting line, the touched paths) is masked
where it is made with the values this event carries.

A session id that held a secret is replaced by a stable stand-in (`masked-<digest>`,
sessions.fields.stored_agent_id), so every event of that session still finds the same row,
and the SessionStart line hands the agent the id relaybay knows it by.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from environments.secrets import safe_text
from sessions.fields import stored_agent_id
from sessions.hooks.event import HookEvent, Notice, TodoChange, TodoItem, Tool


def observed(event: HookEvent, test_values: tuple[str, ...] = ()) -> HookEvent:
    """The event as the pipeline may store it: every observed text masked."""

    def safe(text: str) -> str:
        return safe_text(text, test_values=test_values) if text else text

    return replace(
        event,
        session_id=stored_agent_id(event.session_id),
        cwd=safe(event.cwd),
        transcript_path=safe(event.transcript_path),
        source=safe(event.source),
        reason=safe(event.reason),
        tool=_tool(event.tool, safe),
        notice=None
        if event.notice is None
        else Notice(event.notice.kind, safe(event.notice.message), safe(event.notice.question)),
        todo=_todo(event.todo, safe),
        test_values=test_values,
    )


def _tool(tool: Tool | None, safe: Callable[[str], str]) -> Tool | None:
    if tool is None:
        return None
    return replace(
        tool, name=safe(tool.name), mcp_server=safe(tool.mcp_server), mcp_tool=safe(tool.mcp_tool)
    )


def _todo(todo: TodoChange | None, safe: Callable[[str], str]) -> TodoChange | None:
    if todo is None:
        return None
    items = tuple(
        TodoItem(safe(i.item_id), safe(i.subject), i.status, safe(i.active_form))
        for i in todo.items
    )
    return replace(
        todo,
        item_id=safe(todo.item_id),
        subject=safe(todo.subject),
        active_form=None if todo.active_form is None else safe(todo.active_form),
        items=items,
    )


# What relaybay keeps of what it observes, each masked by environments.secrets.safe_text
# (docs/policy.md "Observed: masked, never refused" is rendered from this table).
OBSERVED: tuple[tuple[str, str], ...] = (
    (
        "Hook events of every agent",
        "the agent's session id (a stable stand-in `masked-<digest>` when it holds a "
        "secret's shape, which the SessionStart line then names), the folder (cwd) and the "
        "session name taken from it, the transcript path, the start source, the end reason, "
        "the notification message, the tool's name, the agent's todo items",
    ),
    (
        "What a hook keeps of a tool call",
        "the waiting line (the tool and the start of its command, question or plan title, "
        "at most 200 characters) and the paths a call is about to change (collision "
        "warnings); the tool input itself is never stored",
    ),
    (
        "MCP calls",
        "the agent session id a call carries by itself (Codex's `_meta.sessionId`), mapped "
        "to the same stand-in as the hooks'",
    ),
    (
        "Transcripts",
        "model names (one holding a secret's shape is kept as `unknown`); token counts only, "
        "never the text",
    ),
    (
        "The guard's journal (`live.action`)",
        "the command, or an MCP input as its `key: value` pairs (a value under a key that "
        "names a secret is masked unless it is a reference), whitespace collapsed, cut at "
        "200 characters",
    ),
)
