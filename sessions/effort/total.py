"""A project's effort in one line (project_snapshot, issue 31), summed by SQLite.

The page needs each task's figures; the snapshot only their sums. Reading every task's
TaskEffort row to add them in Python cost ~85 ms at 2,000 tasks (issue 33: most of it the
JSON of each row's stage times, which a total never shows), so the sums are SQL written
once (compiling the querysets cost more than running them): the agent seconds as of each
row's last event plus, for the rows whose agents are working now, the time since
(`Times.grown`'s rule); and the tokens per model, priced at read time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from core.rows import fetch_all, fetch_one
from sessions.effort.figures import SUMMED, Cost, Tokens, price_table, priced
from sessions.models import EFFORT_TOTAL_INDEX, TaskEffort, TokenUsage
from sessions.services.effort import effort_refresh
from tasks.models import Project, Task

UNIX_EPOCH_JULIAN_DAY = 2440587.5  # SQLite's julianday('1970-01-01')
_EFFORT, _TASK, _USAGE = (m._meta.db_table for m in (TaskEffort, Task, TokenUsage))
# The project's task count, its time rows, their agent seconds and the working rows' time
# since their last event (julianday of the stored UTC text; never negative). The time rows
# are one stretch of the index of the project and those three columns: through the tasks
# and each row with its kilobyte of state, they cost 2 ms at 2,000 tasks (issue 33).
_TIME_SQL = (
    f'SELECT (SELECT COUNT(*) FROM "{_TASK}" WHERE "project_id" = %s), '  # noqa: S608
    'COUNT(*), COALESCE(SUM(e."agent_seconds"), 0), '
    'COALESCE(SUM(CASE WHEN e."agents_open" > 0 THEN e."agents_open" * '
    'MAX(0.0, (%s - julianday(e."as_of")) * 86400.0) ELSE 0 END), 0) '
    f'FROM "{_EFFORT}" e INDEXED BY "{EFFORT_TOTAL_INDEX}" WHERE e."project_id" = %s'
)
_SUMS = ", ".join(f'SUM(u."{k}")' for k in SUMMED)
_TOKENS_SQL = (
    f'SELECT u."model", {_SUMS} '  # noqa: S608
    f'FROM "{_USAGE}" u INNER JOIN "{_TASK}" t ON t."id" = u."task_id" '
    'WHERE t."project_id" = %s GROUP BY u."model" ORDER BY u."model"'
)


@dataclass(frozen=True)
class Total:
    """A project's effort: its tasks' agent time, tokens and cost added up."""

    tasks: int
    agent_seconds: float
    tokens: Tokens
    cost: Cost


def _times(project: Project, now: datetime) -> tuple[int, float]:
    """(tasks, agent seconds grown to `now`); tasks without a time row yet (older than
    issue 31) are replayed once first."""
    params = [project.id, now.timestamp() / 86400 + UNIX_EPOCH_JULIAN_DAY, project.id]
    tasks, timed, agent, grown = fetch_one(_TIME_SQL, params) or (0, 0, 0.0, 0.0)
    if timed < tasks:
        timed_ids = TaskEffort.objects.filter(project=project).values("task_id")
        effort_refresh(Task.objects.filter(project=project).exclude(id__in=timed_ids))
        tasks, timed, agent, grown = fetch_one(_TIME_SQL, params) or (0, 0, 0.0, 0.0)
    return tasks, float(agent) + float(grown)


def _tokens(project: Project) -> tuple[Tokens, Cost]:
    table = price_table()
    tokens, cost = Tokens(), Cost()
    for model, *sums in fetch_all(_TOKENS_SQL, [project.id]):
        part = Tokens(**{k: n or 0 for k, n in zip(SUMMED, sums, strict=True)})
        tokens += part
        cost += priced(model, part, table)
    return tokens, cost


def project_total(project: Project, *, now: datetime | None = None) -> Total:
    """The project_snapshot line's figures: two statements however many tasks (and the
    replay of tasks older than issue 31, once)."""
    tasks, agent = _times(project, now or timezone.now())
    tokens, cost = _tokens(project)
    return Total(tasks, agent, tokens, cost)
