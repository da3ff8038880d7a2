"""The stands the guard tests decide against: acme-shop's live environment with one
identifier of every kind (a single word and a dotted one where the kind has both)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from environments.guard import Call, Identifier, StandRules, Verdict, decide, mcp, shell
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
    """The guard's decision on a shell call among `stands`."""
    return decide(shell(command), list(stands))


def as_call(tool_name: str, tool_input: Any) -> Call:
    """A call as the tests name it, Claude Code's way ("Bash", "mcp__<server>__<tool>"), as
    the neutral Call an agent's tool table makes of it; any other name is no shell or MCP."""
    if tool_name == "Bash":
        command = tool_input.get("command") if isinstance(tool_input, dict) else None
        return shell(command) if isinstance(command, str) else Call("other")
    if isinstance(tool_name, str) and tool_name.startswith("mcp__"):
        server, _, tool = tool_name[len("mcp__") :].partition("__")
        return mcp(server, tool, tool_input)
    return Call("other")
