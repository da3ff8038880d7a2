"""Claude models' shipped prices (US dollars per million tokens; core/prices.py the rules).

As of 2026-12-05: `claude-opus-*` was checked against Claude Code's own totals (its
`cost-state` line: 900 input and 180 output tokens of claude-opus-5-5 cost $0.0072); the
other families are the maker's list prices of that date. Prices change: set your own under
`[prices."<model>"]` in config.toml.
"""

from __future__ import annotations

from core.prices import Price

AS_OF = "2026-12-05"

PRICES: dict[str, Price] = {
    "claude-opus-*": Price(5.0, 15.0, 6.25, 0.5),
    "claude-sonnet-*": Price(3.0, 15.0, 3.75, 0.3),
    "claude-haiku-*": Price(1.0, 5.0, 1.25, 0.1),
}
