"""The hook routes: each registered agent's path → its door, and each wake-up route → the
wait (relaybay_site/asgi.py routes them after the Host, Origin and Bearer checks). Built from
the registry (sessions/hooks/registry.py) when asked, and kept until an agent is added."""

from __future__ import annotations

from core import caches
from sessions.hooks import registry
from sessions.hooks.endpoint import App, door

# (the registry's change count, path → door, the wake-up routes): asked on every request
_built: list[tuple[int, dict[str, App], frozenset[str]]] = []
caches.register(
    "sessions.hooks.routes._built",
    key="the registry's change count",
    bound="one entry",
    invalidation="an agent registered or taken out: built again on the next request",
    reset="none needed",
)


def _current() -> tuple[int, dict[str, App], frozenset[str]]:
    if not _built or _built[0][0] != registry.changes():
        specs = registry.registered()
        doors = {spec.path: door(spec) for spec in specs}
        waits = frozenset(spec.wait_path for spec in specs if spec.wait_path)
        _built[:] = [(registry.changes(), doors, waits)]
    return _built[0]


def routes() -> dict[str, App]:
    """Path → door of every registered agent's hooks."""
    return _current()[1]


def wait_paths() -> frozenset[str]:
    """The wake-up hooks' routes (an agent that wakes has one)."""
    return _current()[2]
