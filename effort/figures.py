"""What a task's effort comes to, as the board and MCP show it. Reads only.

Time comes from TaskEffort (replayed by effort.services_refresh where stale, then
grown to now); tokens from TokenUsage, priced at read time with the `prices` setting, so
a changed price shows everywhere at once. A model without a price adds its tokens and
"cost unknown" — never a guess.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache

from django.conf import settings
from django.db.models import Sum
from django.utils import timezone

from core import prices
from core.caches import kept
from effort import readers
from effort.intervals import Times
from effort.models import ProcessCost, TaskEffort, TokenUsage
from effort.services.tally import times_of, untimed
from effort.sql import SUMMED
from sessions.hooks.registry import agent_title
from sessions.models import TaskBinding
from tasks.models import Task


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


@kept("([prices] of config.toml, the readers registered)", bound="one per setting read")
@cache
def _table(
    configured: tuple[tuple[str, tuple[tuple[str, float], ...]], ...], _readers: int
) -> dict:
    """Kept per setting and per number of registered readers (all are registered at start)."""
    shipped = readers.shipped_prices()
    return prices.table({model: dict(given) for model, given in configured}, shipped)


def price_table() -> dict[str, prices.Price]:
    """The agents' shipped prices with config.toml's `[prices]` laid over them."""
    given = settings.RELAYBAY.prices or {}
    frozen = tuple(sorted((m, tuple(sorted(p.items()))) for m, p in given.items()))
    return _table(frozen, len(readers.every()))


def cost_of(model: str, tokens: Tokens, table: Mapping[str, prices.Price]) -> float | None:
    """Dollars for one model's tokens; None when the model has no price."""
    price = prices.price_of(model, table)
    if price is None:
        return None
    return prices.cost({k: getattr(tokens, k) for k in prices.KINDS}, price)


def summed(row: Mapping[str, int | None]) -> Tokens:
    """The Tokens of a row annotated with the Sum of each SUMMED column."""
    return Tokens(**{k: row[k] or 0 for k in SUMMED})


def priced(model: str, tokens: Tokens, table: Mapping[str, prices.Price]) -> Cost:
    """What these tokens of `model` cost, or that `model` has no price."""
    usd = cost_of(model, tokens, table)
    return Cost(usd or 0.0, () if usd is not None else (model,))


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
        found[row["task_id"]][row["model"]] = summed(row)
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
    rows = {
        row.task_id: row for row in TaskEffort.objects.filter(task_id__in=[t.id for t in tasks])
    }
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
        row = rows.get(task.id)
        times = times_of(row) if row is not None else untimed(task)
        result[task.id] = Effort(times.grown(now), tokens, cost, by_model)
    return result


def effort(task: Task, *, now: datetime | None = None) -> Effort:
    """One task's effort (the dialog, the task page, task_get)."""
    return efforts([task], now=now)[task.id]


@dataclass(frozen=True)
class OwnFigure:
    """The agent's own total for a session's processes (an agent whose transcripts carry
    one) beside relaybay's for the same responses (all of the session's, whichever task
    they went to)."""

    session: str  # its title when it has one, else its name: the Session panel's heading
    agent_usd: float
    relaybay: Cost
    agent: str = ""  # how people call the agent that wrote the total ("" when unknown)


def own_figures(task: Task) -> list[OwnFigure]:
    """For each session ever bound to the task that wrote `cost-state` lines."""
    sessions: dict[int, str] = {}
    agents: dict[int, str] = {}
    for sid, name, title, agent in TaskBinding.objects.filter(task=task).values_list(
        "session_id", "session__name", "session__title", "session__agent"
    ):
        sessions[sid], agents[sid] = title or name, agent_title(agent)
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
        mine[row["session_id"]] += priced(row["model"], summed(row), table)
    return [
        OwnFigure(sessions[sid], float(usd), mine[sid], agents[sid])
        for sid, usd in sorted(totals.items())
    ]
