"""What both halves of bench/year.py's seeding share (_year_seed.py through the services,
_year_bulk.py in bulk): the projects, the actor and the words their rows say."""

from __future__ import annotations

import itertools
import random

PROJECTS = [f"year-{n}" for n in range(10)]
ACTOR = "bench"
VOCABULARY = (
    "deploy cache checkout invoice ledger refund customer order shipping warehouse stock "
    "price discount coupon balance report migration payment session queue retry timeout "
    "index query page column board review test release rollback schema backup"
)
WORDS = tuple(VOCABULARY.split())


def text(rng: random.Random, n: int) -> str:
    """`n` real words: titles, next steps, the lines a person reads on the board."""
    return " ".join(rng.choice(WORDS) for _ in range(n))


# What memory items, reports and comments say: synthetic words whose frequencies follow
# Zipf's law, as words in prose do, and now and then one real word (bench/search.py does
# the same): a search for a real word meets a few hundred items, not all of them.
SYNTHETIC = [f"w{n:x}" for n in range(8_000)]
ZIPF = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(SYNTHETIC))))


def prose(rng: random.Random, n: int) -> str:
    picked = rng.choices(SYNTHETIC, cum_weights=ZIPF, k=n)
    if rng.random() < 0.3:
        picked[rng.randrange(n)] = rng.choice(WORDS)
    return " ".join(picked)
