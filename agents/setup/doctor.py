"""What `relaybay doctor` asks of each agent's package (agents/<agent>/setup/doctor.py): the
doctor itself (relaybay_site/management/commands/doctor.py) names no agent, it walks the
registry (agents/registry.py) and treats every agent alike: its folder option, the items
that need no server (found, or "not connected (to connect: …)"), whether the owner
connected it, and the checks it gets once connected."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agents.setup.items import Item


class Doctor(Protocol):
    option: str  # its folder's flag ("--claude-home")
    metavar: str
    help: str

    def home(self, given: str | None) -> Path:
        """The agent's folder: the flag's value, else where the agent keeps it."""
        ...

    def connected(self, home: Path) -> bool:
        """Whether the owner connected it (relaybay's hooks or MCP server in its settings)."""
        ...

    def local(self, home: Path, *, with_settings: bool) -> list[Item]:
        """Its items that need no server; `with_settings` False when relaybay's settings
        did not load (the connect command then carries no server flags)."""
        ...

    def checks(self, home: Path, cfg: Any, token: str | None, health: Any) -> list[Item]:
        """Its checks against the running server, once connected."""
        ...
