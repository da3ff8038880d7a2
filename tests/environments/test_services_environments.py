"""The owner's stand writes and agents' proposals: every rule of §7 Environment, Access
map, Test secrets, Permission levels and Proposals, against a real database."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from core.errors import InvalidField, NotFound
from environments import services
from environments.models import Environment, EnvironmentAccess, EnvironmentProposal
from environments.services import Change, NeedsConfirmation
from policy import services as policy_services
from tasks.events import describe
from tasks.extensions import CallerRef
from tasks.models import Event
from tests.environments.factories import OWNER
from tests.support import tokens
from tests.tasks.factories import make_project

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def acme() -> None:
    make_project("acme")


def save(name: str, **values: Any) -> Any:
    confirmed = values.pop("confirmed", False)
    return services.environment_save(
        project="acme", change=Change(environment=name, **values), actor=OWNER, confirmed=confirmed
    )


def kinds() -> list[str]:
    return list(
        Event.objects.filter(kind__startswith="environment.").values_list("kind", flat=True)
    )


def propose(change: Any, reason: str = "needed for the deploy") -> EnvironmentProposal:
    return services.environment_propose(
        project="acme", change=change, reason=reason, actor=CallerRef(session="agent-3")
    ).obj


# --- environments -------------------------------------------------------------------------------


def test_a_new_environment_gets_defaults_and_an_event() -> None:
    env = save("staging", kind="test", base_url="https://staging.acme.test").obj
    assert env.sign_in_allowed is True  # on by default for local and test
    assert env.position == 1
    assert env.changed_by == OWNER
    event = Event.objects.get(kind="environment.created")
    assert describe(event.kind, event.payload) == "environment staging (test) added"


def test_live_never_allows_sign_in_and_the_database_refuses_it() -> None:
    env = save("prod", kind="live", sign_in_allowed=True).obj
    assert env.sign_in_allowed is False
    with pytest.raises(IntegrityError), transaction.atomic():
        Environment.objects.filter(id=env.id).update(sign_in_allowed=True)


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"kind": "prod"}, "kind"),
        ({"kind": "test", "base_url": "ftp://x"}, "base_url"),
        ({"kind": "test", "level": "admin"}, "level"),
        ({"kind": "test", "overrides": {"root": "full"}}, "overrides"),
        ({}, "kind"),
    ],
)
def test_bad_values_are_refused_naming_the_field(values: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidField) as refused:
        save("staging", **values)
    assert refused.value.field == field
    assert not Environment.objects.exists()


@pytest.mark.parametrize("name", ["", "a/b", "x" * 81, "prod;rm"])
def test_names_are_letters_digits_spaces_dots_dashes_underscores(name: str) -> None:
    with pytest.raises(InvalidField):
        save(name, kind="test")


def test_names_are_unique_per_project_case_insensitively() -> None:
    save("Live", kind="live")
    save("staging", kind="test")
    with pytest.raises(InvalidField, match="already has an environment named Live"):
        save("staging", new_name="LIVE")
    assert save("live", notes="same one").obj.name == "Live"  # the same environment


def test_a_secret_in_notes_is_refused_with_the_field_and_detector_not_the_value() -> None:
    token = tokens.github()
    with pytest.raises(InvalidField) as refused:
        save("staging", kind="test", notes=f"deploy with {token}")
    assert "notes" in str(refused.value)
    assert "(github-token)" in str(refused.value)
    assert token not in str(refused.value)
    assert not Environment.objects.exists()


def test_a_policy_can_switch_a_detector_off() -> None:
    policy_services.policy_layer_save(
        scope="acme", text=json.dumps({"secrets": {"disable": ["github-token"]}}), actor=OWNER
    )
    env = save("staging", kind="test", notes=tokens.github()).obj
    assert env.notes.startswith("ghp_")


# --- levels and confirmations ---------------------------------------------------------------


def test_raising_a_live_level_needs_a_second_confirmation() -> None:
    save("prod", kind="live")
    with pytest.raises(NeedsConfirmation) as asked:
        save("prod", level="full")
    assert asked.value.reasons == ("the level rises from read to full",)
    assert Environment.objects.get().level == ""
    save("prod", level="full", confirmed=True)
    assert Environment.objects.get().level == "full"


def test_a_test_environment_becoming_live_with_full_asks() -> None:
    save("staging", kind="test", level="full")
    with pytest.raises(NeedsConfirmation, match="above the policy's read"):
        save("staging", kind="live")


def test_live_becoming_test_under_the_default_preset_asks() -> None:
    save("prod", kind="live")
    with pytest.raises(NeedsConfirmation, match="the level rises from read to full"):
        save("prod", kind="test")


def test_an_environment_with_test_secrets_cannot_become_live() -> None:
    policy_services.policy_layer_save(
        scope="acme", text=json.dumps({"secrets": {"test_secrets": {"test": True}}}), actor=OWNER
    )
    save("staging", kind="test")
    services.access_add(
        project="acme",
        environment="staging",
        kind="db",
        fields={"host": "db"},
        test_secrets={"password": "pw-for-tests"},
        actor=OWNER,
    )
    with pytest.raises(InvalidField, match="has test secrets, so it cannot become live"):
        save("staging", kind="live", confirmed=True)


# --- access entries ---------------------------------------------------------------------------


def test_access_entries_take_the_fields_of_their_kind() -> None:
    save("prod", kind="live")
    entry = services.access_add(
        project="acme",
        environment="prod",
        kind="ssh",
        fields={"alias": "prod-alias", "host": "10.0.0.5", "key_path_ref": "~/.ssh/acme_live"},
        actor=OWNER,
    ).obj
    assert entry.fields["alias"] == "prod-alias"
    with pytest.raises(InvalidField, match="that ssh entries do not have; their fields are"):
        services.access_add(
            project="acme", environment="prod", kind="ssh", fields={"url": "x"}, actor=OWNER
        )
    other = services.access_add(
        project="acme",
        environment="prod",
        kind="other",
        fields={"vpn_profile": "acme-office"},
        actor=OWNER,
    ).obj
    assert other.fields == {"vpn_profile": "acme-office"}


def test_a_password_field_must_be_a_reference() -> None:
    save("prod", kind="live")
    with pytest.raises(InvalidField) as refused:
        services.access_add(
            project="acme",
            environment="prod",
            kind="db",
            fields={"host": "db", "password_ref": "hunter2hunter2"},
            actor=OWNER,
        )
    assert "(secret-field)" in str(refused.value)
    assert "hunter2hunter2" not in str(refused.value)
    ok = services.access_add(
        project="acme",
        environment="prod",
        kind="db",
        fields={"password_ref": "$DB_PASSWORD"},
        actor=OWNER,
    ).obj
    assert ok.fields["password_ref"] == "$DB_PASSWORD"


def test_test_secrets_only_where_the_policy_allows_and_never_on_live() -> None:
    save("staging", kind="test")
    save("prod", kind="live")
    with pytest.raises(InvalidField, match="not allowed on test environments by the policy"):
        services.access_add(
            project="acme",
            environment="staging",
            kind="db",
            fields={},
            test_secrets={"password": "x"},
            actor=OWNER,
        )
    policy_services.policy_layer_save(
        scope="global", text=json.dumps({"preset": "trusted"}), actor=OWNER, confirmed=True
    )
    entry = services.access_add(
        project="acme",
        environment="staging",
        kind="db",
        fields={"host": "db"},
        test_secrets={"password": "hunter2"},
        actor=OWNER,
    ).obj
    assert entry.fields["password"] == {"value": "hunter2", "test": True}
    with pytest.raises(InvalidField, match="not allowed on live"):
        services.access_add(
            project="acme",
            environment="prod",
            kind="db",
            fields={},
            test_secrets={"password": "x"},
            actor=OWNER,
        )


def test_the_test_secrets_box_keeps_removes_and_leaves_alone() -> None:
    policy_services.policy_layer_save(
        scope="acme", text=json.dumps({"secrets": {"test_secrets": {"test": True}}}), actor=OWNER
    )
    save("staging", kind="test")
    entry = services.access_add(
        project="acme",
        environment="staging",
        kind="db",
        fields={"host": "db"},
        test_secrets={"password": "one", "api_token": "two"},
        actor=OWNER,
    ).obj
    kept = services.access_update(entry=entry.id, fields={"host": "db2"}, actor=OWNER).obj
    assert kept.fields["password"]["value"] == "one"  # a form without the box keeps them
    boxed = services.access_update(
        entry=entry.id, fields={"host": "db2"}, test_secrets={"password": "***"}, actor=OWNER
    ).obj
    assert boxed.fields == {"host": "db2", "password": {"value": "one", "test": True}}


# --- proposals -----------------------------------------------------------------------------------


def test_a_proposal_changes_nothing_until_accepted() -> None:
    proposal = propose({"environment": "prod", "kind": "live", "base_url": "https://acme.example"})
    assert not Environment.objects.exists()
    assert proposal.proposed_by == "agent-3"
    services.environment_proposal_accept(proposal=proposal.id, actor=OWNER)
    assert Environment.objects.get().base_url == "https://acme.example"
    assert kinds() == [
        "environment.proposed",
        "environment.created",
        "environment.proposal_accepted",
    ]
    with pytest.raises(services.AlreadyDecided):
        services.environment_proposal_reject(proposal=proposal.id, actor=OWNER)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"environment": "prod"}, "needs a kind"),
        ({"kind": "live"}, "change.environment names the environment"),
        ({"environment": "prod", "kind": "live", "colour": "red"}, "change has 1 unknown key;"),
        (
            {
                "environment": "prod",
                "kind": "live",
                "access": [
                    {"kind": "db", "fields": {"password_ref": {"value": "x", "test": True}}}
                ],
            },
            "Test secrets are entered by the owner",
        ),
        (
            {
                "environment": "prod",
                "kind": "live",
                "access": [{"kind": "db", "fields": {"password_ref": "s3cr3t-Passw0rd"}}],
            },
            "(secret-field)",
        ),
        ([], "change must be an object"),
    ],
)
def test_a_bad_proposal_is_refused_and_nothing_is_recorded(change: Any, words: str) -> None:
    with pytest.raises(InvalidField) as refused:
        propose(change)
    assert words in str(refused.value)
    assert "s3cr3t-Passw0rd" not in str(refused.value)
    assert not EnvironmentProposal.objects.exists()
    assert kinds() == []


def test_a_proposal_naming_a_stand_in_another_case_keeps_the_stands_own_name() -> None:
    save("live", kind="live")
    proposal = propose({"environment": "Live", "level": "none"})
    assert proposal.change["environment"] == "live"
    event = Event.objects.get(kind="environment.proposed")
    assert event.payload["environment"] == "live"
    services.environment_proposal_accept(proposal=proposal.id, actor=OWNER)
    assert Environment.objects.get().name == "live"
    assert Environment.objects.get().level == "none"


def test_accepting_a_proposal_that_raises_live_asks_the_same() -> None:
    save("prod", kind="live")
    proposal = propose({"environment": "prod", "overrides": {"db": "full"}})
    with pytest.raises(NeedsConfirmation, match="db rises from read to full"):
        services.environment_proposal_accept(proposal=proposal.id, actor=OWNER)
    assert Environment.objects.get().overrides == {}
    services.environment_proposal_accept(proposal=proposal.id, actor=OWNER, confirmed=True)
    assert Environment.objects.get().overrides == {"db": "full"}


def test_deleting_removes_the_entries_and_records_it() -> None:
    save("prod", kind="live")
    services.access_add(
        project="acme",
        environment="prod",
        kind="kubectl",
        fields={"context": "prod-ctx"},
        actor=OWNER,
    )
    services.environment_delete(project="acme", environment="PROD", actor=OWNER)
    assert not EnvironmentAccess.objects.exists()
    assert kinds()[-1] == "environment.deleted"
    with pytest.raises(NotFound, match="environments_get"):
        services.environment_delete(project="acme", environment="prod", actor=OWNER)


def test_a_proposal_that_raises_live_says_so_and_is_still_recorded() -> None:
    save("prod", kind="live")
    outcome = services.environment_propose(
        project="acme",
        change={"environment": "prod", "level": "full"},
        reason="deploys need it",
        actor=CallerRef(session="agent-3"),
    )
    assert outcome.notes == (
        "It raises agents' access on live (the level rises from read to full), so the owner "
        "confirms it a second time when accepting.",
    )
    assert EnvironmentProposal.objects.get().status == "pending"
