"""Steps the environment services share: loading, the secret checks, test secrets, levels.

A board write and an accepted proposal apply a change through the same steps
(`apply_change`), and a proposal is checked by running them without writing, so "validated
like a board write" holds by construction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from core.errors import InvalidField, NotFound
from environments import fields as f
from environments import secret_door
from environments.levels import Stand, confirmations
from environments.models import Environment, EnvironmentAccess
from policy import selectors as policy_selectors
from policy.merge import Merged
from tasks.events import EventKind, record_event
from tasks.fields import did_you_mean, quotable
from tasks.models import Project
from tasks.proposals import NeedsConfirmation

ENV_FIELDS = ("name", "kind", "base_url", "sign_in_allowed", "login_state_path", "notes")
TEXT_FIELDS = ("base_url", "login_state_path", "notes")


@dataclass
class Change:
    """One change of an environment, as the board's form or a proposal gives it.

    None = not given (keeps the value); "" clears a text. access: entries to add.
    """

    environment: str  # the name (current name for an existing one)
    new_name: str | None = None
    kind: str | None = None
    base_url: str | None = None
    sign_in_allowed: bool | None = None
    login_state_path: str | None = None
    notes: str | None = None
    level: str | None = None
    overrides: dict[str, str] | None = None
    access: list[dict[str, Any]] = field(default_factory=list)


# --- loading ----------------------------------------------------------------------------------


def find_environment(project: Project, name: str) -> Environment | None:
    return project.environments.filter(name__iexact=(name or "").strip()).first()


def load_environment(project: Project, name: str) -> Environment:
    found = find_environment(project, name)
    if found is None:  # the name is not repeated: it may be a value typed in the wrong place
        names = [e.name for e in project.environments.all()]
        raise NotFound(
            f"Unknown environment in {project.slug}; its environments: "
            f"{', '.join(names) or 'none yet'}.{did_you_mean(name, names)} "
            f"environments_get(project={project.slug!r}) lists them."
        )
    return found


def load_entry(entry: int) -> EnvironmentAccess:
    found = (
        EnvironmentAccess.objects.select_related("environment__project").filter(id=entry).first()
    )
    if found is None:
        raise NotFound(f"Unknown access entry #{entry}.")
    return found


# --- policies ---------------------------------------------------------------------------------


def project_policy(project: Project) -> Merged:
    return policy_selectors.effective_for(project).merged


def environment_policy(project: Project, environment: Environment | None) -> Merged:
    """The environment's effective policy; for a new environment, the project's (§7)."""
    if environment is None:
        return project_policy(project)
    return policy_selectors.effective_for(project, environment).merged


def check_secrets(values: dict[str, str], policy: Merged, *, prefix: str = "") -> None:
    """Refuse a text that looks like a secret: the field and the detector, never the value.
    Through the write door, so what the policy lets through is let through the database's
    last line too (core/no_secrets.py)."""
    secret_door.refuse(values={f"{prefix}{k}": v for k, v in values.items()}, policy=policy)


def check_field_names(names: Iterable[Any], policy: Merged, *, field: str = "fields") -> None:
    """Refuse a field name that looks like a secret, read as typed: the stored name is
    lowercased, where a token's shape (AKIA…) is no longer seen by the door or the last
    line. The refusal says "a key of fields", never the name."""
    secret_door.refuse(values={field: dict.fromkeys(map(str, names))}, policy=policy)


def test_secrets_allowed(kind: str, policy: Merged) -> bool:
    """Never on live, whatever the layers say (the schema has no live key either)."""
    return kind != "live" and bool(policy.get(f"secrets.test_secrets.{kind}"))


def has_test_secrets(environment: Environment) -> bool:
    return any(
        isinstance(v, dict) for e in environment.access_entries.all() for v in e.fields.values()
    )


# --- applying a change --------------------------------------------------------------------------


def apply_change(
    project: Project,
    change: Change,
    *,
    actor: str,
    confirmed: bool,
    write: bool,
    proposal: bool = False,
) -> tuple[Environment, list[EnvironmentAccess], tuple[str, ...]]:
    """Validate `change` against the project and, when `write`, store it with its events.

    Returns the environment, the added entries and the changed field names. Raises
    NeedsConfirmation (unless confirmed) when it raises live (§7 Permission levels). The
    secret checks use the environment's effective policy, or the project's for a new
    environment and for a proposal (§7).
    """
    existing = find_environment(project, change.environment)
    name = existing.name if existing else f.clean_name(change.environment)
    if existing is None and change.kind is None:
        shown = f" ({name})" if quotable(name) else ""
        raise InvalidField("kind", f"A new environment{shown} needs a kind.")
    env = existing or Environment(project=project, name=name)
    before = Stand(env.kind, env.level, dict(env.overrides)) if existing else None
    changed = _set_values(env, change, creating=existing is None)
    if (
        existing is not None
        and "kind" in changed
        and env.kind == "live"
        and has_test_secrets(existing)
    ):
        raise InvalidField(
            "kind",
            f"{existing.name} has test secrets, so it cannot become live; remove them first.",
        )
    if existing is not None and "name" in changed:
        clash = find_environment(project, env.name)
        if clash is not None and clash.id != existing.id:
            raise InvalidField(
                "name", f"{project.slug} already has an environment named {clash.name}."
            )
    if existing is None and find_environment(project, env.name) is not None:
        raise InvalidField("name", f"{project.slug} already has an environment named {env.name}.")
    policy = environment_policy(project, None if proposal else existing)
    texts = {k: getattr(env, k) for k in ("name", *TEXT_FIELDS) if getattr(env, k)}
    check_secrets(texts, policy)  # the name too: events carry it, and are never deleted
    entries = [_new_entry(env, item, policy) for item in change.access]
    levels_policy = environment_policy(project, existing)
    reasons = confirmations(
        before,
        Stand(env.kind, env.level, dict(env.overrides)),
        policy_before=levels_policy,
        policy_after=levels_policy,
        project_policy=project_policy(project),
    )
    if reasons and not confirmed:
        raise NeedsConfirmation(reasons)
    if not write or (not changed and not entries and existing is not None):
        return env, entries, changed
    return _store(env, entries, changed, created=existing is None, actor=actor), entries, changed


def _set_values(env: Environment, change: Change, *, creating: bool) -> tuple[str, ...]:
    old = {k: getattr(env, k) for k in (*ENV_FIELDS, "level", "overrides")} if not creating else {}
    if change.new_name is not None:
        env.name = f.clean_name(change.new_name)
    if change.kind is not None:
        env.kind = f.clean_kind(change.kind)
    if change.base_url is not None:
        env.base_url = f.clean_base_url(change.base_url)
    if change.login_state_path is not None:
        env.login_state_path = f.clean_text(
            "login_state_path", change.login_state_path, one_line=True
        )
    if change.notes is not None:
        env.notes = f.clean_text("notes", change.notes, f.NOTES_MAX)
    if change.level is not None:
        env.level = f.clean_level(change.level)
    if change.overrides is not None:
        env.overrides = f.clean_overrides(change.overrides, dict(env.overrides or {}))
    if change.sign_in_allowed is not None:
        env.sign_in_allowed = bool(change.sign_in_allowed)
    elif creating:
        env.sign_in_allowed = env.kind != "live"  # on by default for local and test
    if env.kind == "live":
        env.sign_in_allowed = False  # forced off on live (the database refuses it too)
    if creating:
        return tuple(
            k for k in (*ENV_FIELDS, "level", "overrides") if getattr(env, k) not in ("", {})
        )
    return tuple(k for k, v in old.items() if getattr(env, k) != v)


def _new_entry(env: Environment, item: dict[str, Any], policy: Merged) -> EnvironmentAccess:
    if not isinstance(item, dict):
        raise InvalidField("access", 'access entries are objects: {"kind": "ssh", "fields": {…}}.')
    kind = f.clean_access_kind(item.get("kind"))
    raw = item.get("fields") or {}
    if any(isinstance(v, dict) for v in (raw.values() if isinstance(raw, dict) else ())):
        raise InvalidField(
            "access", "Test secrets are entered by the owner on the board, never proposed."
        )
    values = f.clean_access_fields(kind, raw)
    check_field_names(raw, policy)
    check_secrets(values, policy, prefix=f"{kind} ")
    return EnvironmentAccess(environment=env, kind=kind, fields=values)


def _store(
    env: Environment,
    entries: list[EnvironmentAccess],
    changed: tuple[str, ...],
    *,
    created: bool,
    actor: str,
) -> Environment:
    now = timezone.now()
    if changed or created:
        env.changed_at, env.changed_by = now, actor
        if created:
            env.position = env.project.environments.count() + 1
        env.save()
        kind = EventKind.ENVIRONMENT_CREATED if created else EventKind.ENVIRONMENT_UPDATED
        record_event(kind, project=env.project, actor=actor, payload=env_payload(env, changed))
    for position, entry in enumerate(entries, start=env.access_entries.count() + 1):
        entry.environment, entry.position = env, position
        entry.changed_at, entry.changed_by = now, actor
        entry.save()
        record_event(
            EventKind.ENVIRONMENT_ACCESS_ADDED,
            project=env.project,
            actor=actor,
            payload=access_payload(entry),
        )
    return env


def env_payload(env: Environment, changed: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "environment": env.name,
        "kind": env.kind,
        "level": env.level or "",
        "fields": list(changed),
    }


def access_payload(entry: EnvironmentAccess) -> dict[str, Any]:
    """Names only: field values are references, yet the log never needs them."""
    return {
        "environment": entry.environment.name,
        "entry": entry.id,
        "access_kind": entry.kind,
        "fields": sorted(entry.fields),
    }
