"""A check's one line (`[ok]` / `[FAIL]` with the command that fixes it) and how a list of
them is printed: the shape of `relaybay doctor`, `setup --check` and Settings →
Integrations, whichever agent a check is about."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Item:
    ok: bool
    name: str
    detail: str
    fix: str = ""

    def __post_init__(self) -> None:
        if not self.ok and not self.fix.strip():
            raise ValueError(f"the failed check {self.name!r} must name the command that fixes it")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        if self.ok:
            return f"[ok] {self.name}: {self.detail}"
        return f"[FAIL] {self.name}: {self.detail}. Fix: {self.fix}"


def render(items: list[Item], *, as_json: bool) -> str:
    if as_json:
        return json.dumps([i.as_dict() for i in items], indent=2)
    return "\n".join(i.line() for i in items)


def not_connected(name: str, connect: str, found: str = "") -> Item:
    """An agent the owner has not connected: one ok line naming the command that connects
    it, never a failure (a machine that runs only Codex owes Claude Code nothing)."""
    return Item(True, name, f"not connected (to connect: {connect})" + (found and f"; {found}"))
