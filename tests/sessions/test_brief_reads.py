"""The resume brief's reads are statements written once (sessions/sql.py, every new
binding's answer carries the brief): each gives what the queryset it replaced gave, on a
task with reports, read and unread comments of both kinds, more decisions than are shown
and a superseded one, and paths touched in and out of its sessions' bindings."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.rows import fetch_all, fetch_one
from sessions import brief, sql, touched
from sessions.models import Session, TaskBinding, TouchedPath
from sessions.services import task_bind_session, task_unbind_session
from tasks import services
from tasks.models import COMMENT_OWNER, Comment, Decision, Report
from tests.tasks.factories import ACTOR, add_decision, add_report, make_project, make_task

pytestmark = pytest.mark.django_db


def _orm_paths(task, since, limit):  # type: ignore[no-untyped-def]
    """The queryset walk the statement replaced (sessions/touched.py before it)."""
    windows = list(
        TaskBinding.objects.filter(task=task)
        .exclude(unbound_at__lt=since)
        .values_list("session_id", "bound_at", "unbound_at")
    )
    rows = TouchedPath.objects.filter(
        session_id__in={w[0] for w in windows}, touched_at__gte=since
    ).order_by("-touched_at", "path")
    found: list[str] = []
    for session_id, path, at in rows.values_list("session_id", "path", "touched_at"):
        bound = any(
            s == session_id and start <= at and (end is None or at < end)
            for s, start, end in windows
        )
        if bound and path not in found and len(found) < limit:
            found.append(path)
    return found


def test_the_brief_reads_equal_the_querysets() -> None:
    project = make_project("acme")
    task = make_task(project, "Login")
    other = make_task(project, "Other")
    add_report(task, body="changed · M · first\n\nolder text")
    add_report(task, body="verified · M · second\n\nThe newest «text».")
    add_report(other, body="changed · S · not this task")
    for n in range(3):
        services.owner_comment_add(key=task.key, body=f"Owner note {n}", actor=ACTOR)
    Comment.objects.filter(task=task, body="Owner note 2").update(read_at=timezone.now())
    ids = [add_decision(project, f"Decision {n}", task=task.key).id for n in range(5)]
    add_decision(project, "Replaces 0", task=task.key, supersedes=ids[0])
    task_bind_session(task=task.key, session="alice", actor=ACTOR)
    now = timezone.now()
    alice = Session.objects.get(name="alice")
    task_unbind_session(task=task.key, actor=ACTOR)
    task_bind_session(task=task.key, session="bob", actor=ACTOR)
    bob = Session.objects.get(name="bob")
    for session, path, minutes in [
        (alice, "src/a.py", -1),  # before alice was bound: not hers for this task
        (alice, "src/b.py", 0),
        (bob, "src/c.py", 1),
        (bob, "src/b.py", 2),
        (bob, "src/z.py", 2),
        (bob, "old.py", -200),  # older than two hours
    ]:
        at = now + timedelta(minutes=minutes, seconds=1)
        TouchedPath.objects.update_or_create(
            session=session, path=path, defaults={"project": project, "touched_at": at}
        )
    TaskBinding.objects.filter(session=alice).update(bound_at=now)

    report = Report.objects.filter(task=task).order_by("-id").first()
    assert fetch_one(sql.BRIEF_REPORT.text, [task.pk]) == (report.summary, report.body)

    unread = Comment.objects.filter(task=task, author_kind=COMMENT_OWNER, read_at=None)
    newest = unread.order_by("-id").values_list("id", "body").first()
    found = sql.NewestUnread(*fetch_one(sql.BRIEF_UNREAD.text, [task.pk, COMMENT_OWNER]))
    assert (found.id, found.body, found.count) == (*newest, unread.count())

    current = Decision.objects.filter(task=task, superseded_at=None).order_by("-id")
    rows = [sql.CurrentDecision(*r) for r in fetch_all(sql.brief_decisions(3), [task.pk])]
    assert [r.text for r in rows] == list(current.values_list("text", flat=True)[:3])
    assert {r.count for r in rows} == {current.count()} == {5}

    later = now + timedelta(minutes=5)
    for limit in (1, 2, 11):
        since = later - touched.KEPT
        assert touched.recent_paths(task, limit=limit, now=later) == _orm_paths(task, since, limit)
    assert touched.recent_paths(task, now=later) == ["src/b.py", "src/z.py", "src/c.py"]
    assert "Decisions (newest first): Replaces 0 | Decision 4 | Decision 3 (+2 more)" in (
        brief.brief([task], now=later)
    )


def test_a_task_with_nothing_to_say_reads_no_lines() -> None:
    task = make_task(make_project("acme"), "Quiet")
    assert fetch_one(sql.BRIEF_REPORT.text, [task.pk]) is None
    assert fetch_one(sql.BRIEF_UNREAD.text, [task.pk, COMMENT_OWNER]) is None
    assert fetch_all(sql.brief_decisions(3), [task.pk]) == []
    assert touched.recent_paths(task) == []
