"""Environments made through their services, so every row has its event."""

from __future__ import annotations

import json
from typing import Any

from environments import services
from environments.models import Environment
from policy import services as policy_services

OWNER = "owner"


def make_environment(
    project: str, name: str = "live", kind: str = "live", **values: Any
) -> Environment:
    change = services.Change(environment=name, kind=kind, **values)
    return services.environment_save(
        project=project, change=change, actor=OWNER, confirmed=True
    ).obj


def guard_mode(project: str, mode: str) -> None:
    """The project's layer sets the guard's mode (block, warn, log, off)."""
    body = json.dumps({"guard": {"mode": mode}})
    policy_services.policy_layer_save(scope=project, text=body, actor=OWNER, confirmed=True)


def live_stand(
    project: str, access: list[dict[str, Any]], *, mode: str = "", **values: Any
) -> None:
    """The project's live stand with its access entries, the guard in `mode` when given."""
    make_environment(project, access=access, **values)
    if mode:
        guard_mode(project, mode)
