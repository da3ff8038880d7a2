"""The Effort page's rows as CSV for spreadsheets (issue 31): plain numbers, ISO times.

Seconds and tokens are integers, the cost a decimal number of dollars (empty when a model
has no price: never a guess; `unpriced_models` names them), times ISO 8601 in UTC. A cell
that a spreadsheet would read as a formula (a task title starting with = + - @, a tab or a
carriage return) is prefixed with a quote.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime

from core.display import STAGES
from sessions.effort.page import Filters, Row

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
HEADER = (
    "key",
    "title",
    "stage",
    "created",
    "updated",
    "agent_seconds",
    "wall_seconds",
    "waiting_seconds",
    "sessions",
    "turns",
    *(f"{stage}_seconds" for stage in STAGES),
    "responses",
    "shared_responses",
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "cache_write_tokens",
    "cache_read_tokens",
    "total_tokens",
    "cost_usd",
    "unpriced_models",
)


def cell(value: object) -> str:
    """A value as its cell: text that could start a formula gets a leading quote."""
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def line(row: Row) -> list[str]:
    t, tokens, cost = row.effort.times, row.effort.tokens, row.effort.cost
    numbers = [
        t.agent_seconds,
        t.wall_seconds,
        t.waiting_seconds,
        t.sessions,
        t.turns,
        *(t.stage_seconds.get(stage, 0.0) for stage in STAGES),
        tokens.responses,
        tokens.shared,
        tokens.input,
        tokens.output,
        tokens.reasoning,
        tokens.cache_write,
        tokens.cache_read,
        tokens.total,
    ]
    return [
        cell(row.task.key),
        cell(row.task.title),
        row.task.stage,
        iso(row.task.created_at),
        iso(row.task.updated_at),
        *(str(round(n)) for n in numbers),
        f"{cost.usd:.6f}" if cost.known else "",
        cell(" ".join(cost.unpriced)),
    ]


def csv_text(found: list[Row]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(HEADER)
    writer.writerows(line(row) for row in found)
    return out.getvalue()


def file_name(slug: str, filters: Filters, today: date) -> str:
    """acme-effort-30d-2026-12-05.csv (dev-only: acme-effort-dev-30d-…)."""
    stage = f"-{filters.stage}" if filters.stage else ""
    return f"{slug}-effort{stage}-{filters.range}-{today.isoformat()}.csv"
