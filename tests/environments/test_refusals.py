"""Refusals of stand writes and proposals never echo what was refused (issue 28, §7).

A wrong level or kind names the allowed values; an unknown capability, access kind, field
name, change key or environment is not repeated (the nearest real name may be offered);
the values here have a token's or a password's shape and must not come back.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import DomainError
from environments import services
from environments.services import Change
from tasks.extensions import CallerRef
from tests.environments.factories import OWNER, make_environment
from tests.support import tokens
from tests.tasks.factories import make_project

pytestmark = pytest.mark.django_db

GHP = tokens.github()  # a GitHub token's shape, 40 characters
HUNTER = "Hunter2-" + "x7Yq" * 7 + "zz"  # a password's shape, 38 characters
SECRETS = [GHP, HUNTER]


@pytest.fixture(autouse=True)
def acme() -> None:
    make_project("acme")
    make_environment("acme", "staging", "test")


def refused(call: Any, **kw: Any) -> str:
    with pytest.raises(DomainError) as caught:
        call(**kw)
    return str(caught.value)


def save(**values: Any) -> str:
    change = Change(environment=values.pop("environment", "staging"), **values)
    return refused(
        services.environment_save, project="acme", change=change, actor=OWNER, confirmed=True
    )


def add_entry(**kw: Any) -> str:
    kw.setdefault("environment", "staging")
    return refused(services.access_add, project="acme", actor=OWNER, **kw)


def propose(change: Any) -> str:
    return refused(
        services.environment_propose,
        project="acme",
        change=change,
        reason="needed",
        actor=CallerRef(session="agent-3"),
    )


@pytest.mark.parametrize("secret", SECRETS)
def test_a_wrong_level_or_kind_names_the_allowed_values(secret: str) -> None:
    level = save(level=secret)
    assert secret not in level
    assert level == "level must be one of none, read, ask, full or default."
    override = save(overrides={"db": secret})
    assert secret not in override
    assert override == "overrides.db must be one of none, read, ask, full or default."
    kind = save(kind=secret)
    assert secret not in kind
    assert kind == "kind must be one of local, test, live."
    access = add_entry(kind=secret, fields={"host": "db"})
    assert secret not in access
    assert access == "kind must be one of ssh, kubectl, db, gitops, logs, monitoring, other."


def test_a_near_miss_gets_the_nearest_real_value() -> None:
    assert save(level="fulll") == "level must be one of none, read, ask, full or default. " + (
        "Did you mean full?"
    )
    assert save(kind="prod") == "kind must be one of local, test, live."  # nothing near
    assert add_entry(kind="kubctl", fields={}).endswith("Did you mean kubectl?")


@pytest.mark.parametrize("secret", SECRETS)
def test_an_unknown_capability_is_not_repeated(secret: str) -> None:
    message = save(overrides={secret: "read"})
    assert secret not in message
    assert message == (
        "overrides names an unknown capability; the capabilities are sign_in, ssh, kubectl, "
        "db, deploy."
    )
    assert save(overrides={"kubctl": "read"}).endswith("Did you mean kubectl?")


@pytest.mark.parametrize("secret", SECRETS)
def test_an_unknown_or_malformed_field_name_is_not_repeated(secret: str) -> None:
    unknown = add_entry(kind="ssh", fields={secret.lower().replace("-", "_"): "x"})
    assert secret.lower().replace("-", "_") not in unknown
    assert unknown == (
        "fields names a field that ssh entries do not have; their fields are alias, host, "
        "port, user, key_path_ref."
    )
    malformed = add_entry(kind="other", fields={f"{secret} x": "y"})
    assert secret not in malformed
    assert secret.lower() not in malformed
    assert "a field name must be 1-40 lowercase letters" in malformed
    assert add_entry(kind="db", fields={"hots": "db"}).endswith("Did you mean host?")


@pytest.mark.parametrize("secret", SECRETS)
def test_an_unknown_proposal_key_is_not_repeated(secret: str) -> None:
    # A detector may refuse a token's shape first (every string of a change, keys too, is
    # scanned); either way the key does not come back.
    message = propose({"environment": "staging", "level": "ask", secret: "x", "notse": "y"})
    assert secret not in message
    assert "notse" not in message


def test_an_unknown_proposal_key_names_the_keys_and_the_nearest() -> None:
    message = propose({"environment": "staging", "level": "ask", HUNTER: "x", "notse": "y"})
    assert message == (
        "change has 2 unknown keys; its keys are environment, kind, base_url, notes, "
        "sign_in_allowed, login_state_path, level, overrides, access. Did you mean notes?"
    )


@pytest.mark.parametrize("secret", SECRETS)
def test_an_unknown_environment_is_not_repeated_and_the_stands_are_named(secret: str) -> None:
    message = add_entry(environment=secret, kind="ssh", fields={"host": "db"})
    assert secret not in message
    assert message.startswith("Unknown environment in acme; its environments: staging. ")
    near = add_entry(environment="stagign", kind="ssh", fields={"host": "db"})
    assert "stagign" not in near
    assert "its environments: staging. Did you mean staging? environments_get" in near


def test_a_new_environment_without_a_kind_names_it_only_when_plain() -> None:
    assert propose({"environment": "prod"}) == "A new environment (prod) needs a kind."
    name = "Hunter2" + "x7Yq" * 5  # a valid environment name with a password's shape
    message = propose({"environment": name})
    assert name not in message
    assert message == "A new environment needs a kind."
