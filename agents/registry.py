"""The one list of agent CLIs (docs/architecture.md "An agent is a package"): one line each,
the package's import path. What each package provides is found by its place in it:
`hooks.SPEC` (its hook adapter, registered with the hook room by agents/apps.py when Django
starts), `setup.command.SETUP` (its part of `relaybay setup`), `setup.panel.PANEL` (its
part of Settings → Integrations), `setup.doctor.DOCTOR` (its items in `relaybay doctor`,
which must load without Django: the doctor also runs when the settings are broken), and
`transcripts.READER` when it has transcripts (agents/apps.py).
Each package's own `NAME` (its __init__.py) is the agent's name, known without Django;
the first package is the default agent of `relaybay setup` and `relaybay hook`."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.setup.command import AgentSetup
    from agents.setup.doctor import Doctor
    from agents.setup.panel import Panel
    from sessions.hooks.registry import AgentSpec

PACKAGES: tuple[str, ...] = (
    "agents.claude_code",
    "agents.codex",
    "agents.gemini_cli",
)


def names() -> tuple[str, ...]:
    """Every agent's name, from its package alone (no Django: `relaybay hook --agent`)."""
    return tuple(import_module(package).NAME for package in PACKAGES)


def specs() -> tuple[AgentSpec, ...]:
    """Every agent's hook SPEC, in the list's order (needs Django's apps loaded)."""
    return tuple(import_module(f"{package}.hooks").SPEC for package in PACKAGES)


def doctors() -> tuple[Doctor, ...]:
    """Every agent's doctor, in the list's order (loads without Django)."""
    return tuple(import_module(f"{package}.setup.doctor").DOCTOR for package in PACKAGES)


def setups() -> tuple[AgentSetup, ...]:
    """Every agent's part of `relaybay setup`, in the list's order (the first is the default)."""
    return tuple(import_module(f"{package}.setup.command").SETUP for package in PACKAGES)


def panels() -> tuple[Panel, ...]:
    """Every agent's part of Settings → Integrations, in the list's order."""
    return tuple(import_module(f"{package}.setup.panel").PANEL for package in PACKAGES)
