"""What Settings → Integrations asks of each agent's package (agents/<agent>/setup/panel.py's
PANEL): the page (relaybay_site/integrations.py) names no agent. It walks the registry and
shows, for every agent alike, the package's own facts section (its template, in the
package's folder), the plan of relaybay's entries in the agent's file for the chosen hook
type with Apply / Remove, and the agent's lines in the page's check.

Detection and the check run subprocesses, read files and call this server over HTTP, so
the page runs `facts`, `plans` and `check_items` in a worker thread; `seen_items` reads the
database and runs in Django's sync thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agents.setup.document import SettingsError
from agents.setup.target import Target, server_target, target_problem

if TYPE_CHECKING:
    from agents.setup.items import Item
    from agents.setup.plan import Plan


@dataclass(frozen=True)
class Plans:
    """Both plans for one hook type, or why the file is refused (`error`)."""

    path: Path
    apply: Plan | None
    remove: Plan | None
    error: str | None = None

    def plan(self, action: str) -> Plan | None:
        return self.apply if action == "apply" else self.remove


class Panel(Protocol):
    name: str  # the agent's SPEC.name: the page's `agent` field
    title: str
    file_label: str  # how the page names the file it writes ("settings file", "config.toml")
    modes: tuple[str, ...]  # the hook types it can write; the first is the default
    template: str  # its facts section, under the agents package ("codex/panel.html")

    def facts(self) -> dict[str, Any]:
        """Detection and the file's state for its template (a worker thread)."""
        ...

    def installed_mode(self, base_url: str) -> str:
        """The hook type installed for this server, else the default."""
        ...

    def plans(self, mode: str, facts: dict[str, Any]) -> Plans:
        """Apply and Remove for the hook type `mode` (a worker thread)."""
        ...

    def mode_help(self, mode: str) -> str:
        """One line under the hook type: what that type needs."""
        ...

    def apply_notes(self, mode: str, facts: dict[str, Any]) -> tuple[str, ...]:
        """Notes on Apply that depend on the detected CLI, not on the file."""
        ...

    def check_items(self, base_url: str, token: str, *, server_ok: bool) -> list[Item]:
        """Its lines in the page's check: one ok line naming the connect command when the
        owner has not connected it (a worker thread)."""
        ...

    def plan_help(self) -> str:
        """One line under the plans: what they leave alone."""
        ...

    def seen_items(self) -> list[Item]:
        """Its lines that need the database (a hook event seen), when connected (Django's
        sync thread)."""
        ...


def plans_for(path: Path, make: Callable[[Target, str], Plan]) -> Plans:
    """Apply and Remove of the agent's file `path` for this server's hooks (`make(target,
    action)` is the agent's planner); a file that must not be touched, or cannot be read,
    is the page's refusal instead."""
    from django.conf import settings

    target = server_target(settings.RELAYBAY)
    problem = target_problem(target)
    if problem:
        return Plans(path, None, None, problem)
    try:
        apply, remove = make(target, "apply"), make(target, "remove")
    except SettingsError as exc:
        return Plans(path, None, None, f"Refused: {exc}")
    except OSError as exc:
        return Plans(path, None, None, f"Cannot read {path}: {exc}")
    return Plans(path, apply, remove)
