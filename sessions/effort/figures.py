"""What a task's effort comes to, as the board and MCP show it (issue 31). Reads only.

Time comes from TaskEffort (replayed by sessions.services.effort_refresh where stale, then
grown to now); tokens from TokenUsage, priced at read time with the `prices` setting, so
a changed price shows everywhere at once. A model without a price adds its tokens and
"cost unknown" — never a guess.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import cache
from typing import Protocol

from django.conf import settings
from django.db.models import Sum
from django.utils import timezone

from core import prices
from core.rows import fetch_all
from sessions.effort.intervals import Times
from sessions.models import ProcessCost, TaskBinding, TaskEffort, TokenUsage
from sessions.services.effort import effort_refresh, times_of
from tasks.models import Project, Task

SUMMED = ("responses", "shared", "input", "output", "cache_write", "cache_read", "reasoning")


@dataclass(frozen=True)
class Tokens:
    """Token counts by kind; `reasoning` is a part of `output`, told apart."""

    responses: int = 0
    shared: int = 0  # responses split with other tasks bound at the same time
    input: int = 0
    output: int = 0
    cache_write: int = 0
    cache_read: int = 0
    reasoning: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_write + self.cache_read

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(
            self.responses + other.responses,
            self.shared + other.shared,
            self.input + other.input,
            self.output + other.output,
            self.cache_write + other.cache_write,
            self.cache_read + other.cache_read,
            self.reasoning + other.reasoning,
        )


@dataclass(frozen=True)
class Cost:
    """Dollars of the priced tokens, and the models that have no price."""

    usd: float = 0.0
    unpriced: tuple[str, ...] = ()

    @property
    def known(self) -> bool:
        return not self.unpriced

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.usd + other.usd, tuple(sorted({*self.unpriced, *other.unpriced})))


@dataclass(frozen=True)
class Effort:
    """One task's effort: its time figures, its tokens and what they cost."""

    times: Times
    tokens: Tokens
    cost: Cost
    by_model: tuple[tuple[str, Tokens, float | None], ...] = ()


@cache
def _table(configured: tuple[tuple[str, tuple[tuple[str, float], ...]], ...]) -> dict:
    return prices.table({model: dict(given) for model, given in configured})


def price_table() -> dict[str, prices.Price]:
    """The shipped prices with config.toml's `[prices]` laid over them."""
    given = settings.RELAYBAY.prices or {}
    frozen = tuple(sorted((m, tuple(sorted(p.items()))) for m, p in given.items()))
    return _table(frozen)


def cost_of(model: str, tokens: Tokens, table: Mapping[str, prices.Price]) -> float | None:
    """Dollars for one model's tokens; None when the model has no price."""
    price = prices.price_of(model, table)
    if price is None:
        return None
    return prices.cost({k: getattr(tokens, k) for k in prices.KINDS}, price)


def _usage(
    task_ids: list[int], since: date | None, until: date | None
) -> dict[int, dict[str, Tokens]]:
    rows = TokenUsage.objects.filter(task_id__in=task_ids)
    if since is not None:
        rows = rows.filter(day__gte=since)
    if until is not None:
        rows = rows.filter(day__lte=until)
    found: dict[int, dict[str, Tokens]] = defaultdict(dict)
    for row in rows.values("task_id", "model").annotate(**{k: Sum(k) for k in SUMMED}):
        found[row["task_id"]][row["model"]] = Tokens(**{k: row[k] or 0 for k in SUMMED})
    return found


def efforts(
    tasks: Iterable[Task],
    *,
    since: date | None = None,
    until: date | None = None,
    now: datetime | None = None,
) -> dict[int, Effort]:
    """{task id: its effort}: time for the whole task, tokens and cost of the days between
    `since` and `until` (all days when not given). Three queries however many tasks."""
    tasks = list(tasks)
    now = now or timezone.now()
    rows = effort_refresh(tasks)
    usage = _usage([t.id for t in tasks], since, until)
    table = price_table()
    result = {}
    for task in tasks:
        models = usage.get(task.id, {})
        by_model = tuple(
            (model, tokens, cost_of(model, tokens, table))
            for model, tokens in sorted(models.items())
        )
        cost = Cost(
            usd=sum(c for _, _, c in by_model if c is not None),
            unpriced=tuple(m for m, _, c in by_model if c is None),
        )
        tokens = sum((t for _, t, _ in by_model), Tokens())
        result[task.id] = Effort(times_of(rows[task.id]).grown(now), tokens, cost, by_model)
    return result


def effort(task: Task, *, now: datetime | None = None) -> Effort:
    """One task's effort (the dialog, the task page, task_get)."""
    return efforts([task], now=now)[task.id]


@dataclass(frozen=True)
class Total:
    """A project's effort: its tasks' agent time, tokens and cost added up."""

    tasks: int
    agent_seconds: float
    tokens: Tokens
    cost: Cost


def project_total(project: Project, *, now: datetime | None = None) -> Total:
    """The project_snapshot line's figures, in three queries however many tasks."""
    now = now or timezone.now()
    rows = list(TaskEffort.objects.filter(task__project=project))
    count = Task.objects.filter(project=project).count()
    if len(rows) < count:  # tasks older than issue 31: replayed once
        rows = list(effort_refresh(Task.objects.filter(project=project)).values())
    agent = sum(times_of(row).grown(now).agent_seconds for row in rows)
    table = price_table()
    tokens, cost = Tokens(), Cost()
    usage = (
        TokenUsage.objects.filter(task__project=project)
        .values("model")
        .annotate(**{k: Sum(k) for k in SUMMED})
    )
    for row in usage:
        part = Tokens(**{k: row[k] or 0 for k in SUMMED})
        usd = cost_of(row["model"], part, table)
        tokens += part
        cost += Cost(usd or 0.0, () if usd is not None else (row["model"],))
    return Total(count, agent, tokens, cost)


@dataclass(frozen=True)
class OwnFigure:
    """Claude Code's own total for a session's processes beside relaybay's for the same
    responses (all of the session's, whichever task they went to)."""

    session: str  # its title when it has one, else its name: the Session panel's heading
    claude_usd: float
    relaybay: Cost


def own_figures(task: Task) -> list[OwnFigure]:
    """For each session ever bound to the task that wrote `cost-state` lines."""
    sessions = {
        sid: title or name
        for sid, name, title in TaskBinding.objects.filter(task=task).values_list(
            "session_id", "session__name", "session__title"
        )
    }
    totals = dict(
        ProcessCost.objects.filter(session_id__in=list(sessions))
        .values("session_id")
        .annotate(usd=Sum("total_usd"))
        .values_list("session_id", "usd")
    )
    if not totals:
        return []
    table = price_table()
    mine: dict[int, Cost] = defaultdict(Cost)
    rows = (
        TokenUsage.objects.filter(session_id__in=list(totals))
        .values("session_id", "model")
        .annotate(**{k: Sum(k) for k in SUMMED})
    )
    for row in rows:
        tokens = Tokens(**{k: row[k] or 0 for k in SUMMED})
        usd = cost_of(row["model"], tokens, table)
        part = Cost(usd or 0.0, () if usd is not None else (row["model"],))
        mine[row["session_id"]] = mine[row["session_id"]] + part
    return [OwnFigure(sessions[sid], float(usd), mine[sid]) for sid, usd in sorted(totals.items())]


def per_day(
    task_ids: list[int], since: date | None = None, until: date | None = None
) -> dict[tuple[date, int], float]:
    """{(day, task id): dollars} of the priced tokens: the cost-per-day chart's bars."""
    rows = TokenUsage.objects.filter(task_id__in=task_ids)
    if since is not None:
        rows = rows.filter(day__gte=since)
    if until is not None:
        rows = rows.filter(day__lte=until)
    table = price_table()
    found: dict[tuple[date, int], float] = defaultdict(float)
    for row in rows.values("day", "task_id", "model").annotate(**{k: Sum(k) for k in SUMMED}):
        tokens = Tokens(**{k: row[k] or 0 for k in SUMMED})
        found[(row["day"], row["task_id"])] += cost_of(row["model"], tokens, table) or 0.0
    return found


# --- a whole project at once (the Effort page, issue 31) ----------------------------------------

TIME_COLUMNS = (  # a tally's figures, its `state` left out
    "as_of",
    "stage",
    "stage_seconds",
    "agent_seconds",
    "wall_seconds",
    "waiting_seconds",
    "agents_open",
    "waiting_open",
    "sessions",
    "turns",
)


@cache
def _times_sql() -> str:
    """A project's time tallies without their `state`, as SQL written once: for 2,000 rows
    the queryset's converters (a datetime, a JSON text, a flag each) cost more than SQLite
    reading them."""
    effort, task = TaskEffort._meta.db_table, Task._meta.db_table
    columns = ", ".join(f'e."{c}"' for c in ("task_id", *TIME_COLUMNS))
    return (
        f'SELECT {columns} FROM "{effort}" e JOIN "{task}" t ON t."id" = e."task_id" '  # noqa: S608 - names from the models
        'WHERE t."project_id" = %s'
    )


def times_from(columns: tuple) -> Times:
    """A Times from a tally's TIME_COLUMNS read with plain SQL."""
    as_of, stage, stages, agent, wall, waiting, agents_open, waiting_open, sessions, turns = columns
    return Times(
        as_of=aware(as_of),
        stage=stage,
        stage_seconds={k: float(v) for k, v in (json.loads(stages) if stages else {}).items()},
        agent_seconds=agent,
        wall_seconds=wall,
        waiting_seconds=waiting,
        agents_open=agents_open,
        waiting_open=bool(waiting_open),
        sessions=sessions,
        turns=turns,
    )


def _project_times(project: Project, tasks: list[TaskLike]) -> dict[int, Times]:
    """The tasks' time figures as of their last event, read by project: a list of 2,000 ids
    in the SQL costs more to bind than the rows cost to read, and the tally's `state` is not
    needed to show them. Times are stored in UTC (the connection gives them naive)."""
    found = {row[0]: times_from(row[1:]) for row in fetch_all(_times_sql(), [project.id])}
    return with_missing(found, tasks)


def with_missing(found: dict[int, Times], tasks: list[TaskLike]) -> dict[int, Times]:
    """`found` and the time figures of the tasks it lacks, older than issue 31: their
    histories replayed once (and kept)."""
    missing = [task for task in tasks if task.id not in found]
    if missing:
        found.update({i: times_of(row) for i, row in effort_refresh(missing).items()})
    return found


def aware(moment: datetime) -> datetime:
    """A datetime column read with plain SQL (naive, UTC, as Django stores it) made aware."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class TaskLike(Protocol):
    """What the project-wide reads need of a task (a Task, or the Effort page's TaskLine)."""

    id: int
    stage: str
    created_at: datetime


def _pricer(table: Mapping[str, prices.Price]) -> Callable[[str], prices.Price | None]:
    """price_of, looked up once per model: a project's rows name a handful of models, and
    matching the `prefix*` keys again for each of thousands of rows cost the page ~13%."""
    known: dict[str, prices.Price | None] = {}

    def price(model: str) -> prices.Price | None:
        if model not in known:
            known[model] = prices.price_of(model, table)
        return known[model]

    return price


def _usd(sums: list[int], price: prices.Price) -> float:
    """prices.cost of SUMMED's counts in their order, the same sum in the same order."""
    _, _, input_, output, cache_write, cache_read, _ = sums
    return (
        input_ * price.input
        + output * price.output
        + cache_write * price.cache_write
        + cache_read * price.cache_read
    ) / 1_000_000


@cache
def _usage_sql() -> str:
    """A project's tokens between two days summed per task and model, as SQL written once:
    the queryset's compiling and converters cost the page more than SQLite's run of it."""
    usage, task = TokenUsage._meta.db_table, Task._meta.db_table
    sums = ", ".join(f'COALESCE(SUM(u."{k}"), 0)' for k in SUMMED)
    return (
        f'SELECT u."task_id", u."model", {sums} FROM "{usage}" u '  # noqa: S608 - names from the models
        f'JOIN "{task}" t ON t."id" = u."task_id" '
        'WHERE t."project_id" = %s AND u."day" >= %s AND u."day" <= %s '
        'GROUP BY u."task_id", u."model"'
    )


def _days(since: date | None, until: date | None) -> tuple[str, str]:
    return (since or date.min).isoformat(), (until or date.max).isoformat()


def project_efforts(
    project: Project,
    tasks: Iterable[TaskLike],
    *,
    since: date | None = None,
    until: date | None = None,
    now: datetime | None = None,
    keep: Callable[[TaskLike, Times, bool], bool] | None = None,
    times: dict[int, Times] | None = None,
) -> dict[int, Effort]:
    """`efforts` for tasks of one project, the same figures read by project: three queries
    whose text does not grow with the tasks (four when some predate issue 31). `keep(task,
    times as of their last event, whether it has tokens)` leaves a task out before its
    figures are made (the Effort page's time range). `times`: the tasks' figures when the
    caller read them with its tasks (those it lacks are replayed)."""
    tasks = list(tasks)
    now = now or timezone.now()
    times = _project_times(project, tasks) if times is None else with_missing(times, tasks)
    price = _pricer(price_table())
    usage: dict[int, list[tuple[str, Tokens, float | None]]] = defaultdict(list)
    for task_id, model, *sums in fetch_all(_usage_sql(), [project.id, *_days(since, until)]):
        known = price(model)
        usage[task_id].append((model, Tokens(*sums), None if known is None else _usd(sums, known)))
    result = {}
    nothing = (Tokens(), Cost())
    for task in tasks:
        parts = usage.get(task.id)
        if keep is not None and not keep(task, times[task.id], bool(parts)):
            continue
        if parts and len(parts) == 1:  # one model, the usual case: nothing to add up
            (model, tokens, usd), by_model = parts[0], tuple(parts)
            cost = Cost(usd) if usd is not None else Cost(0, (model,))
        elif parts:
            by_model = tuple(sorted(parts, key=lambda part: part[0]))
            tokens = sum((t for _, t, _ in by_model), Tokens())
            cost = Cost(
                usd=sum(c for _, _, c in by_model if c is not None),
                unpriced=tuple(m for m, _, c in by_model if c is None),
            )
        else:
            by_model, (tokens, cost) = (), nothing
        result[task.id] = Effort(times[task.id].grown(now), tokens, cost, by_model)
    return result


@cache
def _per_day_sql() -> str:
    """Dollars per day of the drawn tasks each and of the rest together (task id 0), per
    model for its price: a few hundred rows where every task's every day was thousands.
    The drawn tasks' ids go in as one JSON array, the stage as a value: the text is fixed.
    The day comes as text (an expression has no declared type to convert)."""
    usage, task = TokenUsage._meta.db_table, Task._meta.db_table
    sums = ", ".join(f'COALESCE(SUM(u."{k}"), 0)' for k in prices.KINDS)
    return (
        'SELECT CAST(u."day" AS TEXT), CASE WHEN u."task_id" IN '  # noqa: S608 - names from the models
        '(SELECT value FROM json_each(%s)) THEN u."task_id" ELSE 0 END, '
        f'u."model", {sums} FROM "{usage}" u JOIN "{task}" t ON t."id" = u."task_id" '
        'WHERE t."project_id" = %s AND u."day" >= %s AND u."day" <= %s '
        "AND (%s = '' OR t.\"stage\" = %s) GROUP BY 1, 2, 3"
    )


def project_per_day(
    project: Project,
    drawn: list[int],
    since: date | None = None,
    until: date | None = None,
    stage: str = "",
) -> dict[tuple[date, int], float]:
    """{(day, task id): dollars} of the priced tokens of a project's tasks (of `stage` when
    given) for the `drawn` tasks, and under task id 0 for all the others together: the
    cost-per-day chart's bars."""
    price = _pricer(price_table())
    params = [json.dumps(drawn), project.id, *_days(since, until), stage, stage]
    days: dict[str, date] = {}
    found: dict[tuple[date, int], float] = defaultdict(float)
    for day, task_id, model, *sums in fetch_all(_per_day_sql(), params):
        if day not in days:
            days[day] = date.fromisoformat(day)
        known = price(model)
        found[(days[day], task_id)] += (
            0.0 if known is None else prices.cost(dict(zip(prices.KINDS, sums, strict=True)), known)
        )
    return found
