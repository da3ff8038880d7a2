"""The hook routes: each registered agent's path → its door, and each wake-up route → the
wait (relaybay_site/asgi.py routes them after the Host, Origin and Bearer checks). Built from
the registry (sessions/hooks/registry.py) when asked, and kept until an agent is added."""

from __future__ import annotations

from core import caches
from sessions.hooks import registry
from sessions.hooks.endpoint import App, door

_built: dict[tuple[str, ...], dict[str, App]] = {}
caches.register(
    "sessions.hooks.routes._built",
    key="the registered agents' names",
    bound="one entry",
    invalidation="another set of agents registered: built again",
    reset="none needed",
)


def routes() -> dict[str, App]:
    """Path → door of every registered agent's hooks."""
    key = tuple(spec.name for spec in registry.registered())
    found = _built.get(key)
    if found is None:
        _built.clear()
        found = _built[key] = {spec.path: door(spec) for spec in registry.registered()}
    return found


def wait_paths() -> frozenset[str]:
    """The wake-up hooks' routes (an agent that wakes has one)."""
    return frozenset(spec.wait_path for spec in registry.registered() if spec.wait_path)
