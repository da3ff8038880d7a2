"""Agents' permission level on an environment, and when raising it needs a second yes (§7).

The level of a capability is, in order: the environment's override for it, the environment's
own level, the policy's levels.<kind>.<capability>, the policy's levels.<kind>.default.
Every level says where it came from: "" when the environment sets it, "default" from the
default preset, "policy: <layer>" from any other layer.

Pure functions over an environment's values and a merged policy, so the resolution and
every confirmation case are tested as tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from policy.catalog import CAPABILITIES, LEVELS
from policy.merge import Merged
from policy.widen import widening

ASPECTS = ("default", *CAPABILITIES)  # "default": the environment's level as a whole
_READ = LEVELS.index("read")


@dataclass(frozen=True)
class Level:
    level: str
    source: str  # "" set by the environment, "default", or "policy: <layer>"

    def shown(self) -> str:
        """read (default) · full (policy: project:acme-shop) · ask"""
        return f"{self.level} ({self.source})" if self.source else self.level


@dataclass(frozen=True)
class Stand:
    """What decides an environment's levels: its kind, own level and overrides."""

    kind: str
    level: str = ""
    overrides: Mapping[str, str] | None = None


def resolve(stand: Stand, capability: str, policy: Merged) -> Level:
    """The level of one capability ("default" for the environment as a whole)."""
    overrides = stand.overrides or {}
    if capability != "default" and overrides.get(capability):
        return Level(overrides[capability], "")
    if stand.level:
        return Level(stand.level, "")
    for path in (f"levels.{stand.kind}.{capability}", f"levels.{stand.kind}.default"):
        value = policy.get(path)
        if value:
            return Level(value, _source_label(policy.sources.get(path, "")))
    return Level("read", "default")


def resolve_all(stand: Stand, policy: Merged) -> dict[str, Level]:
    return {aspect: resolve(stand, aspect, policy) for aspect in ASPECTS}


def policy_only(kind: str, policy: Merged) -> dict[str, str]:
    """What the policy alone gives each capability on `kind` (no environment values)."""
    return {a: resolve(Stand(kind), a, policy).level for a in ASPECTS}


def confirmations(
    before: Stand | None,
    after: Stand,
    *,
    policy_before: Merged,
    policy_after: Merged,
    project_policy: Merged,
) -> tuple[str, ...]:
    """Why saving `after` (over `before`, None when new) needs a second confirmation (§7).

    policy_before / policy_after: the environment's effective policy for its old and new
    kind (the same merge; the environment layer included). project_policy: the project's
    policy without the environment layer.
    """
    was_live = before is not None and before.kind == "live"
    if after.kind == "live" and was_live:
        return _raised(
            resolve_all(before, policy_before), resolve_all(after, policy_after), own_only=True
        )
    if after.kind == "live":  # becomes live: created live, or its kind changes to live
        found = list(
            _raised_over_policy(
                resolve_all(after, policy_after), policy_only("live", project_policy)
            )
        )
        found += [f"its own policy layer: {w}" for w in widening(project_policy, policy_after)]
        return tuple(found)
    if was_live:  # leaves live: any capability the policy of the new kind raises above read
        return _raised(resolve_all(before, policy_before), resolve_all(after, policy_after))
    return ()


def _raised(
    old: dict[str, Level], new: dict[str, Level], *, own_only: bool = False
) -> tuple[str, ...]:
    found: dict[str, tuple[str, str]] = {}
    for aspect in ASPECTS:
        before, after = old[aspect].level, new[aspect].level
        if own_only and new[aspect].source:
            continue  # on a live environment that stays live only its own values ask
        if _above(after, before):
            found[aspect] = (before, after)
    return tuple(f"{_name(a)} rises from {b} to {n}" for a, (b, n) in _distinct(found).items())


def _raised_over_policy(new: dict[str, Level], policy: dict[str, str]) -> tuple[str, ...]:
    found = {a: (policy[a], new[a].level) for a in ASPECTS if _above(new[a].level, policy[a])}
    return tuple(
        f"{_name(a)} is {n} on live, above the policy's {g}"
        for a, (g, n) in _distinct(found).items()
    )


def _above(level: str, than: str) -> bool:
    return LEVELS.index(level) > _READ and LEVELS.index(level) > LEVELS.index(than)


def _distinct(found: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """A capability that only follows the environment's level is said once, as the level."""
    whole = found.get("default")
    return {a: pair for a, pair in found.items() if a == "default" or pair != whole}


def _name(aspect: str) -> str:
    return "the level" if aspect == "default" else f"{aspect}"


def _source_label(source: str) -> str:
    return "default" if source == "preset:default" else f"policy: {source}"
