"""The Inbox's task groups read with statements written once (tasks/selectors/sql.py): the
same rows, in the same order, with the same total as the querysets they replaced, kept here
as the twins. Rule warnings (warned_moves, WARNED_MOVE_ROWS) with the board's shown tasks only
(done in the window, with require_tracker_log done without the mark), warnings of several
lines, moves without warnings, and every limit; Agent replies (agent_replies) and Waiting
on you (WAITING_ON_VALUES, WAITING_ON_TASKS) on more rows than the limit, none, exactly the
limit, and ties in their order."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db.models import Count, F, Func, IntegerField, OuterRef, Subquery, Value
from django.utils import timezone

from core import actor as actors
from core.config import load_config
from core.display import stage_label
from tasks import services
from tasks.events import EventKind
from tasks.extensions import InboxRow
from tasks.models import COMMENT_AGENT, Comment, Event, Task
from tasks.selectors.activity import task_href
from tasks.selectors.comments import INBOX_DETAIL_MAX, agent_replies, excerpt
from tasks.selectors.inbox import (
    OPEN_STAGES,
    _is_owner,
    _warnings,
    not_archived,
    rule_warnings,
    rule_warnings_count,
    task_row,
    waiting_on_you,
)
from tests.tasks.factories import add_report, make_project, make_task

pytestmark = pytest.mark.django_db


def _queryset_group(limit: int | None) -> tuple[list[InboxRow], int]:
    """rule_warnings as the querysets built it."""
    last_move = (
        Event.objects.filter(task_id=OuterRef("pk"), kind=str(EventKind.TASK_STAGE_CHANGED))
        .order_by("-id")
        .values("id")[:1]
    )
    last_moves = Task.objects.filter(not_archived()).annotate(last=Subquery(last_move))
    length = Func(
        F("payload"), Value("$.warnings"), function="JSON_ARRAY_LENGTH", output_field=IntegerField()
    )
    warned = (
        Event.objects.filter(id__in=last_moves.values("last"), payload__has_key="warnings")
        .annotate(n=length)
        .filter(n__gt=0)
    )
    ids = list(warned.order_by("id").values_list("id", flat=True))
    shown = ids if limit is None else ids[:limit]
    rows = []
    for event in Event.objects.filter(id__in=shown).select_related("task__project").order_by("id"):
        warnings = _warnings(event.payload)
        move = f"{event.payload.get('from')} → {event.payload.get('to')}"
        more = f" (+{len(warnings) - 1} more)" if len(warnings) > 1 else ""
        rows.append(task_row(event.task, f"{move}: {warnings[0]}{more}"))
    return rows, len(ids)


def _configure(settings: Any, tmp_path: Path, tracker_log: bool) -> None:
    """Done tasks leave the Inbox at once; the tracker's work-log rule on or off."""
    environ = {"RELAYBAY_HOME": str(tmp_path / "home"), "RELAYBAY_DONE_WINDOW_DAYS": "0"}
    if tracker_log:
        environ["RELAYBAY_REQUIRE_TRACKER_LOG"] = "true"
    settings.RELAYBAY = load_config(environ=environ)


def _move(task: Task, stage: str) -> None:
    services.task_set_stage(key=task.key, stage=stage, actor=actors.BOARD)


@pytest.mark.parametrize("tracker_log", [False, True])
def test_rule_warnings_are_the_querysets_rows(settings, tmp_path: Path, tracker_log: bool) -> None:
    _configure(settings, tmp_path, tracker_log)
    acme, shop = make_project("acme", name="Acme «Shop»"), make_project("shop")
    warned = []
    for n in range(5):
        task = make_task(acme if n % 2 else shop, f"Needs a plan {n}", size="M")
        _move(task, "dev")  # warn mode: dev needs an accepted plan for size M
        warned.append(task)
    _move(warned[1], "done")  # done without progress: warned again, archived at once
    add_report(warned[2])
    _move(warned[2], "test")  # its last move has no warning
    quiet = make_task(shop, "Quiet")
    _move(quiet, "review")
    assert Event.objects.filter(payload__has_key="warnings").count() >= 5

    for limit in (None, 1, 2, 20):
        group = rule_warnings(limit)
        rows, total = _queryset_group(limit)
        assert (list(group.rows), group.total) == (rows, total)
        assert rule_warnings_count() == total  # the badge's count, from the same statement
    assert rule_warnings().total == (4 if tracker_log else 3)


# --- Agent replies (agent_replies) -----------------------------------------------

LIMITS = (None, 0, 1, 2, 3, 4, 20)


def _replies_queryset_group(limit: int | None) -> tuple[list[InboxRow], int]:
    """agent_replies as the queryset built it: every unread reply of the shown tasks, grouped
    in Python, newest first; the page cut it to `limit`."""
    replies = (
        Comment.objects.filter(author_kind=COMMENT_AGENT, read_at__isnull=True)
        .filter(not_archived("task__"))
        .select_related("task", "task__project")
        .order_by("-id")
    )
    seen: dict[int, list[Comment]] = {}
    for c in replies:
        seen.setdefault(c.task_id, []).append(c)
    rows = []
    for found in seen.values():
        newest = found[0]
        more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
        rows.append(
            InboxRow(
                title=newest.task.title,
                href=task_href(newest.task.project.slug, newest.task.key),
                detail=f"{newest.author_name}: {excerpt(newest.body, INBOX_DETAIL_MAX)}{more}",
                key=newest.task.key,
                project=newest.task.project.name,
            )
        )
    return (rows if limit is None else rows[:limit]), len(rows)


def _reply(task: Task, body: str, by: str = "alice") -> None:
    services.comment_add(key=task.key, body=body, actor=by)


@pytest.mark.parametrize("tracker_log", [False, True])
def test_agent_replies_are_the_querysets_rows(settings, tmp_path: Path, tracker_log: bool) -> None:
    _configure(settings, tmp_path, tracker_log)
    group = agent_replies(None)
    assert (group.rows, group.count) == ((), 0)
    acme, shop = make_project("acme", name="Acme «Shop»"), make_project("shop")
    first, second, third = (make_task(acme, f"Task {n}") for n in range(3))
    _reply(first, "one\n\n  spaced   out " + "long " * 60, by="bob")
    _reply(second, "two")
    _reply(first, "three")  # first's newest: first is listed before second
    _reply(third, "<b>four</b>")
    services.owner_comment_add(key=third.key, body="the owner's answer reads third's reply")
    quiet = make_task(shop, "Owner only")
    services.owner_comment_add(key=quiet.key, body="no reply here")
    archived = make_task(shop, "Closed")
    _reply(archived, "late")
    services.task_set_stage(key=archived.key, stage="done", actor=actors.BOARD)  # archived at once
    for n in range(2):
        _reply(make_task(shop, f"More {n}"), f"more {n}")

    for limit in LIMITS:
        group = agent_replies(limit)
        assert (list(group.rows), group.count) == _replies_queryset_group(limit)
    assert agent_replies(None).count == (5 if tracker_log else 4)


# --- Waiting on you (WAITING_ON_VALUES, WAITING_ON_TASKS) -------------------------


def _waiting_queryset_group(limit: int | None) -> tuple[list[InboxRow], int]:
    """waiting_on_you as its querysets built it: the distinct names with their counts, then
    the tasks naming the owner."""
    candidates = Task.objects.filter(stage__in=OPEN_STAGES).exclude(waiting_on="")
    is_owner = _is_owner()
    counts = candidates.values_list("waiting_on").annotate(n=Count("id")).order_by()
    owners = [(waiting_on, n) for waiting_on, n in counts if is_owner(waiting_on)]
    values = [waiting_on for waiting_on, _ in owners]
    tasks = (
        candidates.filter(waiting_on__in=values)
        .select_related("project")
        .only("key", "title", "stage", "next_step", "project__slug", "project__name")
        .order_by("updated_at", "id")
    )
    rows = []
    for task in (tasks if limit is None else tasks[:limit]) if values else ():
        detail = f"In {stage_label(task.stage)}"
        if task.next_step:
            detail += f" · next: {task.next_step}"
        rows.append(task_row(task, detail))
    return rows, sum(n for _, n in owners)


def test_waiting_on_you_is_the_querysets_rows(configure) -> None:
    configure(owner_names=("Ольга ", " boss"))
    acme, shop = make_project("acme", name="Acme «Shop»"), make_project("shop")
    make_task(acme, "Agent", waiting_on="agent-7")
    for limit in LIMITS:  # nobody waits on the owner yet
        group = waiting_on_you(limit)
        assert (list(group.rows), group.count) == _waiting_queryset_group(limit) == ([], 0)
    tied = [
        make_task(shop, "For Olga", waiting_on="ОЛЬГА", next_step="sign off"),
        make_task(acme, "For the boss", waiting_on=" Boss "),
        make_task(acme, "Boss again", waiting_on="boss", stage="review"),
    ]
    make_task(acme, "Not the owner", waiting_on="owner")
    make_task(acme, "Done, was waiting", waiting_on="boss", stage="done")
    make_task(acme, "Nobody", waiting_on="")
    later = make_task(shop, "Waiting longer", waiting_on="boss")
    same = timezone.now() - timedelta(hours=1)  # a tie: the id settles it
    Task.objects.filter(pk__in=[t.pk for t in tied]).update(updated_at=same)
    Task.objects.filter(pk=later.pk).update(updated_at=same - timedelta(hours=1))

    for limit in LIMITS:
        group = waiting_on_you(limit)
        assert (list(group.rows), group.count) == _waiting_queryset_group(limit)
    assert [row.title for row in waiting_on_you(2).rows] == ["Waiting longer", "For Olga"]
    assert waiting_on_you(2).count == 4
