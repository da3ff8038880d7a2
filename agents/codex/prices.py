"""OpenAI models' shipped prices for Codex (US dollars per million tokens; core/prices.py
the rules): the maker's list prices as of 2026-12-05. Prices change: set your own under
`[prices."<model>"]` in config.toml."""

from __future__ import annotations

from core.prices import Price

AS_OF = "2026-12-05"

PRICES: dict[str, Price] = {
    "gpt-5*": Price(1.25, 10.0, 1.25, 0.125),
    "o3*": Price(2.0, 8.0, 2.0, 0.5),
    "o4-mini*": Price(1.1, 4.4, 1.1, 0.275),
}
