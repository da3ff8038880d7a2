"""The memory's search at 50,000 items (issue 17, §8 Search). Targets: memory_search p99
≤ 20 ms at 50,000 items; keeping the index in step ≤ 2 ms per write.

In-process, on a throwaway data folder migrated like `serve` does. The index is filled with
50,000 rows the way the writes fill it (search._insert: title, body, their stems) in one
transaction — 49,500 synthetic reports and decisions of 50 projects in English and Russian,
then a few hundred real decisions through decision_add — and timed:

- the floor: a one-row ORM query (Project by slug) on the same SQLite file;
- search.search for one-, two- and three-word queries, English and Russian, with and without
  a project filter;
- the write cost: decision_add with the index observer against decision_add with it
  switched off (the same service, the same transaction), and index_note's replace alone.

Prints a table and asserts nothing. Run: .venv/bin/python bench/search.py [N]
(N calls per row, default 300; about a minute, most of it filling the index).
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import percentile, table

CALLS = 300
ITEMS = 50_000
PROJECTS = 50
SEARCH_TARGET_MS = 20.0
WRITE_TARGET_MS = 2.0
# Real words, each in about 1 % of the items, in a text of synthetic words whose frequencies
# follow Zipf's law (as words in prose do): what a query for a real term meets.
WORDS_EN = (
    "deploy",
    "deployment",
    "cache",
    "carts",
    "invoice",
    "ledger",
    "checkout",
    "payment",
    "refund",
    "customer",
    "order",
    "shipping",
    "warehouse",
    "stock",
    "price",
    "discount",
    "coupon",
    "gift",
    "card",
    "balance",
    "report",
    "migration",
)
WORDS_RU = (
    "развёртывание",
    "развёртывания",
    "кэш",
    "корзина",
    "счёт",
    "оплата",
    "возврат",
    "клиент",
    "заказ",
    "доставка",
    "склад",
    "цена",
    "скидка",
    "купон",
    "баланс",
    "отчёт",
    "миграция",
)
VOCABULARY = 20_000
QUERIES = [
    ("one English word", "deploying", None),
    ("two English words", "gift balance", None),
    ("three words, a project", "invoice ledger refund", "bench-7"),
    ("one Russian word", "развёртывания", None),
    ("a prefix", "migra", "bench-3"),
    ("the commonest word (in most items; not a target)", "wa", None),
]


def setup(home: Path) -> None:
    for name in list(os.environ):
        if name.startswith("RELAYBAY_"):
            del os.environ[name]
    os.environ["RELAYBAY_HOME"] = str(home)
    os.environ["DJANGO_SETTINGS_MODULE"] = "relaybay_site.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def timed(fn: Callable[[], Any], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        began = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - began) / 1e9)
    return samples


def fill() -> None:
    from django.db import connection, transaction

    from memory import search
    from tasks import services

    rng = random.Random(7)
    synthetic = [f"w{_base36(n)}" for n in range(VOCABULARY)]
    weights = [1 / (rank + 1) for rank in range(VOCABULARY)]
    for n in range(PROJECTS):
        services.project_upsert(slug=f"bench-{n}", actor="bench")
    search.ensure_table()

    def text(count: int, real: tuple[str, ...]) -> str:
        picked = rng.choices(synthetic, weights, k=count)
        if rng.random() < 0.3:  # a real word in about 30 % of texts, 1 % each
            picked[rng.randrange(count)] = rng.choice(real)
        return " ".join(picked)

    with transaction.atomic(), connection.cursor() as cursor:
        for i in range(ITEMS - 500):
            real = WORDS_RU if i % 5 == 0 else WORDS_EN
            title = text(5, real)
            body = "\n".join(text(12, real) for _ in range(4))
            row = ("report", str(i), f"bench-{i % PROJECTS}", "current", title, body, 10**8 + i)
            search._insert(cursor, row)
    for i in range(500):
        real = WORDS_RU if i % 5 == 0 else WORDS_EN
        services.decision_add(project=f"bench-{i % PROJECTS}", text=text(10, real), actor="b")


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def main(argv: list[str]) -> None:
    count = int(argv[0]) if argv else CALLS
    with tempfile.TemporaryDirectory(prefix="relaybay-bench-search-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        setup(home)
        from memory import search
        from tasks import events, services
        from tasks.models import Project

        began = time.perf_counter()
        fill()
        filled = time.perf_counter() - began
        floor = timed(lambda: Project.objects.filter(slug="bench-1").first(), count)
        rows = [["floor: one-row ORM query", *_figures(floor, floor)]]
        worst = 0.0
        for label, query, project in QUERIES:
            samples = timed(lambda q=query, p=project: search.search(q, project=p), count)
            if "not a target" not in label:
                worst = max(worst, percentile(samples, 99))
            rows.append([f"search: {label}", *_figures(samples, floor)])
        counter = iter(range(10**9))

        def add() -> None:
            services.decision_add(project="bench-2", text=f"Bench {next(counter)}", actor="b")

        with_index = timed(add, count)
        events._observers.remove(search.observe)
        without = timed(add, count)
        events._observers.append(search.observe)
        rows.append(["decision_add, index kept in step", *_figures(with_index, floor)])
        rows.append(["decision_add, observer off", *_figures(without, floor)])
        cost = percentile(with_index, 50) - percentile(without, 50)
        table(
            f"Search over {ITEMS:,} items ({count} calls per row; filled in {filled:.0f} s)",
            ["call", "p50 ms", "p99 ms", "p50 / ORM floor"],
            rows,
        )
        verdict = "meets" if worst * 1000 <= SEARCH_TARGET_MS else "MISSES"
        print(f"\nSearch: worst p99 {worst * 1000:.2f} ms — {verdict} the 20 ms target.")
        verdict = "meets" if cost * 1000 <= WRITE_TARGET_MS else "MISSES"
        print(
            f"Index write cost (p50 difference): {cost * 1000:.2f} ms — {verdict} the 2 ms target."
        )


def _figures(samples: list[float], floor: list[float]) -> list[str]:
    p50, p99 = percentile(samples, 50), percentile(samples, 99)
    return [f"{p50 * 1000:.2f}", f"{p99 * 1000:.2f}", f"{p50 / percentile(floor, 50):.1f}×"]


if __name__ == "__main__":
    main(sys.argv[1:])
