"""Does a policy change widen agents' access on live? (§7 Settings → Policy)

A change asks for a second confirmation — on the board, and when the owner accepts an
agent's proposal — when a live level rises above read, the guard mode gets weaker
(block → warn → log → off), built-in guard rules are switched off, or a custom pattern is
removed or changed. Switching secret detectors off does not ask.
"""

from __future__ import annotations

from typing import Any

from policy.catalog import CAPABILITIES, GUARD_MODES, LEVELS
from policy.merge import Merged

_READ = LEVELS.index("read")


def live_level(merged: Merged, capability: str) -> str:
    """levels.live.<capability>, else levels.live.default (what the policy alone gives)."""
    own = merged.get(f"levels.live.{capability}") if capability != "default" else None
    return own or merged.get("levels.live.default") or "read"


def widening(before: Merged, after: Merged) -> tuple[str, ...]:
    """What the change from `before` to `after` widens on live, one phrase each; () if nothing."""
    found = [*_levels(before, after), *_mode(before, after), *_rules(before, after)]
    return (*found, *_patterns(before, after))


def _levels(before: Merged, after: Merged) -> list[str]:
    found = []
    for capability in ("default", *CAPABILITIES):
        if capability != "default" and not (
            before.get(f"levels.live.{capability}") or after.get(f"levels.live.{capability}")
        ):
            continue  # follows levels.live.default, reported there
        old, new = live_level(before, capability), live_level(after, capability)
        if LEVELS.index(new) > _READ and LEVELS.index(new) > LEVELS.index(old):
            found.append(f"levels.live.{capability} rises from {old} to {new}")
    return found


def _mode(before: Merged, after: Merged) -> list[str]:
    old, new = before.get("guard.mode", "warn"), after.get("guard.mode", "warn")
    if GUARD_MODES.index(new) < GUARD_MODES.index(old):
        return [f"guard.mode gets weaker: {old} → {new}"]
    return []


def _rules(before: Merged, after: Merged) -> list[str]:
    old = set(before.get("guard.disable") or [])
    new = [rule for rule in after.get("guard.disable") or [] if rule not in old]
    return [f"built-in guard rules switched off: {', '.join(new)}"] if new else []


def _patterns(before: Merged, after: Merged) -> list[str]:
    new = {p["id"]: p for p in _patterns_of(after)}
    found = []
    for pattern in _patterns_of(before):
        ident = pattern["id"]
        if ident not in new:
            found.append(f"custom guard pattern '{ident}' removed")
        elif new[ident] != pattern:
            found.append(f"custom guard pattern '{ident}' changed")
    return found


def _patterns_of(merged: Merged) -> list[dict[str, Any]]:
    return [p for p in merged.get("guard.patterns") or [] if isinstance(p, dict) and "id" in p]
