"""A policy.json of its own for every policy test, and stands to scope layers to."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.utils import timezone

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
    # The environments app has no write service yet (the Stands & access issue adds it);
    # until then a row is made directly, with the fields that service will set.
    return Environment.objects.create(
        project=project,
        name=name,
        kind=kind,
        sign_in_allowed=kind != "live",
        changed_at=timezone.now(),
        changed_by="tester",
    )
