"""The effective policy of a scope, with the source of every value (§7), and the page's reads.

A scope is the global policy, a project or an environment. Its layers, a later one winning:
the preset the global layer names, the legacy config keys (only when set), the global file,
the project layer, the environment layer. A stored layer that no longer validates (it was
written by an older version, or edited in the database) is logged once, left out and listed
as ignored. Merged results are cached by what they depend on — the file's modification
time and size, the legacy keys and each stored layer's change time — so the guard pays one
query and a dictionary lookup per call.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Q, QuerySet

from core import caches
from core.errors import NotFound
from policy import global_file, sql, validate
from policy.merge import Layer, Merged, merge, preset_layer
from policy.models import PENDING, PolicyLayer, PolicyProposal
from policy.widen import widening
from tasks.fields import did_you_mean
from tasks.models import Project

log = logging.getLogger("relaybay.policy")
GLOBAL = "global"


@dataclass(frozen=True)
class Scope:
    """Global, a project, or one of its environments (an environments.Environment)."""

    project: Project | None = None
    environment: Any = None

    @property
    def kind(self) -> str:
        if self.environment is not None:
            return "environment"
        return "project" if self.project is not None else GLOBAL

    @property
    def name(self) -> str:
        """How policy_propose and the page's ?scope= write it: global, acme, acme/live."""
        if self.environment is not None:
            return f"{self.project.slug}/{self.environment.name}"
        return self.project.slug if self.project is not None else GLOBAL

    @property
    def source(self) -> str:
        """The source its own layer's values carry."""
        if self.environment is not None:
            return f"environment:{self.name}"
        return f"project:{self.name}" if self.project is not None else GLOBAL

    def label(self) -> str:
        """How errors name its layer: the global file's name, else the source."""
        return global_file.policy_path().name if self.kind == GLOBAL else self.source


@dataclass(frozen=True)
class Effective:
    """The merged policy of a scope: values with sources, the chain, the ignored layers."""

    scope: Scope
    merged: Merged
    preset: str
    chain: tuple[str, ...]
    ignored: tuple[tuple[str, str], ...]  # (source, problem)
    global_error: str | None  # policy.json is broken now; its last valid version is used

    def lines(self) -> list[tuple[str, Any, str]]:
        return self.merged.lines()


# --- scopes -----------------------------------------------------------------------------------


def resolve_scope(text: str) -> Scope:
    """global, <project> or <project>/<environment> (environment names case-insensitively)."""
    text = (text or "").strip()
    if not text or text.lower() == GLOBAL:
        return Scope()
    slug, _, env_name = text.partition("/")
    project = Project.objects.filter(slug=slug.strip()).first()
    if project is None:  # names are not repeated: the text may be a value in the wrong place
        near = did_you_mean(slug, Project.objects.values_list("slug", flat=True))
        raise NotFound(
            f"Unknown project in the scope.{near} Write the scope as global, <project> or "
            "<project>/<environment>; project_list shows the projects."
        )
    if not env_name.strip():
        return Scope(project=project)
    environment = project.environments.filter(name__iexact=env_name.strip()).first()
    if environment is None:
        names = [e.name for e in project.environments.all()]
        raise NotFound(
            f"Unknown environment in {project.slug}; its environments: "
            f"{', '.join(names) or 'none yet'}.{did_you_mean(env_name, names)} "
            f"environments_get(project={project.slug!r}) lists them."
        )
    return Scope(project=project, environment=environment)


def all_scopes() -> list[Scope]:
    """Global, then each project and its environments in board order (the page's picker)."""
    scopes = [Scope()]
    for project in Project.objects.prefetch_related("environments").order_by("slug"):
        scopes.append(Scope(project=project))
        scopes += [Scope(project=project, environment=e) for e in project.environments.all()]
    return scopes


# --- the effective policy -----------------------------------------------------------------------


def effective(scope: Scope) -> Effective:
    """The merged policy of `scope`; cached until a layer it depends on changes."""
    current = global_file.state()
    key = (
        scope.name,
        str(current.path),
        current.stamp,
        current.error,
        _config_key(),
        _layer_stamps(scope),
    )
    cached = _cache.get(key)
    if cached is not None:
        return Effective(scope, *cached)
    parts = _compute(scope, current, _stored_layers(scope))
    if len(_cache) > 512:
        _cache.clear()
    _cache[key] = parts
    return Effective(scope, *parts)


def effective_for(project: Project | None = None, environment: Any = None) -> Effective:
    return effective(Scope(project=project, environment=environment))


def preview(scope: Scope, body: dict[str, Any]) -> Merged:
    """The scope's merged policy if its own layer were `body` (the editor and proposals)."""
    current = global_file.state()
    if scope.kind == GLOBAL:
        return merge([*_base(body), Layer(GLOBAL, body)])
    layers = [*_base(current.body), Layer(GLOBAL, current.body)]
    for layer in _stored_layers(scope):
        source = _source_of(layer)
        if source == scope.source:
            continue
        if not _layer_problems(layer, source):
            layers.append(Layer(source, layer.body))
    layers.append(Layer(scope.source, body))
    return merge(layers)


def widens_on_live(scope: Scope, body: dict[str, Any]) -> tuple[str, ...]:
    """What saving `body` as the scope's layer widens on live (policy/widen.py); () if
    nothing. An environment layer of a local or test environment asks only when that
    environment becomes live (§7). The services ask for confirmation with it; the page
    shows it in the editor's preview and on every pending proposal."""
    if scope.environment is not None and scope.environment.kind != "live":
        return ()
    return widening(effective(scope).merged, preview(scope, body))


def own_body(scope: Scope) -> dict[str, Any]:
    """The scope's own layer as it stands: the global file's (last valid) body, the stored
    project or environment layer, or {} when there is none."""
    if scope.kind == GLOBAL:
        return dict(global_file.state().body)
    layer = own_layer(scope)
    return dict(layer.body) if layer is not None else {}


def proposal_scope(proposal: PolicyProposal) -> Scope:
    """The scope a proposal was made for, or NotFound when its environment is gone."""
    if proposal.project is None:
        return Scope()
    if "/" in proposal.scope and proposal.environment is None:
        raise NotFound(
            f"The environment of proposal #{proposal.id} ({proposal.scope}) no longer exists; "
            "reject it."
        )
    return Scope(project=proposal.project, environment=proposal.environment)


def own_layer(scope: Scope) -> PolicyLayer | None:
    """The stored layer of a project or environment scope (None for global or none stored)."""
    if scope.kind == GLOBAL:
        return None
    return PolicyLayer.objects.filter(project=scope.project, environment=scope.environment).first()


def pending_proposals() -> list[PolicyProposal]:
    return list(
        PolicyProposal.objects.filter(status=PENDING)
        .select_related("project", "environment")
        .order_by("created_at", "id")
    )


def stored_layers() -> list[PolicyLayer]:
    """Every project and environment layer, for the page's list."""
    return list(
        PolicyLayer.objects.select_related("project", "environment").order_by(
            "project__slug", "environment__position", "environment__name"
        )
    )


def layer_source(layer: PolicyLayer) -> str:
    return _source_of(layer)


def layer_problems(layer: PolicyLayer) -> list[str]:
    """Why a stored layer is ignored ([] when it is in effect); checked once per version."""
    return _layer_problems(layer, _source_of(layer))


# --- the steps ----------------------------------------------------------------------------------

_cache: dict[tuple[Any, ...], tuple[Merged, str, tuple[str, ...], tuple[Any, ...], Any]] = {}
_bad_layers: dict[tuple[int, Any], list[str]] = {}
caches.register(
    "policy.selectors._cache",
    key="(scope, policy.json's path and stamp, the config's layer, every stored layer's stamp)",
    bound="512, then cleared",
    invalidation="a layer it depends on changes: another key",
    reset="none needed: the key holds every stamp",
)
caches.register(
    "policy.selectors._bad_layers",
    key="(stored layer id, its change time)",
    bound="1,024, then cleared",
    invalidation="the layer changes: another key",
    reset="none needed: the key holds the change time",
)


def _compute(
    scope: Scope, current: global_file.GlobalState, stored: list[PolicyLayer]
) -> tuple[Merged, str, tuple[str, ...], tuple[tuple[str, str], ...], str | None]:
    layers = _base(current.body)
    if current.exists:
        layers.append(Layer(GLOBAL, current.body))
    ignored = []
    for layer in stored:
        source = _source_of(layer)
        problems = _layer_problems(layer, source)
        if problems:
            ignored.append((source, "; ".join(problems)))
        else:
            layers.append(Layer(source, layer.body))
    merged = merge(layers)
    chain = tuple(layer.source for layer in layers)
    return merged, _preset_name(current.body), chain, tuple(ignored), current.error


def _base(global_body: dict[str, Any]) -> list[Layer]:
    layers = [preset_layer(_preset_name(global_body))]
    legacy = _config_layer()
    if legacy is not None:
        layers.append(legacy)
    return layers


def _preset_name(global_body: dict[str, Any]) -> str:
    return global_body.get("preset") or "default"


def _config_key() -> tuple[Any, ...]:
    cfg = settings.RELAYBAY
    return (cfg["guard_mode"], tuple(sorted((cfg["permission_defaults"] or {}).items())))


def _config_layer() -> Layer | None:
    """guard_mode and [permission_defaults], only when set (the legacy layer `config`)."""
    cfg = settings.RELAYBAY
    body: dict[str, Any] = {}
    if cfg["guard_mode"]:
        body["guard"] = {"mode": cfg["guard_mode"]}
    levels = cfg["permission_defaults"] or {}
    if levels:
        body["levels"] = {kind: {"default": level} for kind, level in levels.items()}
    return Layer("config", body) if body else None


def _layer_rows(scope: Scope) -> QuerySet[PolicyLayer]:
    """The stored layers of the scope: its project layer and, for an environment, its own."""
    if scope.kind == GLOBAL:
        return PolicyLayer.objects.none()
    rows = PolicyLayer.objects.filter(project=scope.project)
    if scope.environment is None:
        return rows.filter(environment__isnull=True)
    return rows.filter(Q(environment__isnull=True) | Q(environment=scope.environment))


def _layer_stamps(scope: Scope) -> tuple[tuple[Any, ...], ...]:
    """(id, changed_at) of the scope's stored layers: the cache key, read on every guard
    call, so one plain SQL statement instead of an ORM query (bench/policy_cost.py)."""
    if scope.kind == GLOBAL:
        return ()
    if scope.environment is None:
        params = [scope.project.id]
    else:
        params = [scope.project.id, scope.environment.id]
    with connection.cursor() as cursor:
        cursor.execute(sql.layer_stamps(scope.environment is not None), params)
        return tuple(map(tuple, cursor.fetchall()))


def _stored_layers(scope: Scope) -> list[PolicyLayer]:
    """The project layer, then the environment layer, of the scope (one query)."""
    rows = _layer_rows(scope).select_related("project", "environment")
    return sorted(rows, key=lambda layer: layer.environment_id is not None)


def _source_of(layer: PolicyLayer) -> str:
    if layer.environment is not None:
        return f"environment:{layer.project.slug}/{layer.environment.name}"
    return f"project:{layer.project.slug}"


def _layer_problems(layer: PolicyLayer, source: str) -> list[str]:
    """A stored layer's problems, checked once per version and logged once."""
    key = (layer.id, layer.changed_at)
    if key not in _bad_layers:
        scope = "environment" if layer.environment_id else "project"
        found = validate.errors(layer.body, label=source, scope=scope, probes=False)
        if found:  # validate wrote each problem as "<source>: …": the line says it once
            problems = "; ".join(p.removeprefix(f"{source}: ") for p in found)
            log.error("policy layer %s is broken and ignored: %s", source, problems)
        if len(_bad_layers) > 1024:
            _bad_layers.clear()
        _bad_layers[key] = found
    return _bad_layers[key]
