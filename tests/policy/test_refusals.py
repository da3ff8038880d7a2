"""Policy refusals never echo a long or secret-shaped value or an unknown name (issue 28, §7
Validation), and policy_get names an ignored layer's source once.

jsonschema's own messages quote the value whole and name an unknown key; validate says the
problem in its own words: a short plain value is quoted as the spec's example
(`guard.mode: 'loud' is not one of [...]`), anything else is described by type and length.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.utils import timezone

from core.errors import NotFound
from policy import selectors, validate
from policy.models import PolicyLayer
from policy.render_md import policy_md
from tests.policy.conftest import make_environment
from tests.support import tokens
from tests.tasks.factories import make_project

GHP = tokens.github()  # a GitHub token's shape, 40 characters
HUNTER = "Hunter2-" + "x7Yq" * 7 + "zz"  # a password's shape, 38 characters
MODES = "['off', 'log', 'warn', 'block']"


def problems(body: Any, scope: str = "project") -> list[str]:
    return validate.errors(body, label="project:acme", scope=scope)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"guard": {"mode": GHP}}, f"guard.mode: a text of 40 characters is not one of {MODES}"),
        ({"guard": {"mode": HUNTER}}, f"guard.mode: a text of 38 characters is not one of {MODES}"),
        (
            {"levels": {"live": {"db": HUNTER}}},
            "levels.live.db: a text of 38 characters is not one of ['none', 'read', 'ask', 'full']",
        ),
        ({"description": [GHP]}, "description: a list of 1 item is not of type 'string'"),
        ({"guard": {"disable": [GHP]}}, "guard.disable[0]: a text of 40 characters is not one of"),
        (
            {"guard": {"patterns": [{"id": GHP.lower(), "change": "x"}]}},
            "guard.patterns[0].id: a text of 40 characters does not match "
            "'^[a-z0-9][a-z0-9-]{1,39}$'",
        ),
        (
            {"guard": {"patterns": [{"id": "mine", "change": "x", "description": HUNTER * 6}]}},
            "guard.patterns[0].description: is 228 characters long; at most 200",
        ),
        (
            {"guard": {GHP: "x"}},
            "guard: unknown key; the keys here are mode, disable, disable+, disable-, patterns, "
            "patterns+, patterns-",
        ),
        (
            {HUNTER: 1, "levles": {}},
            "(top level): unknown keys; the keys here are $schema, description, preset, "
            "levels, guard, secrets (did you mean levels?)",
        ),
    ],
)
def test_a_schema_problem_never_quotes_a_long_value_or_an_unknown_key(
    body: Any, expected: str
) -> None:
    found = problems(body)
    assert len(found) == 1, found
    assert found[0].startswith(f"project:acme: {expected}"), found[0]
    for secret in (GHP, GHP.lower(), HUNTER):
        assert secret not in found[0]
    assert "levles" not in found[0]


def test_a_short_plain_value_is_still_quoted_as_the_spec_shows() -> None:
    assert problems({"guard": {"mode": "loud"}}) == [
        f"project:acme: guard.mode: 'loud' is not one of {MODES}"
    ]
    assert problems({"guard": {"mdoe": "warn"}}) == [
        "project:acme: guard: unknown key; the keys here are mode, disable, disable+, "
        "disable-, patterns, patterns+, patterns- (did you mean mode?)"
    ]
    assert problems({"guard": {"disable": ["git-push", "git-push"]}}) == [
        "project:acme: guard.disable: holds the same item twice; list each once"
    ]


def test_a_custom_pattern_id_is_quoted_only_when_plain() -> None:
    token_like = "a1b2c3d4e5f6a7b8c9d0"  # fits the id pattern, yet has a token's shape
    found = problems(
        {
            "guard": {
                "patterns": [
                    {"id": token_like, "change": "x"},
                    {"id": token_like, "change": "(a+)+"},
                ]
            }
        }
    )
    assert all(token_like not in line for line in found), found
    assert "guard.patterns[1].id: this id is used twice; pattern ids are unique" in found[0]
    assert found[1].startswith("project:acme: guard.patterns[1].change: ")
    plain = problems({"guard": {"patterns": [{"id": "mine", "change": "(a+)+"}]}})
    assert plain[0].startswith("project:acme: guard.patterns[0].change (id 'mine'): ")


@pytest.mark.django_db
@pytest.mark.parametrize("secret", [GHP, HUNTER])
def test_an_unknown_scope_is_not_repeated(secret: str) -> None:
    acme = make_project("acme")
    make_environment(acme, "live")
    with pytest.raises(NotFound) as project:
        selectors.resolve_scope(secret)
    assert secret not in str(project.value)
    assert str(project.value).startswith("Unknown project in the scope. Write the scope")
    with pytest.raises(NotFound) as environment:
        selectors.resolve_scope(f"acme/{secret}")
    assert secret not in str(environment.value)
    assert str(environment.value).startswith("Unknown environment in acme; its environments: live")


@pytest.mark.django_db
def test_an_unknown_scope_offers_the_nearest_real_one() -> None:
    acme = make_project("acme")
    make_environment(acme, "staging", "test")
    with pytest.raises(NotFound, match=r"^Unknown project in the scope\. Did you mean acme\? "):
        selectors.resolve_scope("acmee")
    with pytest.raises(NotFound, match=r"staging\. Did you mean staging\? environments_get"):
        selectors.resolve_scope("acme/stagign")


@pytest.mark.django_db
def test_policy_get_names_an_ignored_layers_source_once() -> None:
    project = make_project("acme")
    PolicyLayer.objects.create(
        project=project,
        body={"guard": {"mode": "loud"}, "levels": {"staging": {}}},
        changed_at=timezone.now(),
    )
    answer = policy_md(selectors.effective(selectors.resolve_scope("acme")))
    ignored = [line for line in answer.splitlines() if line.startswith("Ignored (broken)")]
    assert ignored == [
        f"Ignored (broken): project:acme: guard.mode: 'loud' is not one of {MODES}; levels: "
        "unknown key; the keys here are local, test, live"
    ]
    assert answer.count("project:acme") == 1


@pytest.mark.django_db
def test_the_broken_layer_log_line_names_its_source_once(caplog: pytest.LogCaptureFixture) -> None:
    # issue 38: the line read "policy layer project:acme is broken and ignored: project:acme: …".
    project = make_project("acme")
    PolicyLayer.objects.create(
        project=project,
        body={"guard": {"mode": "loud"}, "levels": {"staging": {}}},
        changed_at=timezone.now(),
    )
    with caplog.at_level(logging.ERROR, logger="relaybay.policy"):
        selectors.effective(selectors.resolve_scope("acme"))
        selectors.effective(selectors.resolve_scope("acme"))  # logged once per version
    lines = [r.getMessage() for r in caplog.records if "is broken and ignored" in r.getMessage()]
    assert lines == [
        f"policy layer project:acme is broken and ignored: guard.mode: 'loud' is not one of "
        f"{MODES}; levels: unknown key; the keys here are local, test, live"
    ]
