"""Environments made through their services, so every row has its event."""

from __future__ import annotations

from typing import Any

from environments import services
from environments.models import Environment

OWNER = "owner"


def make_environment(
    project: str, name: str = "live", kind: str = "live", **values: Any
) -> Environment:
    change = services.Change(environment=name, kind=kind, **values)
    return services.environment_save(
        project=project, change=change, actor=OWNER, confirmed=True
    ).obj
