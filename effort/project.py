"""A whole project's effort at once (the Effort page): the figures of
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
from operator import itemgetter
from typing import Protocol

from core import prices
from core.rows import fetch_all
from effort import sql
from effort.figures import Cost, Effort, Tokens, price_table
from effort.intervals import Times
from effort.services.tally import untimed
from tasks.models import Project

TIME_COLUMNS = sql.TIME_COLUMNS
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
    """What untimed figures need of a task (a Task, or the Effort page's TaskLine)."""

    id: int
    stage: str
    created_at: datetime


def untimed_times(tasks: list[TaskLike]) -> dict[int, Times]:
    """The time figures of tasks without a tally (none after effort_backfill): no time yet.
    A read never replays a history, nor writes."""
    return {task.id: untimed(task) for task in tasks}  # type: ignore[arg-type]


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


def _days(since: date | None, until: date | None) -> tuple[str, str]:
    return (since or date.min).isoformat(), (until or date.max).isoformat()


def project_usage(
    project: Project, since: date | None = None, until: date | None = None
) -> dict[int, list[Part]]:
    """{task id: its Parts, by model name} of the days between `since` and `until` (all
    days when not given), in one query however many tasks."""
    price = pricer(price_table())
    usage: dict[int, list[Part]] = defaultdict(list)
    for task_id, model, *sums in fetch_all(sql.usage(), [project.id, *_days(since, until)]):
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
        for day, model, *sums in fetch_all(sql.per_day(), [*days, project.id, stage, stage])
    }
    tokens: dict[tuple[str, int], list[tuple[str, list[int]]]] = defaultdict(list)
    for day, task_id, model, *sums in fetch_all(sql.drawn_per_day(), [json.dumps(drawn), *days]):
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
