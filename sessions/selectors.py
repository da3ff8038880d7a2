"""Reads about sessions for MCP answers, the task_get section and the board pages."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Q

from relaybay_site.errors import NotFound
from sessions.models import KIND_DESKTOP, Session, TaskBinding
from tasks import selectors as tasks_selectors
from tasks.models import Project, Task


def get_task(key: str) -> Task:
    """The task with this key, or NotFound saying what to do (tasks.selectors owns this)."""
    tasks_get_task = getattr(tasks_selectors, "get_task", None)
    if tasks_get_task is not None:
        return tasks_get_task(key)
    # Until tasks.selectors.get_task exists: the same lookup, read-only.
    task = Task.objects.select_related("project").filter(key=(key or "").strip().lower()).first()
    if task is None:
        raise NotFound(f"Unknown task {key}. Call task_list to see the keys.")
    return task


def find_task(key: str | None) -> Task | None:
    """The task with this key if there is one; None for an empty or unknown key."""
    if not key or not key.strip():
        return None
    return Task.objects.select_related("project").filter(key=key.strip().lower()).first()


def desktop_link(session: Session) -> str | None:
    """The "Open in desktop" link of a desktop session (desktop_link_template, §10)."""
    if session.kind != KIND_DESKTOP or not session.desktop_id:
        return None
    template = settings.RELAYBAY.desktop_link_template
    return template.replace("{id}", session.desktop_id) if template else None


def label(session: Session) -> str:
    """A session as one short text: its name and, when it has one, its title."""
    return f"{session.name} ({session.title})" if session.title else session.name


def current_binding(task: Task) -> TaskBinding | None:
    return (
        TaskBinding.objects.select_related("session")
        .filter(task=task, unbound_at__isnull=True)
        .first()
    )


def bound_session(task: Task) -> Session | None:
    """The session bound to the task now, or None."""
    binding = current_binding(task)
    return binding.session if binding else None


def binding_history(task: Task, limit: int | None = None) -> list[TaskBinding]:
    """Every binding of the task, latest first (the current one, if any, is the first)."""
    rows = TaskBinding.objects.select_related("session").filter(task=task).order_by("-id")
    return list(rows[:limit] if limit else rows)


def binding_count(task: Task) -> int:
    return TaskBinding.objects.filter(task=task).count()


def bound_sessions(tasks: list[Task]) -> dict[int, Session]:
    """{task id: bound session} for a list of tasks, in one query whatever its length."""
    ids = [t.id for t in tasks]
    if not ids:
        return {}
    rows = TaskBinding.objects.select_related("session").filter(
        task_id__in=ids, unbound_at__isnull=True
    )
    return {b.task_id: b.session for b in rows}


def tasks_bound_to(session: Session) -> list[Task]:
    """The tasks bound to a session now (hooks: comment delivery, SessionEnd unbinding)."""
    return list(
        Task.objects.select_related("project")
        .filter(session_bindings__session=session, session_bindings__unbound_at__isnull=True)
        .order_by("id")
    )


def session_by_cc_id(cc_session_id: str) -> Session | None:
    """The session a Claude Code session id is linked to (hooks)."""
    return Session.objects.filter(cc_session_id=cc_session_id).first()


@dataclass(frozen=True)
class SessionRow:
    """One session as the board lists it: every value ready for the template."""

    id: int
    name: str
    kind: str
    title: str
    label: str
    hook_status: str
    activity: str
    activity_at: datetime | None
    last_seen_at: datetime | None
    cc_exact: bool
    linked: bool
    unlinked_reason: str
    desktop_link: str | None
    task_keys: tuple[str, ...]


def sessions_list(project: Project | None = None) -> list[SessionRow]:
    """Sessions for the board, most recently seen first, with the keys of their bound tasks.

    With a project: the sessions bound to one of its tasks now, and the hook rows the
    hooks placed in it. Two queries whatever the number of sessions.
    """
    current = TaskBinding.objects.filter(unbound_at__isnull=True).select_related("task")
    if project is not None:
        current = current.filter(task__project=project)
    keys: dict[int, list[str]] = {}
    for b in current.order_by("task_id"):
        keys.setdefault(b.session_id, []).append(b.task.key)
    rows = Session.objects.all()
    if project is not None:
        rows = rows.filter(Q(id__in=list(keys)) | Q(project=project))
    rows = rows.order_by("-last_seen_at", "-id")
    return [
        SessionRow(
            id=s.id,
            name=s.name,
            kind=s.kind,
            title=s.title,
            label=label(s),
            hook_status=s.hook_status,
            activity=s.activity,
            activity_at=s.activity_at,
            last_seen_at=s.last_seen_at,
            cc_exact=s.cc_exact,
            linked=bool(s.cc_session_id),
            unlinked_reason=s.unlinked_reason,
            desktop_link=desktop_link(s),
            task_keys=tuple(keys.get(s.id, ())),
        )
        for s in rows
    ]
