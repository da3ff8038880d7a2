"""Forgotten sessions: sessions working with no task, and sessions nobody
ended that have been idle for a day.

- working for more than `forgotten_unbound_minutes` (default 10) with no bound task: the
  session is active now (its last activity within that window) and relaybay has known it
  longer than the window, yet no task is bound to it;
- not ended and idle for more than `forgotten_idle_hours` (default 24): its last activity
  (or, without one, when it was last seen or made) is older than that.

The Inbox group "Forgotten sessions" lists them with what to do: a desktop session's row
opens it in the desktop app; every row has Dismiss (sessions.services.session_dismiss) and
says where to bind it (a task's Session panel). Computed from the sessions table when the
Inbox is built; nothing is stored for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from django.conf import settings
from django.db import connection
from django.db.models import Exists, OuterRef
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

from core.display import ago
from core.rows import fetch_all, moments
from sessions import selectors, sql
from sessions.hooks.registry import named_with_agent
from sessions.models import ENDED, WORKING, Session, TaskBinding
from tasks.extensions import InboxGroup, InboxRow

SHOWN = 100
GROUP_ID = "forgotten-sessions"


@dataclass(frozen=True)
class Forgotten:
    session: Session
    reason: str
    since: datetime


def forgotten_sessions(now: datetime | None = None) -> list[Forgotten]:
    """The forgotten sessions, the longest forgotten first; two queries."""
    now = now or timezone.now()
    cfg = settings.RELAYBAY
    bound = TaskBinding.objects.filter(session=OuterRef("pk"), unbound_at__isnull=True)
    found: dict[int, Forgotten] = {}
    if cfg.forgotten_idle_hours > 0:
        cutoff = now - timedelta(hours=cfg.forgotten_idle_hours)
        idle = (
            Session.objects.exclude(hook_status=ENDED)
            .annotate(last=Coalesce("activity_at", "last_seen_at", "created_at"))
            .filter(last__lt=cutoff)
            .order_by("last")[:SHOWN]
        )
        for s in idle:
            found[s.pk] = Forgotten(s, f"idle since {ago(s.last, now)}, not ended", s.last)
    if cfg.forgotten_unbound_minutes > 0:
        window = timedelta(minutes=cfg.forgotten_unbound_minutes)
        unbound = (
            Session.objects.filter(hook_status=WORKING, activity_at__gte=now - window)
            .filter(created_at__lt=now - window)
            .exclude(Exists(bound))
            .order_by("created_at")[:SHOWN]
        )
        for s in unbound:
            minutes = int((now - s.created_at).total_seconds() // 60)
            reason = f"working with no task bound (known for {minutes} min)"
            found.setdefault(s.pk, Forgotten(s, reason, s.created_at))
    return sorted(found.values(), key=lambda f: f.since)


def forgotten_group(limit: int | None = None) -> InboxGroup | None:
    """The group with `limit` of its rows (None: all) and how many there are: the page shows
    its first rows only. One statement written once (sessions/sql.py forgotten) reads the
    values those rows show and counts the rest, as forgotten_sessions() finds them, instead
    of building up to two hundred sessions whole to show twenty."""
    cfg = settings.RELAYBAY
    idle, unbound = cfg.forgotten_idle_hours > 0, cfg.forgotten_unbound_minutes > 0
    if not (idle or unbound):
        return None
    now = timezone.now()
    adapt = connection.ops.adapt_datetimefield_value
    params: list[object] = []
    if idle:
        params.append(adapt(now - timedelta(hours=cfg.forgotten_idle_hours)))
    if unbound:
        params += [adapt(now - timedelta(minutes=cfg.forgotten_unbound_minutes))] * 2
    params.append(-1 if limit is None else max(limit, 1))  # one row at least: its total
    found = [
        sql.ForgottenRow._make(row)
        for row in fetch_all(sql.forgotten(idle, unbound, SHOWN), params)
    ]
    if not found:
        return None
    sessions_page = reverse("sessions")
    moment = moments()
    rows = []
    for f in found[:limit]:
        since = cast(datetime, moment(f.since))  # a session always has its created_at
        if f.idle:
            reason = f"idle since {ago(since, now)}, not ended"
        else:
            minutes = int((now - since).total_seconds() // 60)
            reason = f"working with no task bound (known for {minutes} min)"
        desktop = selectors.desktop_href(f.kind, f.desktop_id) or ""
        where = "open it in desktop, or " if desktop else ""
        rows.append(
            InboxRow(
                title=named_with_agent(f.title or f.name, f.agent),
                href=desktop or sessions_page,
                detail=f"{reason} · {where}bind it from a task's Session panel",
                project=f.project,
                action_url=reverse("session_dismiss", args=[f.id]),
                action_label="Dismiss",
            )
        )
    return InboxGroup(
        id=GROUP_ID, title="Forgotten sessions", rows=tuple(rows), total=found[0].total
    )
