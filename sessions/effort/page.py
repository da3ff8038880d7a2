"""The Effort page of a project (issue 31): one row per task, sorted and filtered, totals,
two charts, and the same rows for the CSV export. Reads only.

Four queries however many tasks, each SQL written once: the tasks, their time figures, their
tokens (figures.project_efforts) and the cost per day (figures.project_per_day, drawn tasks
and "other" only). A time range limits the tokens and the cost to its
days and the rows to the tasks changed, worked on or with tokens counted in them; the time
figures are always each task's whole life (they are not kept per day). The table shows the
first SHOWN rows of the sort ("Show more" raises it); the totals, the charts and the CSV
count every row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from functools import cache
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from core.display import STAGES, Stamp, stage_label, stamp
from core.links import link_pattern
from core.rows import fetch_all
from sessions.effort import figures, page_charts, words
from sessions.effort.figures import Cost, Effort, Tokens
from sessions.effort.intervals import Times
from sessions.models import TaskEffort, TokenUsage
from tasks.models import Project, Task

# (query value, days, words), as the page offers them; 0 days is all time.
RANGES = (("7d", 7, "7 days"), ("30d", 30, "30 days"), ("90d", 90, "90 days"), ("all", 0, "All"))
RANGE_DAYS = {key: days for key, days, _ in RANGES}
DEFAULT_RANGE = "30d"
SORTS = {"cost": "Cost", "tokens": "Tokens", "agent": "Agent time", "age": "Age"}
# What a row shows of its task (a task's texts are not read).
TASK_FIELDS = ("id", "project_id", "number", "key", "title", "stage", "created_at", "updated_at")
SHOWN = 100
SHOWN_MAX = 100_000


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


def _sort_value(row: Row, sort: str) -> float:
    e = row.effort
    if sort == "tokens":
        return e.tokens.total
    if sort == "agent":
        return e.times.agent_seconds
    if sort == "age":
        return -row.task.created_at.timestamp()  # the oldest is the greatest age
    return e.cost.usd


def _in_range(start: datetime | None) -> Callable[[TaskLine, Times, bool], bool]:
    """Whether a task belongs in a range from `start`: changed, worked on (a session working
    now) or with tokens counted in it (the tokens are already those of the range)."""

    def keep(task: TaskLine, times: Times, counted: bool) -> bool:
        return start is None or counted or times.agents_open > 0 or task.updated_at >= start

    return keep


@cache
def _tasks_sql() -> str:
    """A project's tasks of the filters with their time figures, newest first, as SQL
    written once: 2,000 rows through two querysets cost more than the rest of the page.
    Of one stage when the stage is not ""; from a time range's start when one is given
    (stored UTC text, compared as text): changed since, with tokens in the range, a session
    working now, or no time tally yet (replayed, then kept or not in Python)."""
    task, effort, usage = Task._meta.db_table, TaskEffort._meta.db_table, TokenUsage._meta.db_table
    columns = ", ".join(f't."{Task._meta.get_field(f).column}"' for f in TASK_FIELDS)
    times = ", ".join(f'e."{c}"' for c in figures.TIME_COLUMNS)
    return (
        f'SELECT {columns}, {times} FROM "{task}" t '  # noqa: S608 - names from the models
        f'LEFT JOIN "{effort}" e ON e."task_id" = t."id" '
        'WHERE t."project_id" = %s AND (%s = \'\' OR t."stage" = %s) '
        'AND (%s = \'\' OR t."updated_at" >= %s OR e."task_id" IS NULL OR e."agents_open" > 0 '
        f'OR EXISTS (SELECT 1 FROM "{usage}" u WHERE u."task_id" = t."id" AND u."day" >= %s)) '
        'ORDER BY t."number" DESC'
    )


def _read(project: Project, stage: str, start: datetime | None) -> tuple[list[TaskLine], dict]:
    """The tasks of the filters (see _tasks_sql) and the time figures of those that have."""
    after = "" if start is None else start.astimezone(UTC).replace(tzinfo=None).isoformat(" ")
    first_day = "" if start is None else start.date().isoformat()
    params = [project.id, stage, stage, after, after, first_day]
    tasks, times = [], {}
    width = len(TASK_FIELDS)
    for values in fetch_all(_tasks_sql(), params):
        task = TaskLine(*values[:6], figures.aware(values[6]), figures.aware(values[7]))
        tasks.append(task)
        if values[width] is not None:  # the tally's as_of: NULL when it has none yet
            times[task.id] = figures.times_from(values[width:])
    return tasks, times


def rows(project: Project, filters: Filters, now: datetime | None = None) -> list[Row]:
    """Every row of the filters, sorted (the table shows the first; the CSV all)."""
    now = now or timezone.now()
    since = filters.since(timezone.localdate(now))
    start = None
    if since is not None:
        start = datetime.combine(since, datetime.min.time(), tzinfo=timezone.get_current_timezone())
    tasks, times = _read(project, filters.stage, start)
    found = figures.project_efforts(
        project, tasks, since=since, now=now, keep=_in_range(start), times=times
    )
    board = link_pattern("board", "slug")(project.slug)
    kept = [Row(task, found[task.id], board, now) for task in tasks if task.id in found]
    # Stable sorts: ties keep the newest task first.
    kept.sort(key=lambda row: _sort_value(row, filters.sort), reverse=filters.order == "desc")
    return kept


def totals(found: list[Row]) -> Totals:
    agent = wall = waiting = 0.0
    sessions = turns = 0
    tokens, cost = Tokens(), Cost()
    for row in found:
        t = row.effort.times
        agent, wall = agent + t.agent_seconds, wall + t.wall_seconds
        waiting += t.waiting_seconds
        sessions, turns = sessions + t.sessions, turns + t.turns
        tokens, cost = tokens + row.effort.tokens, cost + row.effort.cost
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
    more_href: str  # "" when every row is shown
    totals: Totals
    heads: dict[str, Head]
    stages: list[Choice]
    ranges: list[Choice]
    range_words: str  # "the last 30 days" / "all time"
    cost: page_charts.CostChart
    stage_bars: list[page_charts.StageBar]
    csv_href: str
    region_href: str  # the live region's own URL (same filters)


def _page_url(project: Project, name: str, query: str) -> str:
    url = reverse(name, args=[project.slug])
    return f"{url}?{query}" if query else url


def _heads(project: Project, f: Filters) -> dict[str, Head]:
    heads = {}
    for key, label in SORTS.items():
        current = f.sort == key
        order = ("asc" if f.order == "desc" else "desc") if current else "desc"
        href = _page_url(project, "project_effort", f.query(sort=key, order=order, shown=SHOWN))
        aria = ("descending" if f.order == "desc" else "ascending") if current else ""
        heads[key] = Head(key, label, href, aria)
    return heads


def effort_page(project: Project, filters: Filters, now: datetime | None = None) -> EffortPage:
    """The page's values, in a fixed number of queries."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    since = filters.since(today)
    found = rows(project, filters, now)
    page = "project_effort"
    more = len(found) > filters.shown
    days = RANGE_DAYS[filters.range]
    return EffortPage(
        project=project,
        filters=filters,
        rows=found[: filters.shown],
        count=len(found),
        more_href=_page_url(project, page, filters.query(shown=filters.shown + SHOWN))
        if more
        else "",
        totals=totals(found),
        heads=_heads(project, filters),
        stages=[
            Choice(
                stage_label(s) if s else "All",
                _page_url(project, page, filters.query(stage=s, shown=SHOWN)),
                filters.stage == s,
            )
            for s in ("", *STAGES)
        ],
        ranges=[
            Choice(label, _page_url(project, page, filters.query(range=key)), filters.range == key)
            for key, _, label in RANGES
        ],
        range_words=f"the last {days} days" if days else "all time",
        cost=page_charts.cost_chart(project, found, since, today, filters.stage),
        stage_bars=page_charts.stage_chart(found),
        csv_href=_page_url(project, "project_effort_csv", filters.query(shown=SHOWN)),
        region_href=_page_url(project, "project_effort_region", filters.query()),
    )
