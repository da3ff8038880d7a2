"""Test data made through the services, never objects.create, so every row has its events."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from django.conf import settings

from core.config import load_config
from tasks import services
from tasks.models import Decision, Project, Report, Task

ACTOR = "tester"
_numbers = itertools.count(1)


def make_project(slug: str | None = None, **fields: Any) -> Project:
    slug = slug or f"proj-{next(_numbers)}"
    return services.project_upsert(slug=slug, actor=ACTOR, **fields).obj


def make_task(project: Project | str | None = None, title: str = "A task", **fields: Any) -> Task:
    if project is None:
        project = make_project()
    slug = project if isinstance(project, str) else project.slug
    return services.task_create(project=slug, title=title, actor=ACTOR, **fields).obj


def add_report(task: Task | str, body: str = "changed · M · did the work", **kw: Any) -> Report:
    key = task if isinstance(task, str) else task.key
    return services.report_add(key=key, body=body, actor=ACTOR, **kw).obj


def add_decision(project: Project | str, text: str = "Use SQLite", **kw: Any) -> Decision:
    slug = project if isinstance(project, str) else project.slug
    return services.decision_add(project=slug, text=text, actor=ACTOR, **kw).obj


def reload(task: Task) -> Task:
    return Task.objects.select_related("project").get(pk=task.pk)


def use_config(
    settings_fixture: Any, home: Path, *, mode: str = "warn", rules_toml: str = ""
) -> None:
    """Point settings.RELAYBAY at a fresh config: rules_mode and an optional [rules] table."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(rules_toml)
    settings_fixture.RELAYBAY = load_config(
        environ={"RELAYBAY_HOME": str(home), "RELAYBAY_RULES_MODE": mode}
    )
    assert settings.RELAYBAY.rules_mode == mode
