"""The journal of actions on live as the board shows it (§2 Activity, §7 Journal).

The guard writes one live.action event per guarded call on a live stand
(environments.services.live_action_record); here those rows are read back for the
"Actions on live" block above the Activity feed and for the task dialog's panel of the
same name (which the environments app registers). They are plain Event rows, so tasks
reads them without importing environments (docs/architecture.md §2). Three queries each:
the rows through the (project, kind, id) or (task, kind, id) index, their projects and tasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from core.display import ago, utc_text
from tasks.events import EventKind
from tasks.models import Event, Project, Task
from tasks.selectors.activity import task_href
from tasks.selectors.events import log_rows

KIND = str(EventKind.LIVE_ACTION)
ACTIVITY_SHOWN = 20  # the block above the Activity feed (§7 Journal)
TASK_SHOWN = 50  # the task dialog's and page's panel
# The badge's colour (§7 Journal): deny red, ask amber, warn a lighter amber, the rest grey.
TONES = {"deny": "deny", "ask": "ask", "warn": "warn"}


@dataclass(frozen=True)
class LiveActionRow:
    """One guarded call on live, every value ready for the template (agent text escaped
    there: the command is what an agent typed, masked but not trusted)."""

    id: int
    age: str
    utc: str
    iso: str
    project_name: str
    project_href: str  # the project's board
    environment: str
    decision: str  # allow / log / warn / ask / deny
    tone: str  # deny / ask / warn / quiet: the badge's colour
    tool: str
    command: str  # masked by the guard, at most 200 characters
    level: str  # none / read / ask / full
    rule: str  # the rule id that decided, or ""
    actor: str  # the session's name
    task_key: str
    task_href: str  # the task dialog over its board, or ""


def _text(payload: dict, key: str) -> str:
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def _row(event: Event, now: datetime) -> LiveActionRow:
    p = event.payload if isinstance(event.payload, dict) else {}
    project, task = event.project, event.task
    decision = _text(p, "decision")
    return LiveActionRow(
        id=event.id,
        age=ago(event.created_at, now),
        utc=utc_text(event.created_at),
        iso=event.created_at.astimezone(UTC).isoformat(),
        project_name=project.name if project else "",
        project_href=reverse("board", args=[project.slug]) if project else "",
        environment=_text(p, "environment"),
        decision=decision,
        tone=TONES.get(decision, "quiet"),
        tool=_text(p, "tool"),
        command=_text(p, "command"),
        level=_text(p, "level"),
        rule=_text(p, "rule"),
        actor=event.actor,
        task_key=task.key if task else "",
        task_href=task_href(project.slug, task.key) if task and project else "",
    )


def _rows(events: list[Event]) -> list[LiveActionRow]:
    now = timezone.now()
    return [_row(e, now) for e in events]


def activity_href(project: Project | None = None) -> str:
    """Activity filtered to live.action (and the project): the whole journal."""
    query = {"project": project.slug} if project else {}
    return reverse("activity") + "?" + urlencode({**query, "kind": KIND})


@dataclass(frozen=True)
class ActivityLiveActions:
    """The block above the Activity feed: the newest ACTIVITY_SHOWN actions on live."""

    rows: list[LiveActionRow]  # newest first; none: the block shows nothing
    all_href: str  # Activity with ?kind=live.action, keeping the project filter
    refresh_url: str  # the block's fragment, refetched on live.action


def activity_live_actions(project: Project | None) -> ActivityLiveActions:
    """The newest actions on live, of one project or all."""
    events = log_rows().filter(kind=KIND)
    if project is not None:
        events = events.filter(project=project)
    query = "?" + urlencode({"project": project.slug}) if project else ""
    return ActivityLiveActions(
        rows=_rows(list(events.order_by("-id")[:ACTIVITY_SHOWN])),
        all_href=activity_href(project),
        refresh_url=reverse("activity_live_actions") + query,
    )


@dataclass(frozen=True)
class TaskLiveActions:
    """A task's own actions on live, newest first, at most TASK_SHOWN of them."""

    rows: list[LiveActionRow]
    more: bool  # older ones exist beyond TASK_SHOWN
    all_href: str  # the project's journal on Activity


def task_live_actions(task: Task) -> TaskLiveActions:
    """The task's actions on live in one query (the task's event index)."""
    events = list(log_rows().filter(task=task, kind=KIND).order_by("-id")[: TASK_SHOWN + 1])
    return TaskLiveActions(
        rows=_rows(events[:TASK_SHOWN]),
        more=len(events) > TASK_SHOWN,
        all_href=activity_href(task.project),
    )
