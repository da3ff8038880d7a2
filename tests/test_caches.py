"""Every cache and in-process store says what it keeps (core/caches.py), so the table in
docs/architecture.md §13 cannot miss one: the code is read for every `Memo(`, `lru_cache`
and `cache`, and each must be registered under a name that still names it."""

from __future__ import annotations

from functools import cache, lru_cache
from importlib import import_module
from typing import Any

import pytest

from core import caches
from relaybay_site.docgen.caches import load, sites


def resolve(name: str) -> Any:
    """The object a dotted name names: the longest importable module, then attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: Any = import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            found = getattr(found, attr)
        return found
    raise LookupError(name)


def test_every_memo_lru_cache_and_cache_of_the_product_is_registered() -> None:
    load()
    names = {k.name for k in caches.registered()}
    found = sites()
    assert len(found) > 30  # the reader still finds them
    missing = [
        f"{s.module}:{s.line} {s.name}"
        for s in found
        if not (
            any(n.startswith(s.module + ".") and n.endswith(s.name) for n in names)
            if s.name.startswith(".")
            else s.name in names
        )
    ]
    assert missing == [], (
        "register these where they are made (core.caches: @kept over a functools cache, "
        "register(...) for a Memo or a module's store):\n" + "\n".join(missing)
    )


def test_every_registered_name_still_names_a_store() -> None:
    load()
    gone = []
    for k in caches.registered():
        try:
            resolve(k.name)
        except (LookupError, AttributeError):
            gone.append(k.name)
    assert gone == [], "registered names that name nothing any more: " + ", ".join(gone)


def test_every_entry_says_its_key_bound_invalidation_and_reset() -> None:
    load()
    for k in caches.registered():
        assert all((k.key, k.bound, k.invalidation, k.reset)), k


def test_a_functools_cache_brings_its_own_name_and_bound() -> None:
    @caches.kept("a number")
    @lru_cache(maxsize=7)
    def double(n: int) -> int:
        return 2 * n

    name = f"{__name__}.{double.__qualname__}"
    try:
        entry = next(k for k in caches.registered() if k.name == name)
        assert (entry.key, entry.bound, entry.invalidation) == ("a number", "7", caches.PURE)
        assert entry.reset == "none needed"
    finally:
        caches._kept.pop(name)


def test_an_unbounded_cache_must_say_what_keeps_it_small() -> None:
    with pytest.raises(ValueError, match="what keeps it small"):

        @caches.kept("anything")
        @cache
        def anything(n: int) -> int:
            return n
