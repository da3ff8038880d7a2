"""Effort in words: durations, token counts and dollars as the board and MCP say them."""

from __future__ import annotations

from effort.figures import Cost, Effort, Tokens
from effort.total import Total


def duration(seconds: float) -> str:
    """ "2d 3h", "1h 05m", "14m", "40s", "0s"."""
    total = int(seconds)
    days, rest = divmod(total, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m"
    return f"{secs}s"


def count(n: int) -> str:
    """ "12,400"."""
    return f"{n:,}"


def plural(n: int, word: str) -> str:
    """ "1 turn", "3 turns"."""
    return f"{n:,} {word}{'s' * (n != 1)}"


def usd(amount: float) -> str:
    """ "$12.40", "$0.42", "$0.0072": small sums keep their first figures."""
    if amount == 0:
        return "$0.00"
    if amount < 0.01:
        return f"${amount:.4f}"
    return f"${amount:,.2f}"


def cost(value: Cost, tokens: Tokens) -> str:
    """What the tokens cost; "cost unknown" for a model without a price, never a guess."""
    if not tokens.total:
        return usd(0)
    if not value.known:
        models = ", ".join(value.unpriced)
        if value.usd == 0:
            return f"cost unknown ({models} has no price)"
        return f"{usd(value.usd)} + cost unknown ({models} has no price)"
    return usd(value.usd)


def line(effort: Effort) -> str:
    """The one effort line of task_get: agent time, tokens, cost."""
    t = effort.times
    if not t.sessions and not effort.tokens.responses:
        return "Effort: nothing counted yet (no session has worked on it)"
    parts = [f"agent {duration(t.agent_seconds)}"]
    if t.wall_seconds and round(t.wall_seconds) != round(t.agent_seconds):
        parts[0] += f" (wall {duration(t.wall_seconds)})"
    if t.waiting_seconds >= 60:
        parts.append(f"waiting on the owner {duration(t.waiting_seconds)}")
    parts.append(f"{plural(t.sessions, 'session')}, {plural(t.turns, 'turn')}")
    parts.append(f"{count(effort.tokens.total)} tokens")
    parts.append(cost(effort.cost, effort.tokens))
    return "Effort: " + " · ".join(parts)


def total_line(total: Total) -> str:
    """project_snapshot's total: agent time, tokens and cost over the project's tasks."""
    return (
        f"Effort of all {total.tasks} tasks: agent {duration(total.agent_seconds)} · "
        f"{count(total.tokens.total)} tokens · {cost(total.cost, total.tokens)}"
    )
