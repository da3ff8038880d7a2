"""A policy.json of its own for every policy test, and stands to scope layers to."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from environments import services
from environments.models import Environment
from policy import global_file
from tasks.models import Project


@pytest.fixture(autouse=True)
def policy_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "policy.json"
    monkeypatch.setattr(global_file, "policy_path", lambda: path)
    global_file.forget()
    yield path
    global_file.forget()


def make_environment(project: Project, name: str = "live", kind: str = "live") -> Environment:
    """A stand made through its service, so its row has its event."""
    change = services.Change(environment=name, kind=kind)
    return services.environment_save(
        project=project.slug, change=change, actor="tester", confirmed=True
    ).obj
