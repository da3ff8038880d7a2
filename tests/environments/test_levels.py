"""Level resolution and every confirmation case of §7 Permission levels, as tables."""

from __future__ import annotations

import pytest

from environments.levels import Stand, confirmations, resolve
from policy.merge import Layer, Merged, merge, preset_layer


def policy(*bodies: dict, preset: str = "default") -> Merged:
    layers = [preset_layer(preset)]
    layers += [
        Layer("project:acme" if i == 0 else f"environment:acme/e{i}", b)
        for i, b in enumerate(bodies)
    ]
    return merge(layers)


DEFAULT = policy()
PROJECT_DB_ASK = policy({"levels": {"live": {"db": "ask"}}})

RESOLVE = [
    ("the override wins", Stand("live", "none", {"ssh": "full"}), "ssh", DEFAULT, "full"),
    ("then the environment's level", Stand("live", "ask", {"ssh": "full"}), "db", DEFAULT, "ask"),
    (
        "then the policy's capability",
        Stand("live"),
        "db",
        PROJECT_DB_ASK,
        "ask (policy: project:acme)",
    ),
    (
        "then the policy's default for the kind",
        Stand("live"),
        "ssh",
        PROJECT_DB_ASK,
        "read (default)",
    ),
    ("test is full by default", Stand("test"), "deploy", DEFAULT, "full (default)"),
    (
        "strict preset is named as a policy layer",
        Stand("live"),
        "default",
        policy(preset="strict"),
        "none (policy: preset:strict)",
    ),
    ("the environment's level has no source", Stand("local", "read"), "default", DEFAULT, "read"),
]


@pytest.mark.parametrize(
    ("stand", "capability", "merged", "shown"),
    [c[1:] for c in RESOLVE],
    ids=[c[0] for c in RESOLVE],
)
def test_level_resolution(stand: Stand, capability: str, merged: Merged, shown: str) -> None:
    assert resolve(stand, capability, merged).shown() == shown


LIVE_FULL_LAYER = policy({}, {"levels": {"live": {"default": "full"}}})
WEAK_GUARD_LAYER = policy({}, {"guard": {"mode": "off"}})

CONFIRM = [
    (
        "live stays live, level raised",
        Stand("live"),
        Stand("live", "ask"),
        DEFAULT,
        DEFAULT,
        ["the level rises from read to ask"],
    ),
    (
        "live stays live, override raised",
        Stand("live"),
        Stand("live", "", {"db": "full"}),
        DEFAULT,
        DEFAULT,
        ["db rises from read to full"],
    ),
    (
        "live stays live, lowered",
        Stand("live", "full"),
        Stand("live", "read"),
        DEFAULT,
        DEFAULT,
        [],
    ),
    (
        "live stays live, read is not above read",
        Stand("live", "none"),
        Stand("live", "read"),
        DEFAULT,
        DEFAULT,
        [],
    ),
    ("created live at the policy's level", None, Stand("live"), DEFAULT, DEFAULT, []),
    (
        "created live above the policy",
        None,
        Stand("live", "full"),
        DEFAULT,
        DEFAULT,
        ["the level is full on live, above the policy's read"],
    ),
    (
        "test becomes live with its full level",
        Stand("test", "full"),
        Stand("live", "full"),
        DEFAULT,
        DEFAULT,
        ["the level is full on live, above the policy's read"],
    ),
    (
        "test becomes live with a layer that raises live",
        Stand("test"),
        Stand("live"),
        LIVE_FULL_LAYER,
        LIVE_FULL_LAYER,
        None,
    ),
    (
        "test becomes live with a layer weakening the guard",
        Stand("test"),
        Stand("live"),
        WEAK_GUARD_LAYER,
        WEAK_GUARD_LAYER,
        ["its own policy layer: guard.mode gets weaker: warn → off"],
    ),
    (
        "live becomes test under the default preset",
        Stand("live"),
        Stand("test"),
        DEFAULT,
        DEFAULT,
        None,
    ),
    (
        "live becomes test under strict",
        Stand("live"),
        Stand("test"),
        policy(preset="strict"),
        policy(preset="strict"),
        ["the level rises from none to ask"],
    ),
    ("test stays test", Stand("test"), Stand("test", "full"), DEFAULT, DEFAULT, []),
]


@pytest.mark.parametrize(
    ("before", "after", "env_policy", "project_policy_", "expected"),
    [c[1:] for c in CONFIRM],
    ids=[c[0] for c in CONFIRM],
)
def test_when_a_second_confirmation_is_needed(
    before, after, env_policy, project_policy_, expected
) -> None:  # type: ignore[no-untyped-def]
    project = policy({}) if project_policy_ is not DEFAULT else DEFAULT
    found = confirmations(
        before, after, policy_before=env_policy, policy_after=env_policy, project_policy=project
    )
    if expected is None:
        assert found, "a change that raises live must ask"
    else:
        assert list(found) == expected
