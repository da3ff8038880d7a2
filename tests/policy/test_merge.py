"""The merge rules of §7 as tables: objects key by key, scalars and lists replace,
key+ / key- list edits after key, sources per value, presets exactly as the table."""

from __future__ import annotations

from typing import Any

import pytest

from policy.merge import Layer, merge, merge_patch, preset_layer
from policy.presets import PRESETS
from policy.widen import widening

P = {"id": "no-prod", "change": "prod"}
P2 = {"id": "no-prod", "change": "prod2", "capability": "db"}
Q = {"id": "no-drop", "change": "drop"}

CASES: list[tuple[str, list[dict[str, Any]], str, Any]] = [
    ("a scalar replaces", [{"guard": {"mode": "block"}}], "guard.mode", "block"),
    (
        "objects merge key by key",
        [{"levels": {"live": {"db": "ask"}}}],
        "levels.live.default",
        "read",
    ),
    (
        "a list replaces",
        [{"guard": {"disable": ["git-push"]}}, {"guard": {"disable": ["helm-change"]}}],
        "guard.disable",
        ["helm-change"],
    ),
    (
        "key+ adds",
        [{"guard": {"disable": ["git-push"]}}, {"guard": {"disable+": ["helm-change"]}}],
        "guard.disable",
        ["git-push", "helm-change"],
    ),
    (
        "key+ adds a value once",
        [{"guard": {"disable": ["git-push"]}}, {"guard": {"disable+": ["git-push"]}}],
        "guard.disable",
        ["git-push"],
    ),
    (
        "key- removes by value",
        [
            {"guard": {"disable": ["git-push", "helm-change"]}},
            {"guard": {"disable-": ["git-push"]}},
        ],
        "guard.disable",
        ["helm-change"],
    ),
    (
        "key+ and key- apply after key in one layer",
        [
            {
                "guard": {
                    "disable-": ["git-push"],
                    "disable": ["git-push", "sftp-session"],
                    "disable+": ["helm-change"],
                }
            }
        ],
        "guard.disable",
        ["sftp-session", "helm-change"],
    ),
    (
        "a pattern with an existing id replaces it",
        [{"guard": {"patterns": [P, Q]}}, {"guard": {"patterns+": [P2]}}],
        "guard.patterns",
        [Q, P2],
    ),
    (
        "a pattern is removed by id",
        [{"guard": {"patterns": [P, Q]}}, {"guard": {"patterns-": ["no-prod"]}}],
        "guard.patterns",
        [Q],
    ),
    (
        "secrets.allow+ adds to the preset's empty list",
        [{"secrets": {"allow+": ["test-[a-z]+"]}}],
        "secrets.allow",
        ["test-[a-z]+"],
    ),
    (
        "secrets.disable- of a value not there changes nothing",
        [{"secrets": {"disable-": ["jwt"]}}],
        "secrets.disable",
        [],
    ),
    (
        "$schema, description and preset are not values",
        [{"$schema": "x", "description": "y", "preset": "strict"}],
        "preset",
        None,
    ),
]


@pytest.mark.parametrize(
    ("bodies", "path", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_merge_rules(bodies: list[dict[str, Any]], path: str, expected: Any) -> None:
    layers = [preset_layer("default")] + [Layer(f"layer{i}", b) for i, b in enumerate(bodies)]
    assert merge(layers).get(path) == expected


def test_every_value_carries_the_layer_that_set_it() -> None:
    merged = merge(
        [
            preset_layer("default"),
            Layer("config", {"guard": {"mode": "block"}}),
            Layer("global", {"levels": {"live": {"default": "none"}}}),
            Layer("project:acme", {"guard": {"disable+": ["git-push"]}}),
            Layer("environment:acme/live", {"levels": {"live": {"db": "ask"}}}),
        ]
    )
    sources = merged.sources
    assert sources["guard.mode"] == "config"
    assert sources["levels.live.default"] == "global"
    assert sources["levels.local.default"] == "preset:default"
    assert sources["guard.disable"] == "project:acme"
    assert sources["levels.live.db"] == "environment:acme/live"
    assert sources["secrets.test_secrets.local"] == "preset:default"


def test_an_object_replaced_by_a_scalar_forgets_the_sources_under_it() -> None:
    merged = merge(
        [preset_layer("default"), Layer("global", {"secrets": {"test_secrets": {"local": True}}})]
    )
    assert merged.sources["secrets.test_secrets.local"] == "global"
    assert merged.sources["secrets.test_secrets.test"] == "preset:default"


def test_lines_read_levels_then_guard_then_secrets() -> None:
    paths = [line[0] for line in merge([preset_layer("default")]).lines()]
    assert paths[:3] == ["levels.local.default", "levels.test.default", "levels.live.default"]
    assert paths[3] == "guard.mode"
    assert paths[-1].startswith("secrets.")


# §7's preset table, written out independently of policy/presets.py.
TABLE = {
    "default": ({"local": "full", "test": "full", "live": "read"}, "warn", False),
    "strict": ({"local": "full", "test": "ask", "live": "none"}, "block", False),
    "trusted": ({"local": "full", "test": "full", "live": "full"}, "log", True),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_presets_equal_the_spec_table(name: str) -> None:
    levels, mode, test_secrets = TABLE[name]
    merged = merge([preset_layer(name)])
    for kind, level in levels.items():
        assert merged.get(f"levels.{kind}.default") == level
    assert merged.get("guard.mode") == mode
    assert merged.get("guard.disable") == []  # all rules
    assert merged.get("secrets.disable") == []  # all detectors
    assert merged.get("secrets.test_secrets") == {"local": test_secrets, "test": test_secrets}
    assert merged.get("secrets.expose_test_secrets_to_agents") is False
    assert merged.sources["guard.mode"] == f"preset:{name}"


def test_merging_never_changes_the_preset_table() -> None:
    merge([preset_layer("default"), Layer("g", {"guard": {"disable+": ["git-push"]}})])
    assert PRESETS["default"]["guard"]["disable"] == []


PATCHES = [
    (
        "an object merges key by key",
        {"guard": {"mode": "warn", "disable": ["git-push"]}},
        {"guard": {"mode": "block"}},
        {"guard": {"mode": "block", "disable": ["git-push"]}},
    ),
    (
        "null removes a key",
        {"guard": {"mode": "warn"}, "levels": {}},
        {"guard": {"mode": None}},
        {"guard": {}, "levels": {}},
    ),
    (
        "a list replaces",
        {"guard": {"disable": ["a"]}},
        {"guard": {"disable": ["b"]}},
        {"guard": {"disable": ["b"]}},
    ),
    (
        "a new object is added",
        {},
        {"levels": {"live": {"db": "ask"}}},
        {"levels": {"live": {"db": "ask"}}},
    ),
]


@pytest.mark.parametrize(
    ("body", "patch", "expected"), [c[1:] for c in PATCHES], ids=[c[0] for c in PATCHES]
)
def test_merge_patch(body: dict[str, Any], patch: dict[str, Any], expected: dict[str, Any]) -> None:
    assert merge_patch(body, patch) == expected


WIDENS = [
    (
        "live default above read",
        {"levels": {"live": {"default": "full"}}},
        ["levels.live.default rises from read to full"],
    ),
    (
        "a live capability above read",
        {"levels": {"live": {"db": "ask"}}},
        ["levels.live.db rises from read to ask"],
    ),
    ("a live level lowered does not ask", {"levels": {"live": {"default": "none"}}}, []),
    ("test levels do not ask", {"levels": {"test": {"default": "none"}}}, []),
    ("a weaker guard", {"guard": {"mode": "log"}}, ["guard.mode gets weaker: warn → log"]),
    ("a stronger guard does not ask", {"guard": {"mode": "block"}}, []),
    (
        "built-in rules off",
        {"guard": {"disable": ["mcp-tool-name"]}},
        ["built-in guard rules switched off: mcp-tool-name"],
    ),
    ("secret detectors off do not ask", {"secrets": {"disable": ["jwt"]}}, []),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in WIDENS], ids=[c[0] for c in WIDENS])
def test_what_widens_live(body: dict[str, Any], expected: list[str]) -> None:
    before = merge([preset_layer("default")])
    after = merge([preset_layer("default"), Layer("global", body)])
    assert list(widening(before, after)) == expected


def test_removing_or_changing_a_custom_pattern_widens_live_and_adding_one_does_not() -> None:
    base = merge([preset_layer("default"), Layer("global", {"guard": {"patterns": [P, Q]}})])
    changed = merge([preset_layer("default"), Layer("global", {"guard": {"patterns": [P2]}})])
    assert list(widening(base, changed)) == [
        "custom guard pattern 'no-prod' changed",
        "custom guard pattern 'no-drop' removed",
    ]
    only_p = merge([preset_layer("default"), Layer("global", {"guard": {"patterns": [P]}})])
    assert widening(only_p, base) == ()
