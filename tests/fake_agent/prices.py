"""fakecli's one made-up model and its price (US dollars per million tokens): effort prices
a fake response with the agent package's own data, as it does Claude Code's and Codex's."""

from __future__ import annotations

from core.prices import Price

AS_OF = "2026-01-01"
MODEL = "fakemodel-1"

PRICES: dict[str, Price] = {
    MODEL: Price(input=2.0, output=10.0, cache_write=0.0, cache_read=0.2),
}
