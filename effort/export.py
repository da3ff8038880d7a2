"""The Effort page's rows as CSV for spreadsheets: plain numbers, ISO times.

Seconds and tokens are integers, the cost a decimal number of dollars (empty when a model
has no price: never a guess; `unpriced_models` names them), times ISO 8601 in UTC. A cell
that a spreadsheet would read as a formula (a task title starting with = + - @, a tab or a
carriage return) is prefixed with a quote.
"""

from __future__ import annotations

import csv
import io
from datetime import date

from core.display import STAGES
from effort.lines import Line
from effort.page import Filters

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


def iso(stored: str) -> str:
    """A datetime as Django stores it ("2026-12-05 09:30:00.123456", UTC) in ISO 8601 to the
    second: "2026-12-05T09:30:00Z" (what isoformat(timespec="seconds") gives, unparsed)."""
    return f"{stored[:10]}T{stored[11:19]}Z"


def line(found: Line) -> list[str]:
    """A task's cells from its Line: plain numbers, no Effort made for 2,000 rows."""
    responses, shared, input_, output, cache_write, cache_read, reasoning = found.counts()
    numbers = (
        found.agent,
        found.wall,
        found.waiting,
        found.sessions,
        found.turns,
        *found.stages,  # STAGES' order, as the header's
        responses,
        shared,
        input_,
        output,
        reasoning,
        cache_write,
        cache_read,
        found.tokens,
    )
    values = found.values
    return [
        cell(found.key),
        cell(found.title),
        values[5],  # the stage (lines.TASK_FIELDS)
        iso(values[6]),
        iso(values[7]),
        *map(str, map(round, numbers)),
        "" if found.unpriced else f"{found.usd:.6f}",
        cell(" ".join(found.unpriced)),
    ]


def csv_text(found: list[Line]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(HEADER)
    writer.writerows(line(row) for row in found)
    return out.getvalue()


def file_name(slug: str, filters: Filters, today: date) -> str:
    """acme-effort-30d-2026-12-05.csv (dev-only: acme-effort-dev-30d-…)."""
    stage = f"-{filters.stage}" if filters.stage else ""
    return f"{slug}-effort{stage}-{filters.range}-{today.isoformat()}.csv"
