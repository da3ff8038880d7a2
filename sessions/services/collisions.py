"""Writes of the collision warnings: the paths live sessions touch, the
collisions found between them, and telling the other session. Steps that run inside the
hook's own transaction (sessions/hooks/collisions.py decides; this module writes)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Q

from sessions.models import ENDED, Collision, Session, TouchedPath
from sessions.touched import KEPT, RECENT, first_tasks
from tasks.events import EventKind, record_event
from tasks.models import Project, Task

ONCE_PER = timedelta(hours=1)  # one warning per pair and path in this time
FORGET_COLLISIONS = timedelta(days=1)


@dataclass(frozen=True)
class Found:
    """One collision as the session that touched second is told of it."""

    other: Session
    other_task: Task | None
    path: str  # "" for one checkout on two branches
    other_touched_at: datetime | None
    other_branch: str = ""
    own_branch: str = ""


def paths_touched_step(
    session: Session, project: Project, paths: list[str], *, actor: str, now: datetime
) -> list[Found]:
    """Keep the paths the session is about to change; the collisions that are news."""
    for path in paths:
        updated = TouchedPath.objects.filter(session=session, path=path).update(
            project=project, touched_at=now
        )
        if not updated:
            TouchedPath.objects.create(session=session, project=project, path=path, touched_at=now)
    TouchedPath.objects.filter(project=project, touched_at__lt=now - KEPT).delete()
    Collision.objects.filter(at__lt=now - FORGET_COLLISIONS).delete()
    others = (
        TouchedPath.objects.filter(project=project, path__in=paths, touched_at__gte=now - RECENT)
        .exclude(session=session)
        .exclude(session__hook_status=ENDED)
        .select_related("session")
        .order_by("path", "session_id")
    )
    found = []
    for row in others:
        if _told_lately(session, row.session, row.path, now):
            continue
        task = first_task(row.session)
        found.append(Found(row.session, task, row.path, row.touched_at))
        _record(session, row.session, project, row.path, now, row.touched_at, actor=actor)
    return found


def branches_step(
    session: Session,
    project: Project,
    branch: str,
    others: list[tuple[Session, str]],
    *,
    actor: str,
    now: datetime,
) -> list[Found]:
    """Sessions working in the same checkout for a task on another branch: told once an
    hour per pair (`others`: each live session of the checkout and its task's branch)."""
    found = []
    for other, other_branch in others:
        if _told_lately(session, other, "", now):
            continue
        found.append(Found(other, first_task(other), "", None, other_branch, branch))
        _record(session, other, project, "", now, None, actor=actor)
    return found


def _told_lately(session: Session, other: Session, path: str, now: datetime) -> bool:
    pair = Q(session=session, other=other) | Q(session=other, other=session)
    return Collision.objects.filter(pair, path=path, at__gte=now - ONCE_PER).exists()


def first_task(session: Session) -> Task | None:
    """The session's oldest bound task (what a warning names it by)."""
    return first_tasks({session.pk}).get(session.pk)


def _record(
    session: Session,
    other: Session,
    project: Project,
    path: str,
    now: datetime,
    other_at: datetime | None,
    *,
    actor: str,
) -> None:
    Collision.objects.create(
        session=session,
        other=other,
        project=project,
        path=path,
        at=now,
        other_touched_at=other_at,
    )
    task, other_task = first_task(session), first_task(other)
    record_event(
        EventKind.SESSION_COLLISION,
        project=project,
        task=task,
        actor=actor,
        payload={
            "session": session.name,
            "other": other.name,
            "path": path,
            "task": task.key if task else None,
            "other_task": other_task.key if other_task else None,
        },
    )


def untold_step(session: Session, *, now: datetime) -> list[Collision]:
    """The collisions the session has not heard of (it touched first), marked told."""
    rows = list(
        Collision.objects.filter(other=session, told_other_at__isnull=True)
        .select_related("session")
        .order_by("at", "id")
    )
    if rows:
        Collision.objects.filter(id__in=[r.id for r in rows]).update(told_other_at=now)
    return rows


def forget_paths_step(session: Session) -> None:
    """An ended session's paths are forgotten (a session that lives on keeps them)."""
    TouchedPath.objects.filter(session=session).delete()
