"""Every cache and in-process store says what it keeps, beside where it is made.

A cache nobody can see is one nobody can reason about: what it is keyed by, what keeps it
small, what makes it forget, and how a test starts clean. So each one registers here in one
call next to its definition — `@kept(...)` over a `functools` cache, `register(...)` for a
`core.memo.Memo` or a module's own store — and docs/architecture.md §13's table is rendered
from this registry (relaybay_site/docgen/caches.py). tests/test_caches.py fails on a
`Memo(`, `lru_cache` or `cache` in the product code that has not registered, and on a
registered name that no longer names anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PURE = "never: a pure function of its key"
CODE = "never: built from the code alone (models, tables, shipped files)"


@dataclass(frozen=True, slots=True)
class Kept:
    """One row of the table."""

    name: str  # the dotted path to the store: module, then attributes
    key: str
    bound: str
    invalidation: str
    reset: str  # how a test starts clean


_kept: dict[str, Kept] = {}


def register(name: str, *, key: str, bound: int | str, invalidation: str, reset: str) -> None:
    """Name a store (`module.attribute`, resolvable by import and getattr) with what it keeps.
    A second registration of a name replaces the first (a module imported again)."""
    size = f"{bound:,}" if isinstance(bound, int) else bound
    _kept[name] = Kept(name, key, size, invalidation, reset)


def kept[F: Callable[..., Any]](
    key: str, *, bound: str = "", invalidation: str = PURE, reset: str = ""
) -> Callable[[F], F]:
    """Register the `functools.cache` / `lru_cache` function below: its name, and its bound
    from the cache itself. An unbounded cache must say in `bound` what keeps it small."""

    def wrap(fn: F) -> F:
        size = fn.cache_parameters()["maxsize"]  # type: ignore[attr-defined]
        if size is None and not bound:
            raise ValueError(f"{fn.__qualname__}: an unbounded cache says what keeps it small")
        register(
            f"{fn.__module__}.{fn.__qualname__}",
            key=key,
            bound=size if size is not None else bound,
            invalidation=invalidation,
            reset=reset or ("none needed" if invalidation in (PURE, CODE) else "`cache_clear()`"),
        )
        return fn

    return wrap


def registered() -> list[Kept]:
    """Every store registered so far, by name."""
    return sorted(_kept.values(), key=lambda k: k.name)
