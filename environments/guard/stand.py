"""One environment as the guard sees it (§7 Guard).

The guard runs inside the PreToolUse hook on every tool call, so it gets plain frozen values
it can read without the database: an environment's identifiers, its resolved levels and
its guard settings. stand_rules() builds them from what the Stands & access map already
holds — an environment, its access entries and its effective policy — so the guard and the
page cannot disagree about a level.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from environments.guard.identifiers import Identifier, identifiers_of

if TYPE_CHECKING:
    from environments.selectors import StandView
    from policy.merge import Merged


@dataclass(frozen=True)
class StandRules:
    """One environment as the guard sees it."""

    project: str
    environment: str
    kind: str  # local / test / live
    identifiers: tuple[Identifier, ...]  # at most 50 used
    # "default" and each capability (sign_in, ssh, kubectl, db, deploy) → none/read/ask/full
    levels: Mapping[str, str]
    mode: str  # off / log / warn / block
    disabled: frozenset[str] = frozenset()  # guard.disable
    patterns: tuple[Mapping[str, str], ...] = ()  # guard.patterns
    test_values: tuple[str, ...] = field(default=(), repr=False)  # masked in the journal


def stand_rules(view: StandView, policy: Merged, project_slug: str) -> StandRules:
    """The guard's view of one environment: `view` from environments.selectors.stands_map,
    `policy` the environment's effective policy (its guard.mode, guard.disable and
    guard.patterns)."""
    env = view.environment
    entries = [(entry.kind, entry.fields) for entry in view.entries]
    disabled = policy.get("guard.disable") or ()
    patterns = policy.get("guard.patterns") or ()
    return StandRules(
        project=project_slug,
        environment=env.name,
        kind=env.kind,
        identifiers=identifiers_of(env.base_url, entries),
        levels=MappingProxyType({aspect: level.level for aspect, level in view.levels.items()}),
        mode=policy.get("guard.mode") or "warn",
        disabled=frozenset(rule for rule in disabled if isinstance(rule, str)),
        patterns=tuple(p for p in patterns if isinstance(p, Mapping)),
        test_values=tuple(_test_values(entries)),
    )


def _test_values(entries: list[tuple[str, Mapping[str, object]]]) -> list[str]:
    """The stored test secret values ({"value": …, "test": true} fields), masked whole in
    the journal whatever their length."""
    values = []
    for _, fields in entries:
        for value in fields.values():
            secret = value.get("value") if isinstance(value, Mapping) else None
            if isinstance(secret, str) and secret:
                values.append(secret)
    return values
