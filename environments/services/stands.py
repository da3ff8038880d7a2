"""The owner's writes on the Stands & access page: environments, access entries, levels.

Each service is one durable transaction: validate (fields, secret checks, test secrets, the
confirmation for raising live), write, record the event (§7). Levels change only here,
on the board; agents propose instead (proposals.py).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from core import no_secrets
from core.errors import InvalidField
from environments import fields as f
from environments import secret_door
from environments import selectors as env_selectors
from environments.models import Environment, EnvironmentAccess
from environments.services._steps import (
    Change,
    access_payload,
    apply_change,
    check_field_names,
    check_secrets,
    env_payload,
    environment_policy,
    load_entry,
    load_environment,
    test_secrets_allowed,
)
from tasks.events import EventKind, record_event
from tasks.selectors import get_project
from tasks.services import Outcome

KEEP = "***"  # a test secret line "name: ***" keeps the stored value


def environment_save(
    *, project: str, change: Change, actor: str, confirmed: bool = False, new: bool = False
) -> Outcome[Environment]:
    """Create the environment `change.environment` names, or change it (None keeps a value).

    Events environment.created / environment.updated, environment.access_added. Raises
    NeedsConfirmation when it raises live and `confirmed` is False. `new`: the board's "Add
    an environment" form, which must not overwrite an environment of the same name.
    """
    with transaction.atomic(durable=True):
        found = get_project(project)
        existed = found.environments.filter(name__iexact=change.environment.strip()).exists()
        if new and existed:
            raise InvalidField(
                "name",
                f"{found.slug} already has an environment named {change.environment.strip()}; "
                "change it in its own panel.",
            )
        env, entries, changed = apply_change(
            found, change, actor=actor, confirmed=confirmed, write=True
        )
    if not changed and not entries and existed:
        return Outcome(obj=env, notes=(f"Nothing changed: {env.name} already says so.",))
    return Outcome(obj=env, created=not existed, changed=changed)


def environment_delete(*, project: str, environment: str, actor: str) -> Outcome[Environment]:
    """Delete an environment with its access entries and policy layer (environment.deleted)."""
    with transaction.atomic(durable=True):
        found = get_project(project)
        env = load_environment(found, environment)
        payload = env_payload(env)
        env.delete()
        record_event(EventKind.ENVIRONMENT_DELETED, project=found, actor=actor, payload=payload)
    return Outcome(obj=env, changed=("deleted",))


def access_add(
    *,
    project: str,
    environment: str,
    kind: str,
    fields: dict[str, Any],
    test_secrets: dict[str, str] | None = None,
    actor: str,
) -> Outcome[EnvironmentAccess]:
    """Add an access entry (environment.access_added); test secrets only where allowed."""
    with transaction.atomic(durable=True):
        found = get_project(project)
        env = load_environment(found, environment)
        policy = environment_policy(found, env)
        access_kind = f.clean_access_kind(kind)
        values = f.clean_access_fields(access_kind, fields)
        check_field_names(fields, policy)
        check_field_names(test_secrets or {}, policy, field="test_secrets")
        check_secrets(values, policy)
        stored: dict[str, Any] = dict(values)
        stored.update(_test_secrets(env, policy, test_secrets or {}, {}, taken=values))
        _exempt_test_values(stored)
        now = timezone.now()
        entry = EnvironmentAccess.objects.create(
            environment=env,
            kind=access_kind,
            fields=stored,
            position=env.access_entries.count() + 1,
            changed_at=now,
            changed_by=actor,
        )
        record_event(
            EventKind.ENVIRONMENT_ACCESS_ADDED,
            project=found,
            actor=actor,
            payload=access_payload(entry),
        )
    return Outcome(obj=entry, created=True)


def access_update(
    *,
    entry: int,
    fields: dict[str, Any],
    test_secrets: dict[str, str] | None = None,
    actor: str,
) -> Outcome[EnvironmentAccess]:
    """Replace an entry's fields. test_secrets None keeps the stored ones; a dict replaces
    them ("***" keeps that value, a name left out removes it)."""
    with transaction.atomic(durable=True):
        found = load_entry(entry)
        env = found.environment
        policy = environment_policy(env.project, env)
        values = f.clean_access_fields(found.kind, fields)
        check_field_names(fields, policy)
        check_field_names(test_secrets or {}, policy, field="test_secrets")
        check_secrets(values, policy)
        old_tests = {k: v for k, v in found.fields.items() if isinstance(v, dict)}
        stored: dict[str, Any] = dict(values)
        if test_secrets is None:
            stored.update({k: v for k, v in old_tests.items() if k not in values})
        else:
            stored.update(_test_secrets(env, policy, test_secrets, old_tests, taken=values))
        _exempt_test_values(stored)
        if stored == found.fields:
            return Outcome(
                obj=found, notes=(f"Nothing changed: entry #{found.id} already says so.",)
            )
        found.fields, found.changed_at, found.changed_by = stored, timezone.now(), actor
        found.save()
        record_event(
            EventKind.ENVIRONMENT_ACCESS_UPDATED,
            project=env.project,
            actor=actor,
            payload=access_payload(found),
        )
    return Outcome(obj=found, changed=("fields",))


def access_remove(*, entry: int, actor: str) -> Outcome[EnvironmentAccess]:
    with transaction.atomic(durable=True):
        found = load_entry(entry)
        payload = access_payload(found)
        project = found.environment.project
        found.delete()
        record_event(
            EventKind.ENVIRONMENT_ACCESS_REMOVED, project=project, actor=actor, payload=payload
        )
    return Outcome(obj=found, changed=("deleted",))


def _test_secrets(
    env: Environment,
    policy: Any,
    given: dict[str, str],
    stored: dict[str, dict[str, Any]],
    *,
    taken: dict[str, str],
) -> dict[str, dict[str, Any]]:
    """The entry's test secrets after the owner's box: exempt from the secret checks."""
    if not given:
        return {}
    if not test_secrets_allowed(env.kind, policy):
        where = "on live" if env.kind == "live" else f"on {env.kind} environments by the policy"
        raise InvalidField("test_secrets", f"Test secrets are not allowed {where}.")
    if len(given) > f.TEST_SECRETS_MAX:
        raise InvalidField("test_secrets", f"At most {f.TEST_SECRETS_MAX} test secrets per entry.")
    result = {}
    for raw_name, value in given.items():
        name = f.clean_field_name(raw_name)
        if name in taken:
            raise InvalidField("test_secrets", f"{name} is already a field of this entry.")
        if value == KEEP:
            if name not in stored:
                raise InvalidField(
                    "test_secrets", f"{name}: *** keeps a stored value; there is none."
                )
            result[name] = stored[name]
            continue
        text = f.clean_text(f"test_secrets.{name}", value, f.FIELD_VALUE_MAX)
        if not text:
            continue
        result[name] = {"value": text, "test": True}
    return result


def _exempt_test_values(stored: dict[str, Any]) -> None:
    """Test secrets are exempt from the checks (§7), so from the database's last line too;
    the hooks' kept copy of them is read again (now and once the write commits)."""
    env_selectors.forget_test_values()
    transaction.on_commit(env_selectors.forget_test_values)
    for value in stored.values():
        if isinstance(value, dict):
            no_secrets.let_through(t for _, t in secret_door.tokens(str(value.get("value"))))
