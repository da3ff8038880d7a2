"""Reads of a project's stands: each environment with its effective levels and policy (§7).

One function builds what the MCP answer, the snapshot lines and the Stands & access page
show, so they cannot disagree about a level or its source.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import TextField
from django.db.models.functions import Cast

from core import caches
from core.memo import Memo
from core.rows import columns, fetch_all, has_rows, rows_where
from environments import sql
from environments.levels import Level, Stand, resolve_all
from environments.models import PENDING, Environment, EnvironmentAccess, EnvironmentProposal
from policy import selectors as policy_selectors
from policy.merge import Merged
from tasks.models import Project


@dataclass(frozen=True)
class StandView:
    """One environment as it is shown: levels with sources, its guard, its entries."""

    environment: Environment
    levels: dict[str, Level]  # "default" (the environment's level) and each capability
    guard_mode: str
    guard_differs: bool  # its own policy makes the guard differ from the project's
    entries: tuple[EnvironmentAccess, ...]
    expose_test_secrets: bool
    ignored_layers: tuple[tuple[str, str], ...]
    policy: Merged  # the environment's effective policy (the guard reads its guard keys)


@dataclass(frozen=True)
class StandsMap:
    project: Project
    preset: str
    guard_mode: str
    policy: Merged
    stands: tuple[StandView, ...]


_ACCESS = columns(EnvironmentAccess, "a")


def has_stands(project: Project) -> bool:
    return has_rows(Environment, "project", project.pk)


def stands_map(project: Project) -> StandsMap:
    """The project's map: its preset and guard mode, and every environment in order."""
    project_effective = policy_selectors.effective_for(project)
    mode = project_effective.merged.get("guard.mode", "warn")
    views = []
    # On every PreToolUse (the guard): the environments with SQL written once, and their
    # access entries only when there are environments.
    environments = rows_where(Environment, "project", project.pk, ("position", "id"))
    entries: dict[int, list[EnvironmentAccess]] = {}
    if environments:
        for row in fetch_all(sql.ACCESS_ENTRIES.text, [project.pk]):
            entry = _ACCESS.build(row)
            entries.setdefault(entry.environment_id, []).append(entry)
    for env in environments:
        effective = policy_selectors.effective_for(project, env)
        merged = effective.merged
        own_mode = merged.get("guard.mode", "warn")
        views.append(
            StandView(
                environment=env,
                levels=resolve_all(Stand(env.kind, env.level, dict(env.overrides)), merged),
                guard_mode=own_mode,
                guard_differs=own_mode != mode,
                entries=tuple(entries.get(env.pk, ())),
                expose_test_secrets=bool(merged.get("secrets.expose_test_secrets_to_agents")),
                ignored_layers=effective.ignored,
                policy=merged,
            )
        )
    return StandsMap(
        project=project,
        preset=project_effective.preset,
        guard_mode=mode,
        policy=project_effective.merged,
        stands=tuple(views),
    )


def guard_stands(project: Project) -> tuple[StandView, ...]:
    """The stands the PreToolUse guard weighs a call against, each with its effective policy
    kept: one read of the map per project and event (docs/architecture.md §6)."""
    return stands_map(project).stands


def pending_proposals(project: Project | None = None) -> list[EnvironmentProposal]:
    rows = EnvironmentProposal.objects.filter(status=PENDING).select_related("project")
    if project is not None:
        rows = rows.filter(project=project)
    return list(rows.order_by("created_at", "id"))


def text_fields(entry: EnvironmentAccess) -> dict[str, str]:
    return {k: v for k, v in entry.fields.items() if not isinstance(v, dict)}


def test_secret_names(entry: EnvironmentAccess) -> list[str]:
    return sorted(k for k, v in entry.fields.items() if isinstance(v, dict))


def test_secret_values(entry: EnvironmentAccess) -> dict[str, Any]:
    """Only for environments_get when the policy exposes them to agents."""
    return {k: v.get("value", "") for k, v in entry.fields.items() if isinstance(v, dict)}


def has_live_stand(project: Project) -> bool:
    """Whether the project has a live environment: where the guard journals actions (§7)."""
    return project.environments.filter(kind="live").exists()


def stored_test_values() -> tuple[str, ...]:
    """Every stored test secret value of every stand (§7 Test secrets): what whatever
    relaybay keeps of a hook event is masked with. Read once and kept until a stand's write
    forgets it (`forget_test_values`): every hook event asks."""
    kept = _test_values.get(None)
    if kept is not None:
        return kept
    rows = (
        EnvironmentAccess.objects.annotate(text=Cast("fields", TextField()))
        .filter(text__contains='"test": true')
        .values_list("fields", flat=True)
    )
    values = (
        str(v.get("value") or "")
        for fields in rows
        for v in fields.values()
        if isinstance(v, dict) and v.get("test") is True
    )
    kept = tuple(dict.fromkeys(v for v in values if v))
    _test_values.set(None, kept)
    return kept


def forget_test_values() -> None:
    """A stand or access entry changed: the next hook event reads the values again. Kept
    values of a deleted entry can only mask more, never reveal."""
    _test_values.clear()


_test_values: Memo[None, tuple[str, ...]] = Memo(1)
caches.register(
    "environments.selectors._test_values",
    key="none: one value, every stand's stored test values",
    bound=_test_values.cap,
    invalidation="a stand or access entry written (`forget_test_values`, at once and on commit)",
    reset="`forget_test_values()` (the autouse fixture)",
)
