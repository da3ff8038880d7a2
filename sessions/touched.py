"""Reads of the paths live sessions touch: the files a task's sessions changed
lately (the resume brief) and the collisions the Inbox and the Session panel show."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from core.rows import fetch_all
from sessions import sql
from sessions.models import Collision, Session, TaskBinding
from tasks.models import Task

KEPT = timedelta(hours=2)  # a touched path is forgotten after this (and when the session ends)
RECENT = timedelta(minutes=30)  # another session's touch this recent is a collision


def recent_paths(task: Task, *, limit: int = 10, now: datetime | None = None) -> list[str]:
    """The paths the task's sessions touched while bound to it, in the last two hours,
    newest first (relative to the repository); one statement (sessions/sql.py)."""
    since = connection.ops.adapt_datetimefield_value((now or timezone.now()) - KEPT)
    rows = fetch_all(sql.recent_paths(limit), [task.pk, since, since])
    return [sql.RecentPath(*row).path for row in rows]


SHOWN_FOR = timedelta(hours=1)  # the Inbox and the panel show the last hour's collisions


@dataclass(frozen=True)
class Pair:
    """Two sessions that collided in the last hour: their tasks, the paths, the newest."""

    session: Session
    other: Session
    task: Task | None
    other_task: Task | None
    paths: tuple[str, ...]  # "" stands for one checkout on two branches
    at: datetime

    def with_text(self, name_of: Session) -> str:
        """ "acme-shop-7 (bob)": the other side as `name_of` sees it."""
        task = self.other_task if name_of == self.session else self.task
        other = self.other if name_of == self.session else self.session
        return f"{task.key} ({other.name})" if task else other.name

    @property
    def what(self) -> str:
        files = [p for p in self.paths if p]
        parts = [", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")]
        if "" in self.paths:
            parts.append("one checkout on two branches")
        return "; ".join(p for p in parts if p)


def recent_pairs(*, session: Session | None = None, now: datetime | None = None) -> list[Pair]:
    """The last hour's collisions, one per pair of sessions, newest first (of one session's
    pairs when given). Three queries."""
    now = now or timezone.now()
    rows = Collision.objects.filter(at__gte=now - SHOWN_FOR).select_related("session", "other")
    if session is not None:
        rows = rows.filter(Q(session=session) | Q(other=session))
    pairs: dict[frozenset[int], list[Collision]] = {}
    for row in rows.order_by("-at", "-id"):
        pairs.setdefault(frozenset((row.session_id, row.other_id)), []).append(row)
    ids = {sid for key in pairs for sid in key}
    tasks = first_tasks(ids)
    found = []
    for group in pairs.values():
        newest = group[0]
        paths = tuple(dict.fromkeys(c.path for c in group))
        found.append(
            Pair(
                newest.session,
                newest.other,
                tasks.get(newest.session_id),
                tasks.get(newest.other_id),
                paths,
                newest.at,
            )
        )
    return found


def first_tasks(session_ids: set[int]) -> dict[int, Task]:
    """{session id: its oldest bound task}, in one query (none for no sessions: compiling
    the queryset cost an empty Inbox group half a millisecond)."""
    found: dict[int, Task] = {}
    if not session_ids:
        return found
    rows = (
        TaskBinding.objects.filter(session_id__in=session_ids, unbound_at__isnull=True)
        .select_related("task__project")
        .order_by("task_id")
    )
    for binding in rows:
        found.setdefault(binding.session_id, binding.task)
    return found


def pair_count(now: datetime | None = None) -> int:
    """How many pairs collided in the last hour (the sidebar badge), in one query."""
    now = now or timezone.now()
    rows = Collision.objects.filter(at__gte=now - SHOWN_FOR).values_list("session_id", "other_id")
    return len({frozenset(pair) for pair in rows})
