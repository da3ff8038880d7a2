"""Context an agent would not read where it was made, kept for its next event that it reads.

Not every agent reads an answer's context on every event (registry.Capabilities.context_on):
one ignores it on a tool call before it runs, another puts a SessionStart's context at the
start of the stored prompt, where a resumed conversation drops it with the prompt. The hook
service (service.py) keeps the lines of such an event here, per agent session, and puts
them first into the answer of that session's next event whose context the agent reads —
the hook session line and the resume brief reach the model beside the prompt, a guard's
warning with the tool's output.

Owner comments are never kept here: they are delivered only on an event the agent reads
(comments.py), so a comment is marked delivered only when it went out. Kept in this
process's memory: a restart forgets what waits, which costs at most those lines once.
"""

from __future__ import annotations

from core import caches
from core.memo import Memo

STATE_MAX = 10_000  # agent sessions remembered; the oldest are forgotten past this
LINES_MAX = 8000  # characters kept per session (an answer's whole context budget)

_waiting: Memo[tuple[str, str], tuple[str, ...]] = Memo(STATE_MAX)
caches.register(
    "sessions.hooks.carried._waiting",
    key="(agent, agent session id)",
    bound=STATE_MAX,
    invalidation="the session's next event whose context the agent reads takes them; the "
    "oldest set first past the bound",
    reset="`carried.forget()` (the autouse fixture)",
)


def hold(agent: str, agent_session_id: str, lines: list[str]) -> None:
    """Keep `lines` after what already waits (a line already waiting is not kept twice),
    as many as fit LINES_MAX characters."""
    kept = list(_waiting.get((agent, agent_session_id)) or ())
    used = sum(len(line) + 1 for line in kept)
    for line in lines:
        if line in kept or used + len(line) + 1 > LINES_MAX:
            continue
        kept.append(line)
        used += len(line) + 1
    if kept:
        _waiting.set((agent, agent_session_id), tuple(kept))


def take(agent: str, agent_session_id: str) -> tuple[str, ...]:
    """What waits for this session (and forget it)."""
    return _waiting.pop((agent, agent_session_id)) or ()


def forget() -> None:
    """Drop everything that waits (tests)."""
    _waiting.clear()
