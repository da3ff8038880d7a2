"""Google's Gemini models' shipped prices for Gemini CLI (US dollars per million tokens;
core/prices.py the rules): the maker's list prices for prompts up to 200,000 tokens, as of
2026-12-05. Gemini reports no cache writes (its caching is implicit), so cache_write is the
input price and never used. A model not listed here (a preview Gemini names later) shows its
tokens and "cost unknown": set its price under `[prices."<model>"]` in config.toml.
"""

from __future__ import annotations

from core.prices import Price

AS_OF = "2026-12-05"

PRICES: dict[str, Price] = {
    "gemini-2.5-pro*": Price(1.25, 10.0, 1.25, 0.125),
    "gemini-2.5-flash*": Price(0.30, 2.50, 0.30, 0.03),
    "gemini-2.5-flash-lite*": Price(0.10, 0.40, 0.10, 0.01),
    "gemini-3-pro*": Price(2.0, 12.0, 2.0, 0.20),
    "gemini-3-flash*": Price(0.50, 3.0, 0.50, 0.05),
}
