"""The agent session an MCP call comes from, when the agent's MCP client says so.

Codex sends its thread id with every tools/call as `_meta.sessionId` (and `threadId`): the
same id its hooks report as session_id. An agent whose MCP client sends no id may be given
one as a header, `X-Relaybay-Session` (a Gemini CLI started with `--session-id X` and the
header `${RELAYBAY_SESSION}` in its server entry: its hooks report the same X); `_meta`
wins when both are there. core.mcp's call_tool sets it here for the call;
tasks.extensions.CallerRef takes it when a write tool builds one, so the caller resolver
can link the calling session to its hook session exactly without a hook_session argument
(an explicit hook_session still wins). A context variable: asgiref copies it into the sync
thread that runs the service.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Any

_CALL_SESSION: ContextVar[str] = ContextVar("relaybay_call_session", default="")
ID_MAX = 100  # an agent session id (sessions.models.AGENT_ID_MAX)


def call_session() -> str:
    """The agent session id the current MCP call carried, or ""."""
    return _CALL_SESSION.get()


SESSION_HEADER = "x-relaybay-session"


def enter(meta: Any, header: str = "") -> Token[str]:
    """Take the id from a tools/call's `_meta` (sessionId, else threadId), else from the
    request's X-Relaybay-Session header, for this call."""
    found = ""
    candidates = (
        [meta.get(key) for key in ("sessionId", "threadId")] if isinstance(meta, dict) else []
    )
    # a header Gemini could not fill in (RELAYBAY_SESSION unset) stays "${…}": no id
    header = "" if "$" in header else header
    for value in [*candidates, header]:
        if isinstance(value, str) and 0 < len(value.strip()) <= ID_MAX:
            found = value.strip()
            break
    return _CALL_SESSION.set(found)


def leave(token: Token[str]) -> None:
    _CALL_SESSION.reset(token)
