"""The Inbox group "Unlinked hook sessions" (§2 Inbox, §4 linking step 4).

A hook session the linking could not place (several candidates, a folder in several
projects …) waits here with its reason until the agent links it with hook_session. The
rows point at Settings → Integrations, which lists them too (§5).
"""

from __future__ import annotations

from django.urls import reverse

from sessions import selectors
from tasks import extensions
from tasks.extensions import InboxGroup, InboxRow

ORDER = 50  # after Review queue, Waiting on you, Rule warnings, Not logged (tasks' orders)


def unlinked_group() -> InboxGroup | None:
    sessions = selectors.unlinked_hook_sessions()
    if not sessions:
        return None
    href = reverse("integrations")
    rows = tuple(
        InboxRow(
            title=s.name or s.cc_session_id,
            href=href,
            detail=s.reason + (f" · {s.cwd}" if s.cwd else ""),
            project=s.project,
        )
        for s in sessions
    )
    return InboxGroup(
        id="unlinked-hook-sessions", title="Unlinked hook sessions", rows=rows, link=href
    )


def register() -> None:
    extensions.register_inbox_group(ORDER, unlinked_group)
