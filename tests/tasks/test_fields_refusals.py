"""A refusal names the parameter and the allowed values, never what it refused (issue 28).

tasks.fields.shown_value decides how a refused value may appear (quoted when short and
plain, else by type and length), nearest / did_you_mean offer a real valid name; the task
field rules use them. A secret-shaped value pasted into the wrong place never comes back.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import InvalidField
from tasks import services
from tasks.fields import did_you_mean, nearest, quotable, shown_value
from tests.support import tokens
from tests.tasks.factories import ACTOR, make_task

GHP = tokens.github()  # a GitHub token's shape, 40 characters
HUNTER = "Hunter2-" + "x7Yq" * 7 + "zz"  # a password's shape, 38 characters


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("loud", "'loud'"),
        ("staging-2", "'staging-2'"),
        ("warn mode", "'warn mode'"),
        ("", "''"),
        ("x" * 20, "'" + "x" * 20 + "'"),
        ("x" * 21, "a text of 21 characters"),
        (GHP, "a text of 40 characters"),
        (HUNTER, "a text of 38 characters"),
        ("Hunter2", "a text of 7 characters"),  # six or more characters holding a digit
        ("p4ssw0rd", "a text of 8 characters"),
        ("ghp_abc", "a text of 7 characters"),  # a token prefix, however short
        ("sk-abc", "a text of 6 characters"),
        ("it's", "a text of 4 characters"),  # a quote would break the quoting
        ("a\nb", "a text of 3 characters"),
        ("admin:letmein", "a text of 13 characters"),  # user:password, however short
        (5, "5"),
        (1234567, "a number of 7 characters"),
        (True, "true"),
        (None, "null"),
        ([GHP, 1], "a list of 2 items"),
        ({GHP: 1}, "an object of 1 key"),
    ],
)
def test_a_refused_value_is_quoted_only_when_short_and_plain(value: Any, shown: str) -> None:
    assert shown_value(value) == shown
    if isinstance(value, str):
        assert quotable(value) is shown.startswith("'")


def test_the_nearest_name_is_always_a_valid_one() -> None:
    valid = ("sign_in", "ssh", "kubectl", "db", "deploy")
    assert nearest("kubctl", valid) == "kubectl"
    assert nearest("DEPLOY", valid) == "deploy"
    assert nearest(GHP, valid) is None
    assert nearest(42, valid) is None
    assert did_you_mean("deplyo", valid) == " Did you mean deploy?"
    assert did_you_mean(HUNTER, valid) == ""
    assert nearest("Live", ["live", "Staging"]) == "live"
    assert nearest("staging", ["live", "Staging"]) == "Staging"  # the name as it is written


def refusal(**kw: Any) -> str:
    task = make_task()
    with pytest.raises(InvalidField) as refused:
        services.task_update(key=task.key, actor=ACTOR, **kw)
    return str(refused.value)


@pytest.mark.django_db
@pytest.mark.parametrize("secret", [GHP, HUNTER])
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("size", "{}"),
        ("stage", "{}"),
        ("tracker_logged", "{}"),
        ("tracker_url", "ftp://admin:{}@files.example.com/x"),
    ],
)
def test_task_field_refusals_never_repeat_a_secret_shaped_value(
    secret: str, field: str, value: str
) -> None:
    # A detector may refuse the token first (the secret scan); either way it is not repeated.
    message = refusal(**{field: value.format(secret)})
    assert secret not in message
    assert field in message


@pytest.mark.django_db
def test_task_field_refusals_describe_a_long_value_by_its_length() -> None:
    size = HUNTER.lower()  # no detector knows this shape: the field rule answers
    assert refusal(size=size) == (
        "size must be one of S, M, L, or - to clear; got a text of 38 characters."
    )
    assert refusal(stage=size) == (
        "Unknown stage (a text of 38 characters). Stages: plan, dev, review, test, live, done."
    )
    assert refusal(tracker_logged=size) == (
        "tracker_logged must be true or false, got a text of 38 characters."
    )
    assert refusal(tracker_url=f"ftp://admin:{size}@files.example.com/x") == (
        "tracker_url must be an http:// or https:// link, got a text of 70 characters; - clears it."
    )
    assert refusal(size="XL") == "size must be one of S, M, L, or - to clear; got 'XL'."


@pytest.mark.django_db
@pytest.mark.parametrize("secret", [GHP, HUNTER])
def test_an_unknown_task_field_name_is_not_repeated(secret: str) -> None:
    task = make_task()
    with pytest.raises(InvalidField) as refused:
        services.task_patch(key=task.key, fields={secret: "x"}, actor=ACTOR)
    assert secret not in str(refused.value)
    assert str(refused.value).startswith("Unknown task field. Editable fields: title, stage,")


@pytest.mark.django_db
def test_a_misspelt_task_field_gets_the_nearest_real_one() -> None:
    task = make_task()
    with pytest.raises(InvalidField) as refused:
        services.task_patch(key=task.key, fields={"prioirty": "high"}, actor=ACTOR)
    assert str(refused.value).startswith("Unknown task field. Did you mean priority? Editable")
    assert "prioirty" not in str(refused.value)
