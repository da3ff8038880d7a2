"""A whole project's effort at once (the Effort page, issue 31): the figures of
figures.efforts, read by project with SQL written once, so neither the statements nor their
count grow with the tasks. Reads only.

A task's tokens come as Parts, (model, SUMMED's counts, dollars or None), so the page can
sort and add up 2,000 tasks from plain numbers and make an Effort (effort_from) for the rows
it shows only.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from functools import cache
from operator import itemgetter
from typing import Protocol

from core import prices
from core.rows import fetch_all
from sessions.effort.figures import SUMMED, Cost, Effort, Tokens, price_table
from sessions.effort.intervals import Times
from sessions.models import TokenUsage
from sessions.services.effort import effort_refresh, times_of
from tasks.models import Project, Task

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

Part = tuple[str, tuple[int, ...], float | None]  # model, SUMMED's counts, dollars


def moment(stored: datetime | str) -> datetime:
    """A datetime column read with plain SQL made aware: Django stores it naive in UTC; read
    as text (no declared type, so no converter) it is parsed only where it is used."""
    if isinstance(stored, str):
        stored = datetime.fromisoformat(stored)
    return stored if stored.tzinfo is not None else stored.replace(tzinfo=UTC)


def times_from(columns: tuple) -> Times:
    """A Times from a tally's TIME_COLUMNS read with plain SQL."""
    as_of, stage, stages, agent, wall, waiting, agents_open, waiting_open, sessions, turns = columns
    return Times(
        as_of=moment(as_of),
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


class TaskLike(Protocol):
    """What a replay needs of a task (a Task, or the Effort page's TaskLine)."""

    id: int
    stage: str
    created_at: datetime


def replayed(tasks: list[TaskLike]) -> dict[int, Times]:
    """The time figures of tasks without a tally, older than issue 31: their histories
    replayed once (and kept)."""
    if not tasks:
        return {}
    return {i: times_of(row) for i, row in effort_refresh(tasks).items()}


def pricer(table: Mapping[str, prices.Price]) -> Callable[[str], prices.Price | None]:
    """price_of, looked up once per model: a project's rows name a handful of models, and
    matching the `prefix*` keys again for each of thousands of rows cost the page ~13%."""
    known: dict[str, prices.Price | None] = {}

    def price(model: str) -> prices.Price | None:
        if model not in known:
            known[model] = prices.price_of(model, table)
        return known[model]

    return price


def _usd(sums: tuple[int, ...], price: prices.Price) -> float:
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


def project_usage(
    project: Project, since: date | None = None, until: date | None = None
) -> dict[int, list[Part]]:
    """{task id: its Parts, by model name} of the days between `since` and `until` (all
    days when not given), in one query however many tasks."""
    price = pricer(price_table())
    usage: dict[int, list[Part]] = defaultdict(list)
    for task_id, model, *sums in fetch_all(_usage_sql(), [project.id, *_days(since, until)]):
        counts = tuple(sums)
        known = price(model)
        usage[task_id].append((model, counts, None if known is None else _usd(counts, known)))
    for parts in usage.values():
        if len(parts) > 1:
            parts.sort(key=itemgetter(0))
    return usage


def effort_from(times: Times, parts: list[Part] | None) -> Effort:
    """An Effort of grown time figures and a task's Parts: the same as figures.efforts."""
    if parts and len(parts) == 1:  # one model, the usual case: nothing to add up
        model, counts, usd = parts[0]
        tokens = Tokens(*counts)
        by_model: tuple[tuple[str, Tokens, float | None], ...] = ((model, tokens, usd),)
        cost = Cost(usd) if usd is not None else Cost(0, (model,))
    elif parts:
        by_model = tuple((model, Tokens(*counts), usd) for model, counts, usd in parts)
        tokens = sum((t for _, t, _ in by_model), Tokens())
        cost = Cost(
            usd=sum(c for _, _, c in by_model if c is not None),
            unpriced=tuple(m for m, _, c in by_model if c is None),
        )
    else:
        by_model, tokens, cost = (), Tokens(), Cost()
    return Effort(times, tokens, cost, by_model)


@cache
def _per_day_sql() -> str:
    """Tokens per day and model of a project's tasks (of one stage when the stage is not ""),
    as SQL written once. Read in token_usage_day_model's order (the `+` keeps SQLite off the
    task's index), the GROUP BY streams: no sort of every token row of the range."""
    usage, task = TokenUsage._meta.db_table, Task._meta.db_table
    sums = ", ".join(f'COALESCE(SUM(u."{k}"), 0)' for k in prices.KINDS)
    return (
        f'SELECT CAST(u."day" AS TEXT), u."model", {sums} FROM "{usage}" u '  # noqa: S608 - names from the models
        'WHERE u."day" >= %s AND u."day" <= %s AND +u."task_id" IN '
        f'(SELECT "id" FROM "{task}" WHERE "project_id" = %s AND (%s = \'\' OR "stage" = %s)) '
        'GROUP BY u."day", u."model"'
    )


@cache
def _drawn_per_day_sql() -> str:
    """Tokens per day, task and model of the drawn tasks (their ids one JSON array)."""
    usage = TokenUsage._meta.db_table
    sums = ", ".join(f'COALESCE(SUM(u."{k}"), 0)' for k in prices.KINDS)
    return (
        f'SELECT CAST(u."day" AS TEXT), u."task_id", u."model", {sums} FROM "{usage}" u '  # noqa: S608 - names from the models
        'WHERE u."task_id" IN (SELECT value FROM json_each(%s)) '
        'AND u."day" >= %s AND u."day" <= %s GROUP BY 1, 2, 3'
    )


def project_per_day(
    project: Project,
    drawn: list[int],
    since: date | None = None,
    until: date | None = None,
    stage: str = "",
) -> dict[tuple[date, int], float]:
    """{(day, task id): dollars} of the priced tokens of a project's tasks (of `stage` when
    given) for the `drawn` tasks (of that stage), and under task id 0 for all the others
    together: the cost-per-day chart's bars. The others' tokens are each day's and model's
    less the drawn tasks', priced as the sums they are; keys come in (day, task id) order."""
    price = pricer(price_table())
    days = _days(since, until)
    rest: dict[tuple[str, str], list[int]] = {
        (day, model): list(sums)
        for day, model, *sums in fetch_all(_per_day_sql(), [*days, project.id, stage, stage])
    }
    tokens: dict[tuple[str, int], list[tuple[str, list[int]]]] = defaultdict(list)
    for day, task_id, model, *sums in fetch_all(_drawn_per_day_sql(), [json.dumps(drawn), *days]):
        tokens[(day, task_id)].append((model, sums))
        left = rest[(day, model)]
        rest[(day, model)] = [a - b for a, b in zip(left, sums, strict=True)]
    for (day, model), sums in rest.items():
        tokens[(day, 0)].append((model, sums))
    found: dict[tuple[date, int], float] = {}
    for (day, task_id), parts in sorted(tokens.items()):
        usd = 0.0
        for model, sums in parts:  # by model name, as the GROUP BY gives them
            known = price(model)
            usd += (
                0.0
                if known is None
                else prices.cost(dict(zip(prices.KINDS, sums, strict=True)), known)
            )
        found[(date.fromisoformat(day), task_id)] = usd
    return found
