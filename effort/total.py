"""A project's effort in one line (project_snapshot), summed by SQLite.

The page needs each task's figures; the snapshot only their sums. Reading every task's
TaskEffort row to add them in Python cost ~85 ms at 2,000 tasks (most of it the
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
from effort import sql
from effort.figures import SUMMED, Cost, Tokens, price_table, priced
from tasks.models import Project

UNIX_EPOCH_JULIAN_DAY = 2440587.5  # SQLite's julianday('1970-01-01')


@dataclass(frozen=True)
class Total:
    """A project's effort: its tasks' agent time, tokens and cost added up."""

    tasks: int
    agent_seconds: float
    tokens: Tokens
    cost: Cost


def _times(project: Project, now: datetime) -> tuple[int, float]:
    """(tasks, agent seconds grown to `now`); a task without a time row counts no time."""
    params = [project.id, now.timestamp() / 86400 + UNIX_EPOCH_JULIAN_DAY, project.id]
    tasks, _timed, agent, grown = fetch_one(sql.TIME_TOTAL.text, params) or (0, 0, 0.0, 0.0)
    return tasks, float(agent) + float(grown)


def _tokens(project: Project) -> tuple[Tokens, Cost]:
    table = price_table()
    tokens, cost = Tokens(), Cost()
    for model, *sums in fetch_all(sql.TOKEN_TOTALS.text, [project.id]):
        part = Tokens(**{k: n or 0 for k, n in zip(SUMMED, sums, strict=True)})
        tokens += part
        cost += priced(model, part, table)
    return tokens, cost


def project_total(project: Project, *, now: datetime | None = None) -> Total:
    """The project_snapshot line's figures: two statements however many tasks, no write."""
    tasks, agent = _times(project, now or timezone.now())
    tokens, cost = _tokens(project)
    return Total(tasks, agent, tokens, cost)
