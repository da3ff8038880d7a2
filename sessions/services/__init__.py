"""Writes about sessions: who is calling, binding tasks, aliases, exact hook links (§1, §4).

Every public function is keyword-only and one transaction, and appends its events in that
transaction. Shared steps are private helpers that run inside the caller's transaction
(`_steps.py`). The services live by concept — `callers.py` (session_touch),
`bindings.py` (task_bind_session, task_unbind_session) and `dismiss.py`
(session_dismiss) — and are named here, so tools and views call `services.<name>`.
"""

from sessions.services.bindings import (
    REASON_MAX,
    BindResult,
    UnbindResult,
    task_bind_session,
    task_unbind_session,
)
from sessions.services.callers import TouchResult, session_touch
from sessions.services.dismiss import session_dismiss

__all__ = [
    "REASON_MAX",
    "BindResult",
    "TouchResult",
    "UnbindResult",
    "session_dismiss",
    "session_touch",
    "task_bind_session",
    "task_unbind_session",
]
