"""The Inbox groups of sessions: "Agents waiting for an answer", "Sessions colliding" and
"Unlinked hook sessions" (§2 Inbox, §4 linking step 4).

A session waiting on a permission, a question, a plan approval or input is listed first,
the longest wait first, with what it waits on and for how long; a row opens the bound
task's dialog (else the Sessions page). A hook session the linking could not place
(several candidates, a folder in several projects …) waits with its reason until the agent
links it with hook_session; those rows point at Settings → Integrations (§5).
"""

from __future__ import annotations

from django.urls import reverse
from django.utils import timezone

from core.display import ago
from sessions import selectors, touched
from sessions.hooks import forgotten, stuck
from sessions.hooks.registry import agent_mark
from tasks import extensions
from tasks.extensions import InboxGroup, InboxRow, plug_in_once
from tasks.selectors.inbox import task_links, task_row, value_row

ORDER = 50  # after Review queue, Waiting on you, Rule warnings, Not logged (tasks' orders)
WAITING_ORDER = 5  # first: an agent stands still until someone answers
STUCK_ORDER = 6
COLLIDING_ORDER = 7  # two agents changing the same files: before either undoes the other
FORGOTTEN_ORDER = 55
WAITING_ID = "agents-waiting"
WAITING_SHOWN = 100  # the group lists at most this many waiting sessions


def waiting_group(limit: int | None = None) -> InboxGroup | None:
    """The waiting sessions (at most WAITING_SHOWN); `limit` of them built and how many
    there are, since the page shows its first rows only."""
    wanted = WAITING_SHOWN if limit is None else min(limit, WAITING_SHOWN)
    waiting, count = selectors.waiting_page(wanted)
    if not waiting:
        return None
    total = None
    if len(waiting) == wanted < WAITING_SHOWN:
        total = min(count, WAITING_SHOWN)
    now = timezone.now()
    sessions_page = reverse("sessions")
    link = task_links()
    rows = []
    for w in waiting:
        since = ago(w.since, now) if w.since else "a while"
        detail = f"waiting since {since}: {w.summary}" if w.summary else f"waiting since {since}"
        if w.tasks:  # the task's row as every group shows it, headed by the session
            t = w.tasks[0]
            href = link(t.slug, t.key)
            row = value_row(t.key, t.title, t.slug, t.project, detail, href, by=w.name, mark=w.mark)
            rows.append(row)
        else:
            rows.append(InboxRow(title=w.name, href=sessions_page, detail=detail, mark=w.mark))
    return InboxGroup(
        id=WAITING_ID, title="Agents waiting for an answer", rows=tuple(rows), total=total
    )


def colliding_group() -> InboxGroup | None:
    """ "Sessions colliding": the last hour's pairs, both tasks, the paths."""
    pairs = touched.recent_pairs()
    if not pairs:
        return None
    now = timezone.now()
    rows = []
    for p in pairs:
        detail = f"with {p.with_text(p.session)}: {p.what} · {ago(p.at, now)}"
        mark = agent_mark(p.session.agent)
        if p.task is not None:
            rows.append(task_row(p.task, detail, by=p.session.name, mark=mark))
        else:
            rows.append(
                InboxRow(title=p.session.name, href=reverse("sessions"), detail=detail, mark=mark)
            )
    return InboxGroup(id="sessions-colliding", title="Sessions colliding", rows=tuple(rows))


def unlinked_group() -> InboxGroup | None:
    sessions = selectors.unlinked_hook_sessions()
    if not sessions:
        return None
    href = reverse("integrations")
    rows = tuple(
        InboxRow(
            title=s.name or s.agent_session_id,
            href=href,
            detail=s.reason + (f" · {s.cwd}" if s.cwd else ""),
            project=s.project,
        )
        for s in sessions
    )
    return InboxGroup(
        id="unlinked-hook-sessions", title="Unlinked hook sessions", rows=rows, link=href
    )


@plug_in_once
def register() -> None:
    extensions.register_inbox_group(WAITING_ORDER, waiting_group, limited=WAITING_ID)
    extensions.register_inbox_group(STUCK_ORDER, stuck.stuck_group, limited=stuck.GROUP_ID)
    extensions.register_inbox_group(COLLIDING_ORDER, colliding_group, touched.pair_count)
    extensions.register_inbox_group(
        FORGOTTEN_ORDER, forgotten.forgotten_group, limited=forgotten.GROUP_ID
    )
    extensions.register_inbox_group(ORDER, unlinked_group)
