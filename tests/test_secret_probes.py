"""The audit's probes of issue 28, one test each: a secret an agent (or the owner) writes
into a place no check used to read is refused, names its field and detector, and leaves no
row, no event and no copy of itself anywhere in the database (§7, §8, §9.9)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from core.errors import InvalidField, SecretRefused
from environments import services as env_services
from environments.models import EnvironmentProposal
from environments.services import Change
from memory.services import blocks, documents, notes
from plans import services as plan_services
from policy import services as policy_services
from policy.models import PolicyProposal
from reviews import services as review_services
from sessions import services as session_services
from tasks import services as task_services
from tasks.extensions import CallerRef
from tasks.models import Event, Task
from tests.environments.factories import OWNER
from tests.reviews.images import png
from tests.support import tokens
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db

AGENT = CallerRef(session="agent-3")
GHP = tokens.github()
AKIA = tokens.aws_key_id()
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlMTIz"


@pytest.fixture(autouse=True)
def acme() -> None:
    make_project("acme")


def stored_anywhere(secret: str) -> list[str]:
    """Every table and column of the database holding `secret` (or it lowercased)."""
    found = []
    with connection.cursor() as cursor:
        tables = connection.introspection.table_names(cursor)
        for table in tables:
            columns = [
                c.name for c in connection.introspection.get_table_description(cursor, table)
            ]
            for column in columns:
                cursor.execute(
                    f'SELECT COUNT(*) FROM "{table}" WHERE CAST("{column}" AS TEXT) LIKE %s '
                    f'OR CAST("{column}" AS TEXT) LIKE %s',
                    [f"%{secret}%", f"%{secret.lower()}%"],
                )
                if cursor.fetchone()[0]:
                    found.append(f"{table}.{column}")
    return found


def refused(write: Callable[[], Any], secret: str, *, detector: str) -> str:
    events = Event.objects.count()
    with pytest.raises(InvalidField) as caught:
        write()
    message = str(caught.value)
    assert f"({detector})" in message
    assert secret not in message
    assert secret.lower() not in message
    assert Event.objects.count() == events
    assert stored_anywhere(secret) == []
    return message


# --- environments -------------------------------------------------------------------------------


def propose(change: Any) -> Any:
    return env_services.environment_propose(
        project="acme", change=change, reason="needed for the deploy", actor=AGENT
    )


def test_a_key_beside_kind_and_fields_in_an_access_entry_is_refused_and_kept_nowhere() -> None:
    entry = {"kind": "ssh", "password": "Hunter2-deploy-99", "fields": {"host": "app.acme"}}
    message = refused(
        lambda: propose({"environment": "live", "kind": "live", "access": [entry]}),
        "Hunter2-deploy-99",
        detector="secret-field",
    )
    assert "change.access[0].password must be a reference" in message
    assert not EnvironmentProposal.objects.exists()


def test_an_unknown_key_of_an_entry_is_refused_naming_where_and_the_nearest_key() -> None:
    entry = {"kind": "ssh", "feilds": {"host": "app.acme"}}
    with pytest.raises(InvalidField) as caught:
        propose({"environment": "live", "kind": "live", "access": [entry]})
    assert str(caught.value) == (
        "change.access[0] has 1 unknown key; its keys are kind, fields. Did you mean fields?"
    )
    assert "feilds" not in str(caught.value)


def test_a_token_nested_deep_in_an_entry_is_refused() -> None:
    entry = {"kind": "other", "fields": {"note": "x"}, "meta": {"list": [AKIA]}}
    message = refused(
        lambda: propose({"environment": "live", "kind": "live", "access": [entry]}),
        AKIA,
        detector="aws-access-key",
    )
    assert "change.access[0].meta.list[0]" in message


def test_a_huge_blob_in_a_proposal_is_refused_before_anything_reads_it() -> None:
    entry = {"kind": "other", "fields": {"blob": "x" * 400_000}}
    with pytest.raises(InvalidField, match="change is too big"):
        propose({"environment": "live", "kind": "live", "access": [entry]})
    assert not EnvironmentProposal.objects.exists()


def test_a_proposal_stores_what_was_checked_with_the_stands_own_name() -> None:
    env_services.environment_save(
        project="acme", change=Change(environment="live", kind="live"), actor=OWNER
    )
    proposal = propose({"environment": "Live", "level": "ask", "notes": "read the runbook"}).obj
    assert proposal.change == {"environment": "live", "notes": "read the runbook", "level": "ask"}


@pytest.mark.parametrize(("name", "detector"), [(GHP, "github-token"), (AKIA, "aws-access-key")])
def test_an_environment_named_like_a_token_is_refused(name: str, detector: str) -> None:
    refused(
        lambda: env_services.environment_save(
            project="acme", change=Change(environment=name, kind="test"), actor=OWNER
        ),
        name,
        detector=detector,
    )
    refused(lambda: propose({"environment": name, "kind": "test"}), name, detector=detector)


def test_an_environment_named_like_a_jwt_is_refused() -> None:
    name = tokens.jwt({"sub": "a"}, signature=30)  # a JWT within a name's 80 characters
    refused(lambda: propose({"environment": name, "kind": "test"}), name, detector="jwt")


# --- policy -------------------------------------------------------------------------------------


def policy_propose(patch: dict[str, Any]) -> Any:
    return policy_services.policy_propose(
        scope="acme", patch=patch, reason="tighten the guard", actor=AGENT
    )


@pytest.mark.parametrize(
    "patch",
    [
        {"description": f"rotated {GHP}"},
        {"$schema": f"https://x.test/{GHP}"},
        {
            "guard": {
                "patterns": [{"id": "x-deploy", "change": "deploy", "description": f"use {GHP}"}]
            }
        },
        {"guard": {"patterns": [{"id": "x-deploy", "change": f"deploy {GHP}"}]}},
        {"secrets": {"allow": [GHP]}},
    ],
    ids=["description", "$schema", "pattern-description", "pattern-regex", "allow-literal"],
)
def test_a_token_anywhere_in_a_policy_patch_is_refused(patch: dict[str, Any]) -> None:
    refused(lambda: policy_propose(patch), GHP, detector="github-token")
    assert not PolicyProposal.objects.exists()


def test_the_owners_policy_editor_refuses_a_token_too() -> None:
    text = json.dumps({"description": f"see {JWT}"})
    refused(
        lambda: policy_services.policy_layer_save(scope="acme", text=text, actor=OWNER),
        JWT,
        detector="jwt",
    )


PASSWORD_KEY = "Hunter2Pw!xyz-password"  # a password's shape, under the name rules


def test_a_refusal_names_a_secret_shaped_key_by_its_place_never_the_key() -> None:
    # issue 38: the path was built from the keys, so the refusal quoted this one.
    overrides = {"db": "ask", "sign_in": "read", PASSWORD_KEY: "Hunter2Hunter2"}
    message = refused(
        lambda: propose({"environment": "live", "kind": "live", "overrides": overrides}),
        PASSWORD_KEY,
        detector="secret-field",
    )
    assert message.startswith("Refused: change.overrides[2] must be a reference")
    message = refused(
        lambda: policy_propose({"guard": {"levels": {}, PASSWORD_KEY: "Hunter2Hunter2"}}),
        PASSWORD_KEY,
        detector="secret-field",
    )
    assert message.startswith("Refused: patch.guard[1] must be a reference")
    assert not PolicyProposal.objects.exists()


def test_a_plain_key_is_still_named_in_the_refusal() -> None:
    entry = {"kind": "other", "fields": {"db_password": "Hunter2Hunter2"}}
    message = refused(
        lambda: propose({"environment": "live", "kind": "live", "access": [entry]}),
        "Hunter2Hunter2",
        detector="secret-field",
    )
    assert message.startswith("Refused: change.access[0].fields.db_password must be a reference")


# --- memory and decisions -------------------------------------------------------------------------


def test_a_decision_source_is_read() -> None:
    refused(
        lambda: task_services.decision_add(
            project="acme", text="Use SQLite", actor=AGENT, source=f"message:{GHP}"
        ),
        GHP,
        detector="github-token",
    )


def test_a_block_label_is_read_before_it_is_lowercased() -> None:
    refused(
        lambda: blocks.block_set(label=GHP, body="x", base_version=0, actor=AGENT, project="acme"),
        GHP,
        detector="github-token",
    )


def test_a_memory_role_is_read_before_it_is_lowercased() -> None:
    refused(
        lambda: notes.memory_add(
            scope="role", role=AKIA, title="Review tasks", body="x", kind="user", actor=AGENT
        ),
        AKIA,
        detector="aws-access-key",
    )


@pytest.mark.parametrize("field", ["name", "kind"])
def test_a_document_name_and_kind_are_read_before_they_are_lowercased(field: str) -> None:
    given = {"name": "runbook", "kind": "spec"} | {field: GHP}
    refused(
        lambda: documents.doc_update(
            project="acme", text="# Runbook", base_version=0, actor=AGENT, title="Runbook", **given
        ),
        GHP,
        detector="github-token",
    )


# --- high-confidence tokens in every text an agent writes ----------------------------------------


def probes(key: str) -> dict[str, Callable[[str], Any]]:
    """One write per text field of the base and the apps on it, `secret` placed in it."""
    return {
        "task title": lambda s: task_services.task_create(project="acme", title=s, actor=AGENT),
        "task next_step": lambda s: task_services.task_update(key=key, next_step=s, actor=AGENT),
        "stage note": lambda s: task_services.task_set_stage(
            key=key, stage="dev", note=s, actor=AGENT
        ),
        "report": lambda s: task_services.report_add(
            key=key, body=f"changed · S · {s}", actor=AGENT
        ),
        "comment": lambda s: task_services.comment_add(key=key, body=s, actor=AGENT),
        "owner comment": lambda s: task_services.owner_comment_add(key=key, body=s),
        "project description": lambda s: task_services.project_upsert(
            slug="acme", description=s, actor=AGENT
        ),
        "plan step": lambda s: plan_services.plan_set(key=key, steps=[{"title": s}], actor=AGENT),
        "review step": lambda s: review_services.review_steps_set(
            key=key, steps=[{"title": "Look", "details": s}], actor=AGENT
        ),
        "session title": lambda s: session_services.task_bind_session(
            task=key,
            session="local_7d1c3e52-1111-4a4a-9b9b-123456789abc",
            session_title=s,
            actor="tester",
        ),
        "caption": lambda s: review_services.attach_file(
            key=key, actor=AGENT, content=png(shade=7), caption=s
        ),
    }


@pytest.mark.parametrize("where", list(probes("x")))
@pytest.mark.parametrize(("secret", "detector"), [(GHP, "github-token"), (JWT, "jwt")])
def test_a_token_in_any_text_an_agent_writes_is_refused(
    where: str, secret: str, detector: str
) -> None:
    key = make_task("acme").key
    write = probes(key)[where]
    refused(lambda: write(f"note: {secret} here"), secret, detector=detector)
    write("plain words")  # the same write without the token goes through


def test_prose_that_only_talks_about_passwords_still_passes() -> None:
    key = make_task("acme").key
    task_services.report_add(
        key=key, body="changed · S · the password: field now rejects 5 characters", actor=AGENT
    )
    assert Task.objects.get(key=key).version == 2


def test_a_secret_refused_is_a_secret_refusal_the_board_can_mask() -> None:
    key = make_task("acme").key
    with pytest.raises(SecretRefused) as caught:
        task_services.owner_comment_add(key=key, body=f"try {GHP} please")
    assert caught.value.hide(f"try {GHP} please") == "try *** please"
