"""The write door (environments/secret_door.py): every string of a write, at any depth and
keys too, meets the detectors before anything is stored (issue 28; §7, §8, §9.9)."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core import no_secrets
from core.errors import InvalidField, SecretRefused
from environments import secret_door
from environments.secret_spots import SECRET_SPOTS
from policy import services as policy_services
from policy.catalog import TOKEN_DETECTOR_IDS
from tasks import services as task_services
from tasks.models import Task
from tests.environments.factories import OWNER
from tests.support import tokens
from tests.tasks.factories import make_project

pytestmark = pytest.mark.django_db

GHP = tokens.github()  # 36 characters after ghp_, the last 6 the checksum of the 30
AKIA = tokens.aws_key_id()
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlMTIz"
# One sample per token shape the door refuses in any text.
SAMPLES = {
    "private-key": tokens.private_key(),
    "github-token": GHP,
    "gitlab-token": "glpat-" + "x1Y2z3W4v5U6t7S8r9Q0",
    "slack-token": tokens.slack_bot(),
    "openai-key": tokens.openai(),
    "anthropic-key": tokens.anthropic(),
    "aws-access-key": AKIA,
    "aws-secret-key": f"aws_secret_access_key={tokens.aws_secret()}",
    "google-api-key": tokens.google(),
    "stripe-key": tokens.stripe(),
    "jwt": JWT,
}


@pytest.fixture(autouse=True)
def acme() -> None:
    make_project("acme")


def refusal(**kwargs: object) -> SecretRefused:
    with pytest.raises(SecretRefused) as refused:
        secret_door.refuse("acme", **kwargs)
    return refused.value


def test_every_token_shape_has_a_sample_and_the_quick_look_sees_each() -> None:
    assert set(SAMPLES) == set(TOKEN_DETECTOR_IDS)
    assert {s.detector for s in SECRET_SPOTS} >= set(TOKEN_DETECTOR_IDS)
    for detector, sample in SAMPLES.items():
        assert [d for d, _ in secret_door.tokens(f"say {sample} now")] == [detector]


@pytest.mark.parametrize("detector", sorted(SAMPLES))
def test_a_token_in_a_text_at_any_depth_is_refused_with_its_path_never_the_value(
    detector: str,
) -> None:
    steps = [{"title": "one"}, {"title": "two", "details": ["x", {"deep": SAMPLES[detector]}]}]
    found = refusal(texts={"steps": steps})
    assert found.field == "steps"
    assert str(found) == (
        f"Refused: steps[1].details[1].deep looks like it contains a secret value ({detector})"
    )
    assert SAMPLES[detector] not in str(found)


def test_a_key_is_read_like_a_value() -> None:
    found = refusal(values={"change": {"environment": "live", GHP: "x"}})
    assert str(found) == (
        "Refused: a key of change looks like it contains a secret value (github-token)"
    )
    assert GHP not in str(found)


def test_texts_meet_only_the_token_shapes_values_every_detector() -> None:
    prose = "the db password: Hunter2Hunter2 is in the vault"
    secret_door.refuse("acme", texts={"body": prose})  # prose: a token shape only
    found = refusal(values={"notes": prose})
    assert str(found) == "Refused: notes looks like it contains a secret value (secret-prose)"


def test_a_mapping_entry_at_any_depth_follows_its_keys_field_name_rules() -> None:
    found = refusal(values={"change": {"access": [{"meta": {"password": "Hunter2abc"}}]}})
    assert "change.access[0].meta.password must be a reference" in str(found)
    assert "Hunter2abc" not in str(found)
    secret_door.refuse("acme", values={"change": {"meta": {"password": "$DB_PASSWORD"}}})


def test_a_value_too_big_or_too_deep_is_refused_before_any_detector_reads_it() -> None:
    with pytest.raises(InvalidField, match=r"change is too big: at most 1,000 characters"):
        secret_door.refuse("acme", values={"change": {"blob": "x" * 2000}}, limit=1000)
    nested: object = "x"
    for _ in range(secret_door.MAX_DEPTH + 2):
        nested = [nested]
    with pytest.raises(InvalidField, match="nests deeper than"):
        secret_door.refuse("acme", values={"change": nested})


def test_a_clean_write_reads_no_policy() -> None:
    with CaptureQueriesContext(connection) as queries:
        secret_door.refuse("acme", texts={"title": "Fix the login form"}, values={"kind": "x"})
    assert len(queries) == 0


def set_policy(text: dict[str, object]) -> None:
    policy_services.policy_layer_save(scope="acme", text=json.dumps(text), actor=OWNER)


def test_the_policy_switches_apply_and_the_last_line_agrees() -> None:
    set_policy({"secrets": {"disable": ["github-token"]}})
    task = task_services.task_create(project="acme", title=f"rotate {GHP}", actor=OWNER).obj
    assert Task.objects.get(pk=task.pk).title == f"rotate {GHP}"
    with pytest.raises(SecretRefused):  # another detector is still on
        task_services.task_create(project="acme", title=f"rotate {AKIA}", actor=OWNER)


def test_an_allow_pattern_lets_a_matched_token_through() -> None:
    set_policy({"secrets": {"allow": ["AKIA[A-Z2-7]{16}"]}})
    task = task_services.task_create(project="acme", title=f"docs use {AKIA}", actor=OWNER).obj
    assert AKIA in Task.objects.get(pk=task.pk).title


def test_the_refusal_masks_the_value_in_what_a_form_keeps() -> None:
    found = refusal(texts={"body": f"push with {GHP} now"})
    assert found.hide(f"push with {GHP} now") == "push with *** now"
    assert found.hide(f"push with {GHP.lower()} now") == "push with *** now"
    assert no_secrets.masked(f"a {JWT} b {AKIA}") == "a *** b ***"


def test_a_path_quotes_a_plain_key_and_names_any_other_by_its_place() -> None:
    found = refusal(
        values={"change": {"meta": {"aws_secret_key": "$AWS_KEY", "ASIA_db_password": "Hunter2!"}}}
    )
    assert str(found).startswith("Refused: change.meta.ASIA_db_password must be a reference")
    found = refusal(values={"change": {"meta": {"a": "b", "pass word": "Hunter2!"}}})
    assert str(found).startswith("Refused: change.meta[1] must be a reference")
    found = refusal(values={"change": {"x" * 50 + "_password": "Hunter2!"}})
    assert str(found).startswith("Refused: change[0] must be a reference")
