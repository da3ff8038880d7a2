"""A project's effort in one line (project_snapshot, issue 31), summed by SQLite.

The page needs each task's figures; the snapshot only their sums. Reading every task's
TaskEffort row to add them in Python cost ~100 ms at 2,000 tasks (issue 33: most of it the
JSON of each row's stage times, which a total never shows), so the sums are SQL: the agent
seconds as of each row's last event, plus the time since for the few rows whose agents are
working now (`Times.grown`'s rule), and the tokens per model priced at read time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, F, FloatField, Func, Q, Sum, Value
from django.utils import timezone

from sessions.effort.figures import SUMMED, Cost, Tokens, price_table, priced, summed
from sessions.models import TaskEffort, TokenUsage
from sessions.services.effort import effort_refresh
from tasks.models import Project, Task

UNIX_EPOCH_JULIAN_DAY = 2440587.5  # SQLite's julianday('1970-01-01')


@dataclass(frozen=True)
class Total:
    """A project's effort: its tasks' agent time, tokens and cost added up."""

    tasks: int
    agent_seconds: float
    tokens: Tokens
    cost: Cost


class _JulianDay(Func):
    function = "julianday"
    output_field = FloatField()


def _agent_seconds(project: Project, now: datetime, count: int) -> float:
    """The agent seconds of the project's `count` tasks grown to `now`, in one statement;
    tasks without a time row yet (older than issue 31) are replayed once first."""
    rows = TaskEffort.objects.filter(task__project=project)
    now_day = now.timestamp() / 86400 + UNIX_EPOCH_JULIAN_DAY
    since = (Value(now_day) - _JulianDay("as_of")) * Value(86400.0)
    sums = {
        "timed": Count("task_id"),
        "agent": Sum("agent_seconds"),
        "grown": Sum(F("agents_open") * since, filter=Q(agents_open__gt=0, as_of__lt=now)),
    }
    summed = rows.aggregate(**sums)
    if summed["timed"] < count:
        missing = Task.objects.filter(project=project).exclude(id__in=rows.values("task_id"))
        effort_refresh(missing)
        summed = rows.aggregate(**sums)
    return (summed["agent"] or 0.0) + (summed["grown"] or 0.0)


def _tokens(project: Project) -> tuple[Tokens, Cost]:
    table = price_table()
    tokens, cost = Tokens(), Cost()
    usage = (
        TokenUsage.objects.filter(task__project=project)
        .values("model")
        .annotate(**{k: Sum(k) for k in SUMMED})
    )
    for row in usage:
        part = summed(row)
        tokens += part
        cost += priced(row["model"], part, table)
    return tokens, cost


def project_total(project: Project, *, now: datetime | None = None) -> Total:
    """The project_snapshot line's figures: three small queries however many tasks."""
    now = now or timezone.now()
    count = Task.objects.filter(project=project).count()
    tokens, cost = _tokens(project)
    return Total(count, _agent_seconds(project, now, count), tokens, cost)
