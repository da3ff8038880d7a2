"""Reads about sessions for MCP answers, the task_get section and the board pages."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import connection
from django.db.models import Case, Q, QuerySet, Value, When
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from core.errors import NotFound
from core.rows import columns, fetch_all, fetch_one, fetch_related, moments
from sessions import sql
from sessions.hooks.registry import agent_mark, agent_title, named_with_agent
from sessions.models import (
    ENDED,
    KIND_DESKTOP,
    KIND_HOOK,
    PENDING,
    WAITING,
    ApprovalRequest,
    Session,
    SessionTodo,
    TaskBinding,
)
from tasks import selectors as tasks_selectors
from tasks.extensions import LineTask
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
    return desktop_href(session.kind, session.desktop_id)


def desktop_href(kind: str, desktop_id: str | None) -> str | None:
    """desktop_link of a session read as plain values (the Inbox's Forgotten sessions)."""
    if kind != KIND_DESKTOP or not desktop_id:
        return None
    template = settings.RELAYBAY.desktop_link_template
    return template.replace("{id}", desktop_id) if template else None


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


_BINDING = columns(TaskBinding, "b")
SESSION_COLUMNS = columns(Session, "s")


def binding_history(task: Task, limit: int | None = None) -> list[TaskBinding]:
    """Every binding of the task, latest first (the current one, if any, is the first),
    each with its session, as select_related("session") would."""
    history = sql.binding_history(limit)
    return fetch_related(history, [task.pk], _BINDING, SESSION_COLUMNS, "session")


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


def _task_ids(tasks: Sequence[LineTask]) -> str:
    return json.dumps([int(t.id) for t in tasks])


def bound_session_names(tasks: Sequence[LineTask]) -> dict[int, str]:
    """{task id: the bound session's name}, one query of two columns: a task list's
    suffixes need the name only, and building each binding and session cost task_list a
    third of its time at 160 open tasks."""
    if not tasks:
        return {}
    return dict(fetch_all(sql.BOUND_SESSION_NAMES.text, [_task_ids(tasks)]))  # type: ignore[arg-type]


def bound_session_facts(
    tasks: list[Task],
) -> dict[int, tuple[int, str, bool, str | None, str, str]]:
    """{task id: (id, name, agent_exact, agent_session_id, hook_status, agent) of the bound
    session}, one
    query: comments_list names each thread's recipient from these, and building 100 sessions
    cost it a quarter of its time."""
    if not tasks:
        return {}
    return {
        row[0]: (row[1], row[2], bool(row[3]), row[4], row[5], row[6])
        for row in fetch_all(sql.BOUND_SESSION_FACTS.text, [_task_ids(tasks)])
    }


# Both reads below run on every hook (the guard's step, comment delivery, linking): written
# as SQL once (sessions/sql.py; the bound tasks by tasks.selectors.linked_tasks), because
# building their querysets cost more than SQLite's run.


def tasks_bound_to(session: Session) -> list[Task]:
    """The tasks bound to a session now, with their projects, by id (hooks: comment
    delivery, the guard, SessionEnd unbinding)."""
    return tasks_selectors.linked_tasks(TaskBinding, "session", session.pk, unset="unbound_at")


def session_by_agent_id(agent_session_id: str) -> Session | None:
    """The session a Claude Code session id is linked to (hooks; the column is unique)."""
    row = fetch_one(sql.SESSION_BY_AGENT_ID.text, [agent_session_id])
    return None if row is None else SESSION_COLUMNS.build(row)


SESSIONS_SHOWN = 200  # the Sessions pages (§2 Sessions: newest activity first, up to 200)
PICKER_SHOWN = 100  # the task dialog's "Bind a session" menu


def _last_active() -> Greatest:
    """The later of the last hook activity and the last MCP write (never NULL)."""
    return Greatest(
        Coalesce("activity_at", "last_seen_at", "created_at"),
        Coalesce("last_seen_at", "activity_at", "created_at"),
    )


def _project_session_ids(project: Project) -> QuerySet:
    """Ids of the sessions bound to one of the project's tasks now (a subquery)."""
    return TaskBinding.objects.filter(unbound_at__isnull=True, task__project=project).values(
        "session_id"
    )


@dataclass(frozen=True)
class TaskRef:
    key: str
    slug: str  # its project: the task dialog is /p/<slug>?task=<key>


@dataclass(frozen=True)
class SessionRow:
    """One session as the board lists it: every value ready for the template."""

    id: int
    name: str
    kind: str
    title: str
    label: str
    agent: str  # whose hooks report it: "Claude Code", "Codex" or ""
    hook_status: str
    activity: str
    activity_at: datetime | None
    last_seen_at: datetime | None
    last_active_at: datetime  # the later of activity_at and last_seen_at (else created_at)
    cwd: str
    agent_exact: bool
    linked: bool
    unlinked_reason: str
    desktop_link: str | None
    tasks: tuple[TaskRef, ...]  # bound now, in every project

    @property
    def task_keys(self) -> tuple[str, ...]:
        return tuple(t.key for t in self.tasks)


def sessions_list(project: Project | None = None, limit: int = SESSIONS_SHOWN) -> list[SessionRow]:
    """Sessions for the board, newest activity first, with the tasks bound to them now.

    With a project: the sessions bound to one of its tasks now, and the hook rows the
    hooks placed in it. Two queries whatever the number of sessions.
    """
    rows = Session.objects.annotate(last_active=_last_active())
    if project is not None:
        rows = rows.filter(Q(project=project) | Q(id__in=_project_session_ids(project)))
    sessions = list(rows.order_by("-last_active", "-id")[:limit])
    refs: dict[int, list[TaskRef]] = {}
    if sessions:
        # Three plain values a binding, not a binding, task and project each.
        current = (
            TaskBinding.objects.filter(
                unbound_at__isnull=True, session_id__in=[s.id for s in sessions]
            )
            .order_by("task_id")
            .values_list("session_id", "task__key", "task__project__slug")
        )
        for session_id, key, slug in current:
            refs.setdefault(session_id, []).append(TaskRef(key, slug))
    return [
        SessionRow(
            id=s.id,
            name=s.name,
            kind=s.kind,
            title=s.title,
            label=label(s),
            agent=agent_title(s.agent),
            hook_status=s.hook_status,
            activity=s.activity,
            activity_at=s.activity_at,
            last_seen_at=s.last_seen_at,
            last_active_at=s.last_active,
            cwd=s.cwd,
            agent_exact=s.agent_exact,
            linked=bool(s.agent_session_id),
            unlinked_reason=s.unlinked_reason,
            desktop_link=desktop_link(s),
            tasks=tuple(refs.get(s.id, ())),
        )
        for s in sessions
    ]


def picker_sessions(
    project: Project, *, exclude: int | None = None, limit: int = PICKER_SHOWN
) -> list[tuple[Session, bool]]:
    """The "Bind a session" menu: (session, in the project), the project's sessions first,
    then the others, most recently seen first. One query."""
    in_project = Q(project=project) | Q(id__in=_project_session_ids(project))
    rows = Session.objects.annotate(
        last_active=_last_active(),
        in_project=Case(When(in_project, then=Value(1)), default=Value(0)),
    )
    if exclude is not None:
        rows = rows.exclude(pk=exclude)
    rows = rows.order_by("-in_project", "-last_active", "-id")[:limit]
    return [(s, bool(s.in_project)) for s in rows]


# --- hooks: the agent's todo, unlinked hook sessions (§4) -------------------------------


@dataclass(frozen=True)
class TodoItem:
    item_id: str
    subject: str
    status: str  # pending / in_progress / completed
    active_form: str
    position: int


@dataclass(frozen=True)
class TodoSummary:
    total: int
    done: int
    in_progress: str  # the active form (else the subject) of the first item in progress
    text: str  # "Todo 1/3 done; now: Writing the address book page"


def todo_for_session(session: Session) -> list[TodoItem]:
    """The session's current todo: the items written under its current Claude Code id."""
    if not session.agent_session_id:
        return []
    rows = SessionTodo.objects.filter(
        session=session, agent_session_id=session.agent_session_id
    ).order_by("position", "id")
    return [TodoItem(r.item_id, r.subject, r.status, r.active_form, r.position) for r in rows]


def todo_summary(session: Session) -> TodoSummary | None:
    """One line about the session's todo, or None when it has none."""
    items = todo_for_session(session)
    if not items:
        return None
    done = sum(1 for i in items if i.status == "completed")
    doing = next((i.active_form or i.subject for i in items if i.status == "in_progress"), "")
    text = f"Todo {done}/{len(items)} done" + (f"; now: {doing}" if doing else "")
    return TodoSummary(total=len(items), done=done, in_progress=doing, text=text)


def has_todo(task: Task) -> bool:
    """True when the session bound to the task has a current todo (§6 "no plan and no todo")."""
    return fetch_one(sql.HAS_TODO.text, [task.pk]) is not None


@dataclass(frozen=True)
class UnlinkedHookSession:
    """A hook session the hooks could not link (§4 step 4): Integrations page, Inbox."""

    id: int
    name: str
    agent_session_id: str
    cwd: str
    project: str  # the project slug it was placed in, or ""
    reason: str
    hook_status: str
    activity: str
    activity_at: datetime | None
    created_at: datetime


def unlinked_hook_sessions(limit: int = 100) -> list[UnlinkedHookSession]:
    """Hook sessions left unlinked with a reason and not ended, newest first. One query."""
    rows = (
        Session.objects.select_related("project")
        .filter(kind=KIND_HOOK)
        .exclude(unlinked_reason="")
        .exclude(hook_status=ENDED)
        .order_by("-id")[:limit]
    )
    return [
        UnlinkedHookSession(
            id=s.id,
            name=s.name,
            agent_session_id=s.agent_session_id or "",
            cwd=s.cwd,
            project=s.project.slug if s.project else "",
            reason=s.unlinked_reason,
            hook_status=s.hook_status,
            activity=s.activity,
            activity_at=s.activity_at,
            created_at=s.created_at,
        )
        for s in rows
    ]


@dataclass(frozen=True)
class WaitingSession:
    """A session waiting for an answer (sessions/waiting.py): what on, since when, and the
    open tasks bound to it (the values their rows show)."""

    name: str  # with its agent: "acme-shop (Codex)"
    summary: str
    since: datetime | None
    tasks: tuple[sql.BoundTask, ...]
    mark: str = ""  # its agent's two letters, as on its card


def _waiting() -> QuerySet[Session]:
    """Sessions waiting for an answer, but not those whose wait is a request in "Waiting for
    your approval": the Inbox lists each wait once, where it can be answered."""
    approving = ApprovalRequest.objects.filter(
        state=PENDING, deadline__gt=timezone.now(), session__isnull=False
    ).values("session_id")
    return Session.objects.filter(hook_status=WAITING).exclude(id__in=approving)


def waiting_count() -> int:
    """How many sessions wait now."""
    return _waiting().count()


def waiting_sessions(limit: int = 100) -> list[WaitingSession]:
    """Sessions waiting now, the longest wait first, with their open bound tasks."""
    return waiting_page(limit)[0]


def waiting_page(limit: int) -> tuple[list[WaitingSession], int]:
    """The first `limit` waiting sessions with their open bound tasks, and how many wait in
    all: two statements written once (sessions/sql.py), as _waiting()'s querysets read them,
    since compiling those cost the Inbox more than running them."""
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    found = fetch_all(sql.waiting_sessions(limit), [now])
    if not found:
        return [], 0
    sessions = [sql.WaitingRow._make(row) for row in found]
    bound: dict[int, list[sql.BoundTask]] = {s.id: [] for s in sessions}
    for row in fetch_all(sql.OPEN_BOUND_TASKS.text, [json.dumps(list(bound))]):
        task = sql.BoundTask._make(row)
        bound[task.session_id].append(task)
    moment = moments()
    waiting = [
        WaitingSession(
            named_with_agent(s.name, s.agent),
            s.activity,
            moment(s.activity_at),
            tuple(bound[s.id]),
            agent_mark(s.agent),
        )
        for s in sessions
    ]
    return waiting, sessions[0].total
