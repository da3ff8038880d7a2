"""The Effort page's tasks as plain values: one Line per task of the filters, with
what sorting, the totals and the charts need. A Row, with its Effort, words and links, is made
for the rows shown only (page.py): at 90 days or all time every task of the project is a
line, and ~30 µs of objects per task was most of the page.

Two queries however many tasks (three when some have no time tally yet): the tasks of the filters
with their time tallies, and their tokens (project.project_usage).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from core.display import STAGES
from core.rows import fetch_all
from effort import sql
from effort.intervals import Times
from effort.project import Part, moment, project_usage, untimed_times
from effort.sql import SUMMED
from tasks.models import Project

# What a row shows of its task (a task's texts are not read).
TASK_FIELDS, TEXT_FIELDS, TIME_COLUMNS = sql.TASK_FIELDS, sql.TEXT_FIELDS, sql.TIME_COLUMNS
WIDTH = len(TASK_FIELDS)
TIMES_END = WIDTH + len(TIME_COLUMNS)


@dataclass(frozen=True, slots=True)
class TaskLine:
    """What a row shows of its task (TASK_FIELDS), read as plain values: 2,000 model
    instances cost the page more than every other read together."""

    id: int
    project_id: int
    number: int
    key: str
    title: str
    stage: str
    created_at: datetime
    updated_at: datetime


@dataclass(slots=True)
class Line:
    """One task of the filters: its figures as plain numbers, time grown to now."""

    id: int
    key: str
    title: str
    created: str  # as stored, UTC text: it sorts as the time does
    values: tuple  # the row as read (_tasks_sql)
    times: Times | None  # grown to now when untimed (no tally); else made from `values`
    parts: list[Part]  # tokens by model
    usd: float
    unpriced: tuple[str, ...]
    tokens: int
    agent: float
    wall: float
    waiting: float
    sessions: int
    turns: int
    stages: tuple[float, ...]  # seconds per STAGES

    def task(self) -> TaskLine:
        v = self.values
        return TaskLine(*v[:6], moment(v[6]), moment(v[7]))

    def counts(self) -> tuple[int, ...]:
        """Its tokens by kind, in SUMMED's order (Tokens' fields)."""
        if len(self.parts) == 1:
            return self.parts[0][1]
        if not self.parts:
            return (0,) * len(SUMMED)
        return tuple(sum(kind) for kind in zip(*(c for _, c, _ in self.parts), strict=True))


def _line(
    values: tuple, times: Times | None, parts: list[Part] | None, now: datetime, utc_now: datetime
) -> Line:
    """A task's Line: its tally's figures (or `times`, untimed) grown to now, the way
    Times.grown does, and its tokens added up the way project.effort_from does. `utc_now`
    is `now` naive in UTC, as the tally's as_of is stored: the same difference, parsed once."""
    parts = parts or []
    if times is not None:
        times = grown = times.grown(now)
        agent, wall, waiting = grown.agent_seconds, grown.wall_seconds, grown.waiting_seconds
        sessions, turns = grown.sessions, grown.turns
        stages = tuple(grown.stage_seconds.get(s, 0.0) for s in STAGES)
    else:
        as_of, stage, _, agent, wall, waiting, agents_open, waiting_open, sessions, turns = values[
            WIDTH:TIMES_END
        ]
        gap = (utc_now - datetime.fromisoformat(as_of)).total_seconds()
        seconds = list(values[TIMES_END:])  # floats already (sql.effort_lines)
        if gap > 0:
            agent += gap * agents_open
            wall += gap if agents_open else 0.0
            waiting += gap if waiting_open else 0.0
            if stage in STAGES:
                seconds[STAGES.index(stage)] += gap
        stages = tuple(seconds)
    if len(parts) == 1:
        model, c, usd = parts[0]
        unpriced = () if usd is not None else (model,)
        usd = usd if usd is not None else 0.0
        tokens = c[2] + c[3] + c[4] + c[5]  # input, output and the caches: Tokens.total
    elif not parts:
        usd, unpriced, tokens = 0.0, (), 0
    else:
        usd = sum(c for _, _, c in parts if c is not None)
        unpriced = tuple(m for m, _, c in parts if c is None)
        tokens = sum(c[2] + c[3] + c[4] + c[5] for _, c, _ in parts)
    return Line(
        values[0], values[3], values[4], values[6], values, times, parts, usd, unpriced,
        tokens, agent, wall, waiting, sessions, turns, stages,
    )  # fmt: skip


def lines(
    project: Project, stage: str, start: datetime | None, since: date | None, now: datetime
) -> list[Line]:
    """The tasks of the filters, newest first: of `stage` ("" = all), and from `start` (a
    time range's first moment; None = all time) changed, worked on or with tokens counted
    from `since`, the range's first day."""
    after = "" if start is None else start.astimezone(UTC).replace(tzinfo=None).isoformat(" ")
    first_day = "" if since is None else since.isoformat()
    read = fetch_all(sql.effort_lines(), [project.id, stage, stage, after, after, first_day])
    missing = [
        TaskLine(*v[:6], moment(v[6]), moment(v[7])) for v in read if v[WIDTH] is None
    ]  # no tally (none after the one-time backfill): no time yet, and nothing written
    times = untimed_times(missing)
    usage = project_usage(project, since)
    found = []
    utc_now = now.astimezone(UTC).replace(tzinfo=None)
    for values in read:
        task_times = times.get(values[0])
        parts = usage.get(values[0])
        if task_times is not None and not (
            start is None or parts or task_times.agents_open > 0 or moment(values[7]) >= start
        ):
            continue  # untimed and outside the range
        found.append(_line(values, task_times, parts, now, utc_now))
    return found
