"""Every app plugs into the seams once (docs/architecture.md §2 "Seams instead of imports"):
a second ready() — tests and the dev server's reloader run it again — registers nothing
twice, so no task section, card chip, Inbox group or hook line ever shows twice."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps

from tasks import extensions

ROOT = Path(__file__).resolve().parent.parent
NOT_OURS = {"tests", ".venv"}


def _ours(path: str | None) -> bool:
    """A module of the repository's own packages (not a test, not an installed library)."""
    if not path or not path.startswith(str(ROOT)):
        return False
    return Path(path).relative_to(ROOT).parts[0] not in NOT_OURS


def _registries() -> dict[str, list[Any] | dict[Any, Any] | set[Any]]:
    """Every module-level list, dict and set of our own modules: the seams' registries are
    among them, wherever an app keeps its own (the hook answers' providers, the scans …)."""
    found: dict[str, list[Any] | dict[Any, Any] | set[Any]] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not _ours(getattr(module, "__file__", None)):
            continue
        for attr, value in vars(module).items():
            if isinstance(value, list | dict | set) and not attr.startswith("__"):
                found[f"{name}.{attr}"] = value
    return found


@pytest.fixture
def registries() -> Iterator[dict[str, Any]]:
    """The registries before, restored afterwards even when a second ready() doubled one."""
    found = _registries()
    saved = {name: value.copy() for name, value in found.items()}
    yield saved
    for name, value in found.items():
        if isinstance(value, list):
            value[:] = saved[name]
        else:
            value.clear()
            value.update(saved[name])


def test_a_second_ready_registers_nothing_twice(registries: dict[str, Any]) -> None:
    seams = (extensions._card_extras, extensions._md_sections, extensions._inbox_groups)
    assert all(seams), "the apps' registries are filled by the first ready()"
    for config in apps.get_app_configs():
        config.ready()
    grown = {
        name: (len(registries[name]), len(value))
        for name, value in _registries().items()
        if name in registries and len(value) != len(registries[name])
    }
    assert not grown, f"registered twice (before, after): {grown}"
