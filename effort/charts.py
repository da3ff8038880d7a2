"""The geometry of the Effort charts: numbers in, shapes out. Pure.

The charts are inline SVG the server draws (no chart library, no script: the CSP stays).
Horizontal positions are percentages of the chart's width and vertical ones are pixels, with
no viewBox: a chart fills whatever width it gets, 390 px or 1440, while its text keeps its
size and stays readable (a viewBox would shrink the labels with the chart). Colours are
classes the stylesheet fills, so the dark scheme follows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

# Cost per day: the plot's height, the room above it (the top tick's label) and below it
# (the dates), in pixels.
PLOT_HEIGHT = 150
PLOT_TOP = 12
PLOT_BOTTOM = 22
CHART_HEIGHT = PLOT_TOP + PLOT_HEIGHT + PLOT_BOTTOM
BAR_GAP = 0.25  # of a day's slot, between two bars
DATE_LABELS = 5  # at most, first and last included
SERIES = 8  # tasks drawn on their own; the rest are "other"


def pct(value: float) -> str:
    """A percentage for an SVG attribute: "12.5%", at most three decimals."""
    text = f"{max(0.0, min(100.0, value)):.3f}".rstrip("0").rstrip(".")
    return f"{text}%"


def px(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


# --- a stage bar: one row of proportional parts ---------------------------------------------


@dataclass(frozen=True)
class Part:
    """One part of a proportional bar: its key, how much, where it starts and how wide."""

    key: str
    value: float
    share: float  # 0…1 of the whole
    x: str  # "12.5%"
    width: str


def parts(values: Sequence[tuple[str, float]]) -> list[Part]:
    """The non-empty parts of a bar, in the given order, side by side across 100 %."""
    whole = sum(v for _, v in values if v > 0)
    if whole <= 0:
        return []
    found, start = [], 0.0
    for key, value in values:
        if value <= 0:
            continue
        share = value / whole
        found.append(Part(key, value, share, pct(start * 100), pct(share * 100)))
        start += share
    return found


def bars(values: Sequence[tuple[str, float]]) -> list[Part]:
    """Bars that start at the left, each as long as its value against the longest (every
    key kept, an empty one with width 0 %)."""
    top = max((v for _, v in values), default=0.0)
    whole = sum(max(v, 0.0) for _, v in values)
    return [
        Part(
            key,
            value,
            value / whole if whole > 0 else 0.0,
            "0%",
            pct(value / top * 100 if top > 0 else 0),
        )
        for key, value in values
    ]


# --- cost per day, stacked by task ------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    """One series' part of one day's bar."""

    series: int  # index into StackedChart.series
    name: str  # the series' name
    value: float
    text: str  # the value as the tooltip says it
    y: str  # px from the top
    height: str


@dataclass(frozen=True)
class Column:
    label: str  # the day, as the tooltip says it
    total: float
    total_text: str
    x: str
    width: str
    segments: tuple[Segment, ...]


@dataclass(frozen=True)
class Tick:
    value: float
    text: str
    y: str


@dataclass(frozen=True)
class DateLabel:
    text: str
    x: str
    anchor: str  # start | middle | end


@dataclass(frozen=True)
class StackedChart:
    series: tuple[str, ...]
    columns: tuple[Column, ...]
    ticks: tuple[Tick, ...]
    dates: tuple[DateLabel, ...]
    height: int = CHART_HEIGHT
    baseline: str = px(PLOT_TOP + PLOT_HEIGHT)
    date_y: str = px(CHART_HEIGHT - 6)

    @property
    def empty(self) -> bool:
        return not any(c.total > 0 for c in self.columns)


NICE_STEPS = (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10)


def nice_top(value: float) -> float:
    """The axis' top: the next round figure (NICE_STEPS × 10^n) at or above `value`, so the
    highest bar fills most of the plot; 1 for nothing."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in NICE_STEPS:
        if value <= step * power * (1 + 1e-9):
            return step * power
    return 10 * power  # pragma: no cover - the loop's last step always holds


def ticks(top: float, fmt: Callable[[float], str] = str) -> list[Tick]:
    """0, half and the top of the axis, placed on the plot."""
    return [
        Tick(value, fmt(value), px(PLOT_TOP + PLOT_HEIGHT - value / top * PLOT_HEIGHT))
        for value in (0.0, top / 2, top)
    ]


def date_labels(days: Sequence[date], text: Callable[[date], str]) -> list[DateLabel]:
    """At most DATE_LABELS dates under their bars, evenly spread, the first and last kept."""
    n = len(days)
    if not n:
        return []
    if n == 1:
        return [DateLabel(text(days[0]), pct(50), "middle")]
    wanted = min(n, DATE_LABELS)
    picks = sorted({round(i * (n - 1) / (wanted - 1)) for i in range(wanted)})
    found = []
    for index in picks:
        if index == 0:
            found.append(DateLabel(text(days[index]), pct(0), "start"))
        elif index == n - 1:
            found.append(DateLabel(text(days[index]), pct(100), "end"))
        else:
            found.append(DateLabel(text(days[index]), pct((index + 0.5) * 100 / n), "middle"))
    return found


def stacked(
    days: Sequence[date],
    series: Sequence[str],
    values: Mapping[tuple[date, int], float],
    text: Callable[[date], str] = lambda d: d.strftime("%b %-d"),
    title: Callable[[date], str] = date.isoformat,
    fmt: Callable[[float], str] = lambda v: f"{v:g}",
) -> StackedChart:
    """One bar per day (or per the first day of a longer period), its parts the series'
    values stacked from the bottom in series order; `values` maps (day, series index) to an
    amount. `text` is a date under the axis, `title` a bar's tooltip, `fmt` a value's."""
    totals = [sum(values.get((day, s), 0.0) for s in range(len(series))) for day in days]
    top = nice_top(max(totals, default=0.0))
    slot = 100 / len(days) if days else 100.0
    columns = []
    for index, day in enumerate(days):
        segments, below = [], 0.0
        for s in range(len(series)):
            value = values.get((day, s), 0.0)
            if value <= 0:
                continue
            height = value / top * PLOT_HEIGHT
            y = PLOT_TOP + PLOT_HEIGHT - below - height
            segments.append(Segment(s, series[s], value, fmt(value), px(y), px(height)))
            below += height
        columns.append(
            Column(
                label=title(day),
                total=totals[index],
                total_text=fmt(totals[index]),
                x=pct(index * slot + slot * BAR_GAP / 2),
                width=pct(slot * (1 - BAR_GAP)),
                segments=tuple(segments),
            )
        )
    return StackedChart(
        series=tuple(series),
        columns=tuple(columns),
        ticks=tuple(ticks(top, fmt)),
        dates=tuple(date_labels(days, text)),
    )
