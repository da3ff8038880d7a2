"""What a model's tokens cost: the price machinery of the `prices` setting.

US dollars per million tokens, four kinds: `input`, `output`, `cache_write` (prompt tokens
written to the cache) and `cache_read` (prompt tokens read from it). The table config.toml
gives under `[prices]` is laid over the shipped defaults, key by key; a model is found by
its exact name, else by the longest key ending in `*` that its name starts with. A model
without a price shows its tokens and "cost unknown" — never a guessed figure. The shipped
defaults are data of each agent package (agents/<agent>/prices.py), which effort's reader
registry (effort/readers.py) gathers: the foundation names no model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

KINDS = ("input", "output", "cache_write", "cache_read")


class Price(NamedTuple):
    """Dollars per million tokens of each kind."""

    input: float
    output: float
    cache_write: float
    cache_read: float


def check(value: Any) -> str | None:
    """The `prices` setting's rule: {model: {input, output, cache_write, cache_read}},
    every given price a number ≥ 0 (a kind left out keeps the default's or is 0)."""
    if not isinstance(value, Mapping):
        return 'a table such as [prices."claude-opus-5-5"] input = 5.0'
    for model, price in value.items():
        if not isinstance(price, Mapping):
            return f"prices.{model} must be a table of input, output, cache_write, cache_read"
        for kind, amount in price.items():
            if kind not in KINDS:
                return f"prices.{model} takes {', '.join(KINDS)}"
            if isinstance(amount, bool) or not isinstance(amount, int | float) or amount < 0:
                return f"prices.{model}.{kind} must be a number of dollars per million, ≥ 0"
    return None


def table(configured: Mapping[str, Any], defaults: Mapping[str, Price]) -> dict[str, Price]:
    """The shipped `defaults` with config.toml's `[prices]` laid over them."""
    found = dict(defaults)
    for model, given in configured.items():
        base = found.get(model, Price(0.0, 0.0, 0.0, 0.0))
        found[model] = base._replace(**{k: float(v) for k, v in given.items() if k in KINDS})
    return found


def price_of(model: str, prices: Mapping[str, Price]) -> Price | None:
    """The price of a model: its own entry, else the longest matching `prefix*`."""
    if model in prices:
        return prices[model]
    matches = [key for key in prices if key.endswith("*") and model.startswith(key[:-1])]
    return prices[max(matches, key=len)] if matches else None


def cost(tokens: Mapping[str, int], price: Price) -> float:
    """Dollars for token counts by kind (input, output, cache_write, cache_read)."""
    return sum(tokens.get(kind, 0) * getattr(price, kind) for kind in KINDS) / 1_000_000
