"""The Inbox's session groups read with statements written once (sessions/sql.py
WAITING_SESSIONS, OPEN_BOUND_TASKS, stuck_candidates, forgotten): the same rows, in the same
order, with the same total as the querysets they replaced, kept here as the twins — on
more sessions than the page shows, with none, exactly the limit, and ties in each group's
ordering (which the statements settle by id, as SQLite's scan gave the querysets)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from core.display import ago
from sessions import inbox, selectors
from sessions.hooks import forgotten, stuck
from sessions.hooks.registry import agent_mark, named_with_agent
from sessions.models import (
    ENDED,
    IDLE,
    PENDING,
    WAITING,
    WORKING,
    ApprovalRequest,
    Session,
    TaskBinding,
)
from tasks.events import EventKind
from tasks.extensions import InboxGroup, InboxRow
from tasks.models import Event, Task
from tasks.selectors.inbox import task_row
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db

NOW = timezone.now().replace(microsecond=0)
LIMITS = (None, 0, 1, 2, 3, 5, 100)


@pytest.fixture(autouse=True)
def _frozen(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """One moment for both twins, so their "ago" texts agree."""
    monkeypatch.setattr(timezone, "now", lambda: NOW)
    stuck.forget()
    yield
    stuck.forget()


def _session(name: str, status: str = WORKING, agent: str = "", **fields: Any) -> Session:
    fields.setdefault("created_at", NOW - timedelta(days=10))
    return Session.objects.create(
        name=name, kind="named", hook_status=status, agent=agent, **fields
    )


def _bind(task: Task, session: Session, bound_at: datetime, **fields: Any) -> TaskBinding:
    return TaskBinding.objects.create(task=task, session=session, bound_at=bound_at, **fields)


def _event(task: Task, kind: str, at: datetime) -> None:
    Event.objects.create(kind=kind, project=task.project, task=task, created_at=at)


def _both(ours: InboxGroup | None, theirs: InboxGroup | None) -> None:
    assert (ours is None) == (theirs is None)
    if ours is not None and theirs is not None:
        assert (list(ours.rows), ours.count) == (list(theirs.rows), theirs.count)
        assert (ours.id, ours.title, ours.link) == (theirs.id, theirs.title, theirs.link)


# --- Agents waiting for an answer ------------------------------------------------------------


def _waiting_queryset_group(limit: int | None) -> InboxGroup | None:
    """waiting_group as the querysets built it (sessions.selectors.waiting_sessions)."""
    wanted = inbox.WAITING_SHOWN if limit is None else min(limit, inbox.WAITING_SHOWN)
    approving = ApprovalRequest.objects.filter(
        state=PENDING, deadline__gt=timezone.now(), session__isnull=False
    ).values("session_id")
    waiting = Session.objects.filter(hook_status=WAITING).exclude(id__in=approving)
    sessions = list(waiting.order_by("activity_at", "id")[:wanted])
    if not sessions:
        return None
    bound: dict[int, list[Task]] = {s.id: [] for s in sessions}
    bindings = (
        TaskBinding.objects.select_related("task__project")
        .filter(session_id__in=bound, unbound_at__isnull=True)
        .exclude(task__stage="done")
        .order_by("task_id")
    )
    for binding in bindings:
        bound[binding.session_id].append(binding.task)
    total = None
    if len(sessions) == wanted < inbox.WAITING_SHOWN:
        total = min(waiting.count(), inbox.WAITING_SHOWN)
    rows = []
    for s in sessions:
        since = ago(s.activity_at, NOW) if s.activity_at else "a while"
        detail = f"waiting since {since}: {s.activity}" if s.activity else f"waiting since {since}"
        by, mark = named_with_agent(s.name, s.agent), agent_mark(s.agent)
        if bound[s.id]:
            rows.append(task_row(bound[s.id][0], detail, by=by, mark=mark))
        else:
            rows.append(InboxRow(title=by, href=reverse("sessions"), detail=detail, mark=mark))
    return InboxGroup(
        id=inbox.WAITING_ID, title="Agents waiting for an answer", rows=tuple(rows), total=total
    )


def test_waiting_sessions_are_the_querysets_rows() -> None:
    assert inbox.waiting_group() is None
    assert _waiting_queryset_group(None) is None
    acme, shop = make_project("acme", name="Acme «Shop»"), make_project("shop")
    same = NOW - timedelta(minutes=7)  # a tie: the id settles it
    waits = [
        _session("w-none", WAITING, activity_at=None),  # NULL first, as SQLite orders it
        _session("w-tie-b", WAITING, "codex", activity="Bash: make deploy", activity_at=same),
        _session("w-tie-a", WAITING, "claude-code", activity="AskUserQuestion", activity_at=same),
        _session("w-old", WAITING, activity="plan", activity_at=NOW - timedelta(hours=3)),
        _session("w-approving", WAITING, activity_at=NOW - timedelta(hours=5)),
        _session("w-timed-out", WAITING, activity_at=NOW - timedelta(hours=4)),
    ]
    _session("working", WORKING, activity_at=NOW - timedelta(hours=9))
    for session, deadline in ((waits[4], NOW + timedelta(minutes=5)), (waits[5], NOW)):
        ApprovalRequest.objects.create(
            session=session,
            agent="claude-code",
            source="cli",
            tool="Bash",
            requested_at=NOW - timedelta(minutes=9),
            deadline=deadline,  # at NOW: no longer pending in time, so it waits here
        )
    two, one = make_task(shop, "Second bound"), make_task(acme, "First bound")
    done = make_task(acme, "Done bound", stage="done")
    _bind(one, waits[1], NOW)
    _bind(two, waits[1], NOW)
    _bind(done, waits[2], NOW)  # done: not shown, the session's row points at Sessions
    _bind(make_task(acme, "Unbound since"), waits[3], NOW, unbound_at=NOW)
    _bind(make_task(acme, "Timed-out's task", next_step="x"), waits[5], NOW)

    for limit in LIMITS:
        _both(inbox.waiting_group(limit), _waiting_queryset_group(limit))
    assert inbox.waiting_group(3).count == 5  # type: ignore[union-attr]


# --- Possibly stuck --------------------------------------------------------------------------


def _stuck_queryset_group(limit: int | None) -> InboxGroup | None:
    """stuck_group as the querysets built it: the working bindings judged, then the shown ones
    read again with their session and task."""
    repeats = stuck._stuck_repeats()
    wanted = set(repeats)
    if settings.RELAYBAY.stuck_minutes > 0:
        wanted |= set(Session.objects.filter(hook_status=WORKING).values_list("id", flat=True))
    if not wanted:
        return None
    rows = (
        TaskBinding.objects.filter(session_id__in=wanted, unbound_at__isnull=True)
        .exclude(task__stage="done")
        .annotate(wrote=stuck._last_progress())
        .order_by("task_id")
        .values_list("task_id", "session_id", "bound_at", "session__hook_status", "wrote")
    )
    judged: dict[int, tuple[datetime, int, int, str]] = {}
    for task_id, session_id, bound_at, status, wrote in rows:
        if task_id not in judged:
            found = stuck._judged(session_id, bound_at, status, wrote, repeats, NOW)
            if found is not None:
                judged[task_id] = (found[1], task_id, session_id, found[0])
    ordered = sorted(judged.values(), key=lambda j: j[0])
    if not ordered:
        return None
    shown = []
    for since, task_id, _, reason in ordered[:limit]:
        b = TaskBinding.objects.select_related("session", "task__project").get(
            task_id=task_id, unbound_at__isnull=True
        )
        by, mark = named_with_agent(b.session.name, b.session.agent), agent_mark(b.session.agent)
        detail = f"{reason} · since {ago(since, NOW)}"
        shown.append(task_row(b.task, detail, by=by, mark=mark))
    return InboxGroup(
        id=stuck.GROUP_ID, title="Possibly stuck", rows=tuple(shown), total=len(ordered)
    )


def _repeat(session: Session, tool: str, at: datetime) -> None:
    with stuck._repeats.lock:
        repeat = stuck._repeats.setdefault(session.pk, stuck.Repeat)
        repeat.digest, repeat.tool, repeat.count, repeat.stuck_at = "d", tool, 5, at


@pytest.mark.parametrize("minutes", [45, 0])
def test_stuck_rows_are_the_querysets_rows(configure: Any, minutes: int) -> None:
    configure(stuck_minutes=minutes)
    assert stuck.stuck_group() is None
    assert _stuck_queryset_group(None) is None
    acme, shop = make_project("acme", name="Acme «Shop»"), make_project("shop")
    hour = NOW - timedelta(hours=1)  # a tie: three bindings quiet since the same moment
    for n in range(3):
        _bind(make_task(shop if n % 2 else acme, f"Tied {n}"), _session(f"tie-{n}"), hour)
    wrote = make_task(acme, "Wrote lately")
    _bind(wrote, _session("wrote", agent="codex"), NOW - timedelta(hours=5))
    _event(wrote, str(EventKind.REPORT_ADDED), NOW - timedelta(minutes=5))  # progress: not stuck
    late = make_task(acme, "Wrote long ago")
    _bind(late, _session("late", agent="claude-code"), NOW - timedelta(hours=9))
    _event(late, str(EventKind.PLAN_STEP_UPDATED), NOW - timedelta(hours=2))
    _event(late, str(EventKind.COMMENT_ADDED), NOW - timedelta(minutes=1))  # not progress
    _bind(make_task(acme, "Done", stage="done"), _session("done-work"), NOW - timedelta(days=1))
    _bind(make_task(acme, "Once"), _session("old-bind"), hour, unbound_at=NOW)
    idle = _session("idle-repeating", IDLE)  # a repeat counts whatever its status
    _bind(make_task(shop, "Repeated"), idle, NOW - timedelta(minutes=3))
    _repeat(idle, "Bash", NOW - timedelta(minutes=2))
    cleared = _session("cleared", agent="codex")  # a repeat followed by progress
    task = make_task(shop, "Cleared")
    _bind(task, cleared, NOW - timedelta(hours=2))
    _repeat(cleared, "Read", NOW - timedelta(hours=1, minutes=30))
    _event(task, str(EventKind.TASK_UPDATED), NOW - timedelta(hours=1))

    for limit in LIMITS:
        _both(stuck.stuck_group(limit), _stuck_queryset_group(limit))
    assert stuck.stuck_group().count == (6 if minutes else 1)  # type: ignore[union-attr]


# --- Forgotten sessions ----------------------------------------------------------------------


def _forgotten_queryset_group(limit: int | None) -> InboxGroup | None:
    """forgotten_group as the querysets built it: every forgotten session whole (the
    queryset the sweep and the Sessions page still read), then cut."""
    ordered = [(f.session, f.reason, f.since) for f in forgotten.forgotten_sessions(NOW)]
    if not ordered:
        return None
    rows = []
    for s, reason, _ in ordered[:limit]:
        desktop = selectors.desktop_link(s) or ""
        where = "open it in desktop, or " if desktop else ""
        rows.append(
            InboxRow(
                title=named_with_agent(s.title or s.name, s.agent),
                href=desktop or reverse("sessions"),
                detail=f"{reason} · {where}bind it from a task's Session panel",
                project=s.project.name if s.project_id and s.project else "",
                action_url=reverse("session_dismiss", args=[s.pk]),
                action_label="Dismiss",
            )
        )
    return InboxGroup(
        id=forgotten.GROUP_ID, title="Forgotten sessions", rows=tuple(rows), total=len(ordered)
    )


def _forgotten_sessions() -> None:
    """Idle ones (each way their last moment is read), working ones with no task, one both,
    and ties within each part and across the two."""
    acme = make_project("acme", name="Acme «Shop»")
    day, tie = NOW - timedelta(days=2), NOW - timedelta(hours=30)
    _session("idle-activity", IDLE, "codex", activity_at=day, project=acme, title="Checkout")
    _session("idle-seen", "", last_seen_at=NOW - timedelta(days=3))
    _session("idle-made", IDLE, created_at=NOW - timedelta(days=4))
    for name in ("tie-b", "tie-a", "tie-c"):
        _session(name, WAITING, "claude-code", activity_at=tie)
    _session("ended", ENDED, activity_at=day)
    _session("recent", IDLE, activity_at=NOW - timedelta(hours=1))
    desktop = Session.objects.create(
        name="desk", kind="desktop", desktop_id="local_1", hook_status=IDLE, created_at=day
    )
    assert desktop.pk
    made = NOW - timedelta(hours=30)  # ties with the idle ones' moment: idle first
    for name in ("unbound-b", "unbound-a"):
        _session(name, WORKING, activity_at=NOW - timedelta(minutes=2), created_at=made)
    _session("unbound-new", WORKING, activity_at=NOW, created_at=NOW - timedelta(minutes=11))
    old = NOW - timedelta(hours=40)  # idle for a day, and unbound in a 2000-minute window
    both = _session("both", WORKING, activity_at=NOW - timedelta(hours=25), created_at=old)
    bound = _session("bound", WORKING, activity_at=NOW, created_at=made)
    _bind(make_task(acme, "Bound"), bound, NOW)
    assert both.pk


@pytest.mark.parametrize(
    ("hours", "minutes", "shown"),
    [(24, 10, 100), (24, 10, 3), (24, 0, 100), (0, 10, 100), (0, 0, 100), (24, 2000, 100)],
)
def test_forgotten_rows_are_the_querysets_rows(
    monkeypatch: pytest.MonkeyPatch, configure: Any, hours: int, minutes: int, shown: int
) -> None:
    configure(
        forgotten_idle_hours=hours,
        forgotten_unbound_minutes=minutes,
        desktop_link_template="claude://resume?session={id}",
    )
    monkeypatch.setattr(forgotten, "SHOWN", shown)
    assert forgotten.forgotten_group() is None
    assert _forgotten_queryset_group(None) is None
    _forgotten_sessions()
    for limit in LIMITS:
        _both(forgotten.forgotten_group(limit), _forgotten_queryset_group(limit))
    group = forgotten.forgotten_group()
    if hours and minutes and shown == 100:
        assert group is not None
        assert [row.title.split(" ")[0] for row in group.rows][:3] == [
            "idle-made",
            "idle-seen",
            "Checkout",
        ]
