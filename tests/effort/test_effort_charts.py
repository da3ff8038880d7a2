"""The geometry of the Effort charts (effort/charts.py, issue 31): pure numbers in,
SVG places out — percent across, pixels down."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from effort import charts
from effort.charts import PLOT_HEIGHT, PLOT_TOP

BASE = PLOT_TOP + PLOT_HEIGHT  # the zero line, in px from the top


def days(n: int) -> list[date]:
    return [date(2026, 12, 1) + timedelta(days=i) for i in range(n)]


@pytest.mark.parametrize(
    ("value", "text"),
    [(0, "0%"), (12.5, "12.5%"), (100 / 3, "33.333%"), (100, "100%"), (-4, "0%"), (130, "100%")],
)
def test_a_percentage_has_at_most_three_decimals_and_stays_within_the_chart(value, text) -> None:
    assert charts.pct(value) == text


def test_the_parts_of_a_bar_sit_side_by_side_across_the_whole_width() -> None:
    found = charts.parts([("plan", 1.0), ("dev", 0.0), ("review", 3.0)])

    assert [(p.key, p.x, p.width) for p in found] == [
        ("plan", "0%", "25%"),
        ("review", "25%", "75%"),
    ]
    assert [p.share for p in found] == [0.25, 0.75]
    assert charts.parts([("plan", 0.0)]) == []


def test_bars_start_at_the_left_and_the_longest_fills_the_width() -> None:
    found = charts.bars([("plan", 30.0), ("dev", 120.0), ("live", 0.0)])

    assert [(p.key, p.x, p.width) for p in found] == [
        ("plan", "0%", "25%"),
        ("dev", "0%", "100%"),
        ("live", "0%", "0%"),
    ]
    assert [round(p.share, 2) for p in found] == [0.2, 0.8, 0.0]
    assert [p.width for p in charts.bars([("plan", 0.0)])] == ["0%"]


@pytest.mark.parametrize(
    ("value", "top"),
    [(0, 1), (0.0072, 0.008), (0.8, 0.8), (1.3, 1.5), (2.4, 2.5), (3.2, 4), (7, 8), (12, 15)],
)
def test_the_axis_top_is_a_round_figure_at_or_above_the_highest_bar(value, top) -> None:
    assert charts.nice_top(value) == pytest.approx(top)


def test_each_day_is_a_bar_of_its_tasks_stacked_from_the_bottom() -> None:
    d = days(4)
    values = {(d[0], 0): 1.0, (d[0], 1): 0.5, (d[2], 1): 2.0}

    chart = charts.stacked(d, ["acme-1", "acme-2"], values, fmt=lambda v: f"${v:.2f}")

    assert [c.x for c in chart.columns] == ["3.125%", "28.125%", "53.125%", "78.125%"]
    assert {c.width for c in chart.columns} == {"18.75%"}  # a quarter, less the gap
    first = chart.columns[0].segments
    assert [(s.series, s.name, s.text) for s in first] == [
        (0, "acme-1", "$1.00"),
        (1, "acme-2", "$0.50"),
    ]
    # The axis tops at 2 (the highest day): 1.0 is half the plot, 0.5 a quarter above it.
    assert (float(first[0].y), float(first[0].height)) == (BASE - PLOT_HEIGHT / 2, PLOT_HEIGHT / 2)
    assert float(first[1].y) + float(first[1].height) == float(first[0].y)
    assert chart.columns[1].segments == ()
    assert chart.columns[2].segments[0].y == charts.px(PLOT_TOP)  # the highest bar's top
    assert [c.total_text for c in chart.columns] == ["$1.50", "$0.00", "$2.00", "$0.00"]
    assert [(t.text, t.y) for t in chart.ticks] == [
        ("$0.00", charts.px(BASE)),
        ("$1.00", charts.px(BASE - PLOT_HEIGHT / 2)),
        ("$2.00", charts.px(PLOT_TOP)),
    ]
    assert not chart.empty
    assert chart.height == charts.CHART_HEIGHT


def test_a_chart_of_nothing_is_empty_and_still_has_its_axis() -> None:
    chart = charts.stacked(days(7), ["acme-1"], {})

    assert chart.empty
    assert [t.value for t in chart.ticks] == [0.0, 0.5, 1.0]
    assert all(c.segments == () for c in chart.columns)


def test_at_most_five_dates_label_the_axis_the_first_and_the_last_at_the_edges() -> None:
    labels = charts.date_labels(days(30), lambda d: d.isoformat())

    assert len(labels) == charts.DATE_LABELS
    assert (labels[0].text, labels[0].x, labels[0].anchor) == ("2026-12-01", "0%", "start")
    assert (labels[-1].text, labels[-1].x, labels[-1].anchor) == ("2026-12-30", "100%", "end")
    assert {label.anchor for label in labels[1:-1]} == {"middle"}
    assert [label.x for label in charts.date_labels(days(1), str)] == ["50%"]
    assert len(charts.date_labels(days(3), str)) == 3
    assert charts.date_labels([], str) == []
