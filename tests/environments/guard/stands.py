"""The stands the guard tests decide against: acme-shop's live environment with one
identifier of every kind (a single word and a dotted one where the kind has both)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from environments.guard import Identifier, StandRules, Verdict, decide
from environments.guard.identifiers import identifiers_of
from policy.catalog import CAPABILITIES

ENTRIES = [
    ("ssh", {"alias": "prod-alias", "host": "app"}),
    ("ssh", {"alias": "prod", "host": "10.0.0.5"}),
    ("kubectl", {"context": "prod-ctx"}),
    ("db", {"host": "db.live.example"}),
    ("db", {"host": "postgres"}),
    ("gitops", {"repo": "git@github.com:acme/shop-gitops.git"}),
]
SHORT = Identifier("db", "ssh", "ssh alias")  # two characters: never matched


def levels(default: str = "read", **capabilities: str) -> dict[str, str]:
    return {"default": default, **{c: capabilities.get(c, default) for c in CAPABILITIES}}


def live(mode: str = "warn", level: str = "read", **values: Any) -> StandRules:
    """acme-shop live (live): every capability at `level` unless `levels` says otherwise."""
    identifiers = (*identifiers_of("https://acme-shop.example", ENTRIES), SHORT)
    stand = StandRules(
        project="acme-shop",
        environment="live",
        kind="live",
        identifiers=identifiers,
        levels=levels(level),
        mode=mode,
    )
    return replace(stand, **values)


def other(name: str, identifiers: tuple[Identifier, ...], **values: Any) -> StandRules:
    stand = StandRules("acme-shop", name, "test", identifiers, levels("full"), "warn")
    return replace(stand, **values)


def bash(command: str, *stands: StandRules) -> Verdict:
    """The guard's decision on a Bash call among `stands`."""
    return decide("Bash", {"command": command}, list(stands))
