"""The resume brief in a SessionStart answer (docs/signals.md "Resume brief").

A session bound to open tasks that starts again — source `resume`, `clear` or `compact`
(Claude Code sends resume and clear, Codex resume and compact) — gets, after the hook
session line, the plan reminder and the owner comments' count, the brief of its bound tasks
(sessions.brief) within what is left of the shared 8000-character budget. A new session
(`startup`) has nothing bound yet: it gets the brief when it binds (task_bind_session).

Only a session exactly linked to this agent session id gets it (HookCall.exact), as for the
owner comments: the brief quotes the newest unread one.
"""

from __future__ import annotations

from sessions import brief
from sessions.hooks import answer as hook_answer
from sessions.hooks import event as ev
from sessions.hooks.answer import HookAnswer, HookCall
from tasks.extensions import plug_in_once

# After the owner comments (sessions.hooks.comments.ORDER = 50): comments first.
ORDER = 55
SOURCES = frozenset({"resume", "clear", "compact"})


def resume_context(call: HookCall, answer: HookAnswer) -> None:
    """SESSION_START of a resumed, cleared or compacted context: the brief, if it fits."""
    if call.event.source not in SOURCES or not call.exact or call.session is None:
        return
    if not brief.enabled():
        return
    text = brief.brief(call.bound_tasks, budget=answer.budget_left)
    if text:
        answer.add_context(text)


@plug_in_once
def register() -> None:
    """Plug into the SessionStart answers (idempotent)."""
    hook_answer.register_context_provider(ORDER, frozenset({ev.SESSION_START}), resume_context)
