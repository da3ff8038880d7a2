"""The Inbox's Rule warnings read with statements written once (tasks/sql.py warned_moves,
WARNED_MOVE_ROWS): the same rows, in the same order, with the same total as the querysets
they replaced, kept here as the twin — with the board's shown tasks only (done in the
window, with require_tracker_log done without the mark), warnings of several lines, moves
without warnings, and every limit."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db.models import F, Func, IntegerField, OuterRef, Subquery, Value

from core import actor as actors
from core.config import load_config
from tasks import services
from tasks.events import EventKind
from tasks.extensions import InboxRow
from tasks.models import Event, Task
from tasks.selectors.inbox import _warnings, not_archived, rule_warnings, task_row
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


def _move(task: Task, stage: str) -> None:
    services.task_set_stage(key=task.key, stage=stage, actor=actors.BOARD)


@pytest.mark.parametrize("tracker_log", [False, True])
def test_rule_warnings_are_the_querysets_rows(settings, tmp_path: Path, tracker_log: bool) -> None:
    environ = {"RELAYBAY_HOME": str(tmp_path / "home"), "RELAYBAY_DONE_WINDOW_DAYS": "0"}
    if tracker_log:
        environ["RELAYBAY_REQUIRE_TRACKER_LOG"] = "true"
    settings.RELAYBAY = load_config(environ=environ)
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
    assert rule_warnings().total == (4 if tracker_log else 3)
