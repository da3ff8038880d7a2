"""The Effort page's two charts: cost per day stacked by task, and time per stage
across the tasks, as values for the server-drawn SVG (effort/charts.py). Reads only:
one query for the cost per day, whatever the number of tasks.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from core.display import STAGES, stage_label
from effort import charts, words
from effort.panel import BAR_STAGES
from effort.project import project_per_day
from tasks.models import Project

if TYPE_CHECKING:
    from effort.lines import Line

WEEKLY_AFTER = 92  # days: a longer chart has one bar per week


@dataclass(frozen=True)
class LegendEntry:
    css: str  # the series' colour class: ef-s0 … ef-s7, and ef-s8 for "other"
    label: str
    title: str
    cost: str


@dataclass(frozen=True)
class CostChart:
    chart: charts.StackedChart
    legend: tuple[LegendEntry, ...]
    total: str
    weekly: bool


def _days(since: date | None, today: date, spent: dict[tuple[date, int], float]) -> list[date]:
    first = since or min((day for day, _ in spent), default=today)
    return [first + timedelta(days=n) for n in range((today - first).days + 1)]


def cost_chart(
    project: Project, found: list[Line], since: date | None, today: date, stage: str = ""
) -> CostChart:
    """Cost per day stacked by task: the SERIES costliest tasks of the range (`found`, the
    page's lines of the range and stage), the rest as "other"; one bar a week when the range
    is longer than WEEKLY_AFTER days."""
    paid = [line for line in found if line.usd > 0]
    # The dearest first, ties by task id: the few drawn picked, not 2,000 lines sorted twice.
    drawn = heapq.nsmallest(charts.SERIES, paid, key=lambda line: (-line.usd, line.id))
    index = {task.id: n for n, task in enumerate(drawn)}
    other = len(drawn) if len(paid) > len(drawn) else None
    spent = {
        key: usd
        for key, usd in project_per_day(project, list(index), since, today, stage).items()
        if usd > 0
    }
    days = _days(since, today, spent)
    weekly = len(days) > WEEKLY_AFTER
    bucket = (lambda d: d - timedelta(days=d.weekday())) if weekly else (lambda d: d)
    buckets = sorted({bucket(d) for d in days})
    values: dict[tuple[date, int], float] = defaultdict(float)
    per_series: dict[int, float] = defaultdict(float)
    for (day, task_id), usd in spent.items():
        series = index.get(task_id, other)
        if series is not None:
            values[(bucket(day), series)] += usd
            per_series[series] += usd
    keys = [task.key for task in drawn] + (["other"] if other is not None else [])
    chart = charts.stacked(
        buckets,
        keys,
        values,
        title=(lambda d: f"week of {d.isoformat()}") if weekly else date.isoformat,
        fmt=words.usd,
    )
    legend = [
        LegendEntry(f"ef-s{n}", task.key, task.title, words.usd(per_series[n]))
        for n, task in enumerate(drawn)
    ]
    if other is not None:
        count = len(paid) - len(drawn)
        legend.append(
            LegendEntry(
                f"ef-s{other}", "other", f"{count} more tasks", words.usd(per_series[other])
            )
        )
    return CostChart(
        chart=chart,
        legend=tuple(legend),
        total=words.usd(sum(per_series.values())),
        weekly=weekly,
    )


@dataclass(frozen=True)
class StageBar:
    stage: str
    label: str
    time: str
    share: str
    width: str


def stage_chart(found: list[Line]) -> list[StageBar]:
    """Time per stage over the lines' tasks (their whole lives), one bar per stage."""
    shown = [STAGES.index(stage) for stage in BAR_STAGES]  # Line.stages are all STAGES'
    sums = [0.0] * len(BAR_STAGES)
    for line in found:
        for n, at in enumerate(shown):
            sums[n] += line.stages[at]
    seconds = dict(zip(BAR_STAGES, sums, strict=True))
    if not any(seconds.values()):
        return []
    return [
        StageBar(
            p.key,
            stage_label(p.key),
            words.duration(p.value),
            f"{round(p.share * 100)}%",
            p.width,
        )
        for p in charts.bars(list(seconds.items()))
    ]
