"""The Effort page of a project: one row per task, sorted and filtered, totals,
two charts, and the same tasks' Lines for the CSV export (export.py). Reads only.

Four queries however many tasks, each SQL written once: the tasks with their time figures
and their tokens (lines.py, plain values per task), and the cost per day of every task and of
the drawn ones (project.project_per_day). A time range limits the tokens and the cost to its
days and the rows to the tasks changed, worked on or with tokens counted in them; the time
figures are always each task's whole life (they are not kept per day). The table shows the
first SHOWN rows of the sort ("Show more" raises it, up to SHOWN_MAX: a page stays within
300 KiB); the totals, the charts and the CSV count every row, and only the rows
shown are made into Rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from operator import attrgetter
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString

from core.display import STAGES, Stamp, stage_label, stamp
from core.links import link_pattern
from effort import lines, page_charts, words
from effort.figures import Cost, Effort, Tokens
from effort.lines import Line, TaskLine
from effort.project import effort_from, times_from
from effort.row_html import RowView, row_html
from tasks.models import Project

# (query value, days, words), as the page offers them; 0 days is all time.
RANGES = (("7d", 7, "7 days"), ("30d", 30, "30 days"), ("90d", 90, "90 days"), ("all", 0, "All"))
RANGE_DAYS = {key: days for key, days, _ in RANGES}
DEFAULT_RANGE = "30d"
SORTS = {"cost": "Cost", "tokens": "Tokens", "agent": "Agent time", "age": "Age"}
# A Line's sort key per sort; "age" is its creation time, reversed (the oldest is the greatest).
SORT_KEYS = {
    "cost": attrgetter("usd"),
    "tokens": attrgetter("tokens"),
    "agent": attrgetter("agent"),
    "age": attrgetter("created"),
}
SHOWN = 100
SHOWN_MAX = 200  # ~0.9 KiB of HTML a row: 200 keep the page within 300 KiB (the CSV has all)


@dataclass(frozen=True)
class Filters:
    """What the query string asks for; anything unknown is the default."""

    stage: str = ""  # "" = every stage
    range: str = DEFAULT_RANGE
    sort: str = "cost"
    order: str = "desc"
    shown: int = SHOWN

    @classmethod
    def parse(cls, query: Mapping[str, str]) -> Filters:
        stage = query.get("stage", "")
        range_ = query.get("range", "")
        sort = query.get("sort", "")
        order = query.get("order", "")
        try:
            shown = int(query.get("shown", SHOWN))
        except ValueError:
            shown = SHOWN
        return cls(
            stage=stage if stage in STAGES else "",
            range=range_ if range_ in RANGE_DAYS else DEFAULT_RANGE,
            sort=sort if sort in SORTS else "cost",
            order=order if order in ("asc", "desc") else "desc",
            shown=min(max(shown, SHOWN), SHOWN_MAX),
        )

    def since(self, today: date) -> date | None:
        days = RANGE_DAYS[self.range]
        return today - timedelta(days=days - 1) if days else None

    def query(self, **changes: object) -> str:
        """The query string of these filters with `changes`, defaults left out."""
        chosen = replace(self, **changes)  # type: ignore[arg-type]
        default = Filters()
        params = {
            name: getattr(chosen, name)
            for name in ("stage", "range", "sort", "order", "shown")
            if getattr(chosen, name) != getattr(default, name)
        }
        return urlencode(params)


@dataclass(frozen=True)
class Row:
    """One task's figures as the table and the CSV give them."""

    task: TaskLine
    effort: Effort
    board: str  # the project's board URL
    now: datetime

    @property
    def href(self) -> str:
        """The task dialog over its board (made for the rows shown only)."""
        return f"{self.board}?" + urlencode({"task": self.task.key})

    @property
    def stage_label(self) -> str:
        return stage_label(self.task.stage)

    @property
    def agent(self) -> str:
        return words.duration(self.effort.times.agent_seconds)

    @property
    def wall(self) -> str:
        return words.duration(self.effort.times.wall_seconds)

    @property
    def waiting(self) -> str:
        return words.duration(self.effort.times.waiting_seconds)

    @property
    def tokens(self) -> str:
        return words.count(self.effort.tokens.total)

    @property
    def cost(self) -> str:
        return short_cost(self.effort.cost, self.effort.tokens)

    @property
    def cost_note(self) -> str:
        return unpriced_note(self.effort.cost)

    @property
    def created(self) -> Stamp | None:
        return stamp(self.task.created_at, self.now)

    def view(self) -> RowView:
        """What the table shows of the row: the key of its kept HTML (row_html.py)."""
        task, times = self.task, self.effort.times
        return RowView(
            task.key,
            task.title,
            self.href,
            task.stage,
            self.stage_label,
            self.cost,
            not self.effort.cost.known,
            self.cost_note,
            self.tokens,
            self.agent,
            self.wall,
            self.waiting,
            times.sessions,
            times.turns,
            self.created,
        )


def short_cost(cost: Cost, tokens: Tokens) -> str:
    """A table cell's cost: "$2.40", "unknown", "$2.40 + unknown" (unpriced_note says why)."""
    if cost.known or not tokens.total:
        return words.cost(cost, tokens)
    return f"{words.usd(cost.usd)} + unknown" if cost.usd else "unknown"


def unpriced_note(cost: Cost) -> str:
    """Why a cost is unknown: "mystery-9 has no price" — its tokens count, never a guess."""
    if cost.known:
        return ""
    verb = "has" if len(cost.unpriced) == 1 else "have"
    return f"{', '.join(cost.unpriced)} {verb} no price: set one in config.toml"


def _cost_sentence(cost: Cost) -> str:
    if cost.known:
        return ""
    part = " in part" if cost.usd else ""
    return (
        f"Cost unknown{part}: {unpriced_note(cost)}. Their tokens are counted; their cost is "
        "never guessed."
    )


@dataclass(frozen=True)
class Totals:
    tasks: int
    agent: str
    wall: str
    waiting: str
    sessions: int
    turns: int
    tokens: str
    cost: str
    cost_known: bool
    cost_note: str  # why the cost is unknown, in part or whole ("" when known)
    counted: bool  # any session or response at all


@dataclass(frozen=True)
class Head:
    """A sortable column head: its link and its aria-sort."""

    key: str
    label: str
    href: str
    aria_sort: str  # "descending" | "ascending" | "" (not the sort)


@dataclass(frozen=True)
class Choice:
    label: str
    href: str
    current: bool


def sorted_lines(project: Project, filters: Filters, now: datetime) -> list[Line]:
    """Every task of the filters as a Line, sorted; stable, so ties keep the newest first."""
    since = filters.since(timezone.localdate(now))
    start = None
    if since is not None:
        start = datetime.combine(since, datetime.min.time(), tzinfo=timezone.get_current_timezone())
    found = lines.lines(project, filters.stage, start, since, now)
    descending = filters.order == "desc"
    if filters.sort == "age":  # by creation time: the greatest age is the earliest
        descending = not descending
    found.sort(key=SORT_KEYS[filters.sort], reverse=descending)
    return found


def row_of(line: Line, board: str, now: datetime) -> Row:
    """A Line as the table and the CSV give it: its task, its Effort, its link."""
    times = line.times or times_from(line.values[lines.WIDTH : lines.TIMES_END]).grown(now)
    return Row(line.task(), effort_from(times, line.parts), board, now)


def totals(found: list[Line]) -> Totals:
    """Every line added up, in their order (the same sums the rows would give)."""
    agent = wall = waiting = usd = 0.0
    sessions = turns = 0
    unpriced: set[str] = set()
    for line in found:
        agent, wall, waiting = agent + line.agent, wall + line.wall, waiting + line.waiting
        sessions, turns = sessions + line.sessions, turns + line.turns
        usd += line.usd
        unpriced.update(line.unpriced)
    counts = zip(*(counts for line in found for _, counts, _ in line.parts), strict=True)
    tokens = Tokens(*(sum(column) for column in counts))
    cost = Cost(usd, tuple(sorted(unpriced)))
    return Totals(
        tasks=len(found),
        agent=words.duration(agent),
        wall=words.duration(wall),
        waiting=words.duration(waiting),
        sessions=sessions,
        turns=turns,
        tokens=words.count(tokens.total),
        cost=short_cost(cost, tokens),
        cost_known=cost.known,
        cost_note=_cost_sentence(cost),
        counted=bool(sessions or tokens.responses),
    )


# --- the page ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EffortPage:
    project: Project
    filters: Filters
    rows: list[Row]  # the first `filters.shown`
    count: int  # rows in all
    more_href: str  # "" when every row is shown, or SHOWN_MAX are
    capped: bool  # more rows than a page shows: the CSV has them all
    totals: Totals
    heads: dict[str, Head]
    stages: list[Choice]
    ranges: list[Choice]
    range_words: str  # "the last 30 days" / "all time"
    cost: page_charts.CostChart
    stage_bars: list[page_charts.StageBar]
    csv_href: str
    region_href: str  # the live region's own URL (same filters)

    @property
    def rows_html(self) -> list[SafeString]:
        """The shown rows' <tr>s, each kept by what it shows (row_html.py)."""
        return [row_html(row.view()) for row in self.rows]


def _page_url(url: str, query: str) -> str:
    return f"{url}?{query}" if query else url


def _heads(page: str, f: Filters) -> dict[str, Head]:
    heads = {}
    for key, label in SORTS.items():
        current = f.sort == key
        order = ("asc" if f.order == "desc" else "desc") if current else "desc"
        href = _page_url(page, f.query(sort=key, order=order, shown=SHOWN))
        aria = ("descending" if f.order == "desc" else "ascending") if current else ""
        heads[key] = Head(key, label, href, aria)
    return heads


def effort_page(project: Project, filters: Filters, now: datetime | None = None) -> EffortPage:
    """The page's values, in a fixed number of queries."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    since = filters.since(today)
    found = sorted_lines(project, filters, now)
    board = link_pattern("board", "slug")(project.slug)
    # Each URL reversed once: the page links itself ~18 times, and a reverse costs ~0.1 ms.
    page, csv, region = (
        reverse(name, args=[project.slug])
        for name in ("project_effort", "project_effort_csv", "project_effort_region")
    )
    more = len(found) > filters.shown
    capped = more and filters.shown >= SHOWN_MAX
    days = RANGE_DAYS[filters.range]
    return EffortPage(
        project=project,
        filters=filters,
        rows=[row_of(line, board, now) for line in found[: filters.shown]],
        count=len(found),
        more_href=_page_url(page, filters.query(shown=min(filters.shown + SHOWN, SHOWN_MAX)))
        if more and not capped
        else "",
        capped=capped,
        totals=totals(found),
        heads=_heads(page, filters),
        stages=[
            Choice(
                stage_label(s) if s else "All",
                _page_url(page, filters.query(stage=s, shown=SHOWN)),
                filters.stage == s,
            )
            for s in ("", *STAGES)
        ],
        ranges=[
            Choice(label, _page_url(page, filters.query(range=key)), filters.range == key)
            for key, _, label in RANGES
        ],
        range_words=f"the last {days} days" if days else "all time",
        cost=page_charts.cost_chart(project, found, since, today, filters.stage),
        stage_bars=page_charts.stage_chart(found),
        csv_href=_page_url(csv, filters.query(shown=SHOWN)),
        region_href=_page_url(region, filters.query()),
    )
