"""Working rules (§6): validation, merge, hash, project overrides, move checks and rendering."""

import copy
import logging
import re
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.fields import EDITABLE_FIELD_NAMES
from tasks.rules import (
    DEFAULT_RULES,
    SIZES,
    STAGES,
    STATES,
    EffectiveRules,
    MoveFacts,
    RulesError,
    check_move,
    effective_rules,
    first_line_pattern,
    merge,
    render_rules_md,
    rules_hash,
    sizes,
    states,
    summary_line,
    turn_end_update,
    validate_layer,
)

LAYER = "config.toml [rules]"


def facts(size="", plan_status="none", report=False, **fields):
    return MoveFacts(
        size=size,
        plan_status=plan_status,
        has_report_since_stage_change=report,
        field_values=fields,
    )


# --- defaults ----------------------------------------------------------------------------------


def test_the_built_in_document_is_valid_and_covers_all_states_and_sizes():
    validate_layer(DEFAULT_RULES, layer="built-in")
    assert first_line_pattern(DEFAULT_RULES) == "state · size · gist"
    assert states(DEFAULT_RULES) == STATES
    assert sizes(DEFAULT_RULES) == SIZES
    assert DEFAULT_RULES["description_template"] is None
    assert DEFAULT_RULES["guidance"].strip()


def test_the_built_in_requirements_are_plan_report_and_progress():
    assert DEFAULT_RULES["stage_requirements"] == {
        "dev": [{"kind": "plan_accepted", "unless_size": ["S"]}],
        "test": [{"kind": "report_since_stage_change"}],
        "done": [{"kind": "field_present", "field": "progress"}],
    }


# --- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "path", "problem"),
    [
        ({"colour": "red"}, "colour", "unknown key 'colour'"),
        ({"report_format": "x"}, "report_format", "must be a table"),
        ({"report_format": {"font": "x"}}, "report_format.font", "unknown key 'font'"),
        ({"report_format": {"first_line": 3}}, "report_format.first_line", "non-empty string"),
        ({"report_format": {"first_line": " "}}, "report_format.first_line", "non-empty string"),
        ({"report_format": {"states": ["done"]}}, "report_format.states", "unknown state 'done'"),
        ({"report_format": {"states": "verified"}}, "report_format.states", "list of states"),
        ({"report_format": {"states": []}}, "report_format.states", "at least one"),
        ({"report_format": {"sizes": ["XL"]}}, "report_format.sizes", "unknown size 'XL'"),
        ({"stage_requirements": []}, "stage_requirements", "must be a table"),
        (
            {"stage_requirements": {"tset": []}},
            "stage_requirements.tset",
            "unknown stage 'tset' (stages: plan, dev, review, test, live, done)",
        ),
        (
            {"stage_requirements": {"test": {"kind": "report_since_stage_change"}}},
            "stage_requirements.test",
            "must be a list of requirements",
        ),
        ({"stage_requirements": {"dev": ["plan"]}}, "stage_requirements.dev[0]", "must be a table"),
        ({"stage_requirements": {"dev": [{}]}}, "stage_requirements.dev[0].kind", "missing"),
        (
            {"stage_requirements": {"dev": [{"kind": "tests_green"}]}},
            "stage_requirements.dev[0].kind",
            "unknown kind 'tests_green'",
        ),
        (
            {"stage_requirements": {"done": [{"kind": "field_present"}]}},
            "stage_requirements.done[0].field",
            "missing",
        ),
        (
            {"stage_requirements": {"done": [{"kind": "field_present", "field": "colour"}]}},
            "stage_requirements.done[0].field",
            "unknown field 'colour'",
        ),
        (
            {"stage_requirements": {"dev": [{"kind": "plan_accepted", "unless_size": "S"}]}},
            "stage_requirements.dev[0].unless_size",
            "must be a list of sizes",
        ),
        (
            {"stage_requirements": {"dev": [{"kind": "plan_accepted", "unless_size": ["XS"]}]}},
            "stage_requirements.dev[0].unless_size",
            "unknown size 'XS'",
        ),
        (
            {
                "stage_requirements": {
                    "test": [
                        {"kind": "report_since_stage_change"},
                        {"kind": "plan_accepted", "x": 1},
                    ]
                }
            },
            "stage_requirements.test[1].x",
            "unknown key 'x' (keys: kind, unless_size)",
        ),
        (
            {"stage_requirements": {"test": [{"kind": "report_since_stage_change", "field": "x"}]}},
            "stage_requirements.test[0].field",
            "unknown key 'field'",
        ),
        ({"description_template": 5}, "description_template", "must be a string or null"),
        ({"guidance": ["a"]}, "guidance", "must be a string or null"),
    ],
)
def test_every_validation_error_names_the_layer_and_key_path(doc, path, problem):
    with pytest.raises(RulesError) as info:
        validate_layer(doc, layer=LAYER)
    message = str(info.value)
    assert message.startswith(f"{LAYER}: {path}: ")
    assert problem in message
    assert isinstance(info.value, ValueError)


def test_the_unknown_stage_message_reads_as_documented():
    with pytest.raises(RulesError) as info:
        validate_layer({"stage_requirements": {"tset": []}}, layer=LAYER)
    assert str(info.value) == (
        "config.toml [rules]: stage_requirements.tset: unknown stage 'tset' "
        "(stages: plan, dev, review, test, live, done)"
    )


def test_a_document_that_is_not_a_table_names_the_layer():
    with pytest.raises(RulesError, match=r"^project acme rules override: must be a table"):
        validate_layer([], layer="project acme rules override")


def test_valid_partial_layers_pass():
    validate_layer({}, layer=LAYER)
    validate_layer(
        {
            "report_format": {"states": ["verified", "blocked"], "sizes": ["S"]},
            "stage_requirements": {"dev": [], "review": [{"kind": "plan_accepted"}]},
            "description_template": None,
            "guidance": "Be brief.",
        },
        layer=LAYER,
    )


def test_field_present_accepts_every_editable_field():
    reqs = [{"kind": "field_present", "field": name} for name in EDITABLE_FIELD_NAMES]
    validate_layer({"stage_requirements": {"done": reqs}}, layer=LAYER)


# --- merge -------------------------------------------------------------------------------------


def test_report_format_merges_per_key():
    out = merge(DEFAULT_RULES, {"report_format": {"sizes": ["M", "L"]}})
    assert out["report_format"] == {
        "first_line": "state · size · gist",
        "states": list(STATES),
        "sizes": ["M", "L"],
    }


def test_a_stage_list_replaces_the_earlier_one_and_other_stages_stay():
    layer = {"stage_requirements": {"test": [{"kind": "field_present", "field": "branch"}]}}
    out = merge(DEFAULT_RULES, layer)
    assert out["stage_requirements"]["test"] == [{"kind": "field_present", "field": "branch"}]
    assert out["stage_requirements"]["dev"] == DEFAULT_RULES["stage_requirements"]["dev"]
    assert out["stage_requirements"]["done"] == DEFAULT_RULES["stage_requirements"]["done"]


def test_an_empty_list_drops_the_stage_requirements():
    out = merge(DEFAULT_RULES, {"stage_requirements": {"dev": []}})
    assert "dev" not in out["stage_requirements"]
    assert check_move(out, "dev", facts(size="L")) == []


def test_description_template_replaces():
    out = merge(DEFAULT_RULES, {"description_template": "## Why\n"})
    assert out["description_template"] == "## Why\n"
    out = merge(out, {"description_template": "## What\n"}, project_layer=True)
    assert out["description_template"] == "## What\n"


def test_config_guidance_replaces_the_built_in_text():
    out = merge(DEFAULT_RULES, {"guidance": "Config text."})
    assert out["guidance"] == "Config text."


def test_project_guidance_is_appended_after_a_blank_line():
    base = merge(DEFAULT_RULES, {"guidance": "Config text."})
    out = merge(base, {"guidance": "Project text."}, project_layer=True)
    assert out["guidance"] == "Config text.\n\nProject text."


def test_project_guidance_alone_when_there_is_no_earlier_text():
    base = merge(DEFAULT_RULES, {"guidance": None})
    out = merge(base, {"guidance": "Project text."}, project_layer=True)
    assert out["guidance"] == "Project text."


def test_merge_never_mutates_its_inputs():
    base = copy.deepcopy(DEFAULT_RULES)
    layer = {"report_format": {"sizes": ["S"]}, "stage_requirements": {"dev": []}, "guidance": "x"}
    layer_before = copy.deepcopy(layer)
    out = merge(base, layer, project_layer=True)
    out["report_format"]["states"].append("x")
    out["stage_requirements"]["test"].append({"kind": "x"})
    assert base == DEFAULT_RULES
    assert layer == layer_before


# --- hash --------------------------------------------------------------------------------------


def test_the_hash_is_eight_lowercase_hex_digits():
    assert re.fullmatch(r"[0-9a-f]{8}", rules_hash(DEFAULT_RULES, "warn"))


def test_the_hash_ignores_key_order():
    reordered = {key: DEFAULT_RULES[key] for key in reversed(list(DEFAULT_RULES))}
    reordered["report_format"] = dict(reversed(list(DEFAULT_RULES["report_format"].items())))
    assert rules_hash(reordered, "warn") == rules_hash(DEFAULT_RULES, "warn")


def test_the_mode_changes_the_hash():
    assert rules_hash(DEFAULT_RULES, "warn") != rules_hash(DEFAULT_RULES, "strict")


def test_the_hash_is_sha256_of_the_canonical_json():
    import hashlib
    import json

    doc = {"guidance": "ü"}
    text = json.dumps(
        {"rules": doc, "rules_mode": "warn"},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert rules_hash(doc, "warn") == hashlib.sha256(text.encode()).hexdigest()[:8]


# --- effective rules and project overrides -----------------------------------------------------


def test_effective_rules_without_layers_are_the_defaults():
    eff = effective_rules({}, "warn")
    assert eff == EffectiveRules(
        doc=DEFAULT_RULES, mode="warn", hash=rules_hash(DEFAULT_RULES, "warn"), ignored=None
    )


def test_a_valid_project_override_is_merged_as_a_project_layer():
    override = '{"guidance": "Project text.", "stage_requirements": {"test": []}}'
    eff = effective_rules({"guidance": "Config."}, "strict", override, project="acme")
    assert eff.doc["guidance"] == "Config.\n\nProject text."
    assert "test" not in eff.doc["stage_requirements"]
    assert eff.ignored is None
    assert eff.hash == rules_hash(eff.doc, "strict")


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("{not json", "not valid JSON"),
        ('{"stage_requirements": {"tset": []}}', "stage_requirements.tset: unknown stage 'tset'"),
        ("[]", "must be a table"),
    ],
)
def test_a_broken_override_is_ignored_with_the_reason_and_logged_once(caplog, body, problem):
    project = f"p-{uuid.uuid4().hex[:8]}"  # the once-only memory is per (project, text)
    caplog.set_level(logging.WARNING, logger="tasks.rules")
    first = effective_rules({}, "warn", body, project=project)
    second = effective_rules({}, "warn", body, project=project)
    assert first == second
    assert first.doc == DEFAULT_RULES
    assert first.ignored.startswith("project override ignored: ")
    assert problem in first.ignored
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert project in warnings[0].getMessage()
    assert problem in warnings[0].getMessage()


def test_another_broken_text_is_logged_again(caplog):
    project = f"p-{uuid.uuid4().hex[:8]}"
    caplog.set_level(logging.WARNING, logger="tasks.rules")
    effective_rules({}, "warn", "{", project=project)
    effective_rules({}, "warn", "{{", project=project)
    assert len(caplog.records) == 2


def test_a_blank_override_counts_as_none():
    assert effective_rules({}, "warn", "  ", project="acme") == effective_rules({}, "warn")


# --- check_move --------------------------------------------------------------------------------

PLAN_NONE = (
    "moving to dev usually needs an accepted plan (not needed for size S). "
    "Write it with plan_set (2-5 steps), then ask for acceptance."
)
PLAN_DRAFT = (
    "moving to dev usually needs an accepted plan (not needed for size S). "
    "The plan is not accepted yet: the owner accepts it on the board, "
    "the coordinator with plan_accept."
)


def test_dev_without_a_plan_asks_for_plan_set():
    assert check_move(DEFAULT_RULES, "dev", facts(size="M")) == [PLAN_NONE]


def test_a_task_without_a_size_needs_the_plan():
    assert check_move(DEFAULT_RULES, "dev", facts(size="")) == [PLAN_NONE]


def test_dev_with_a_draft_plan_says_who_accepts_it():
    assert check_move(DEFAULT_RULES, "dev", facts(size="L", plan_status="draft")) == [PLAN_DRAFT]


def test_an_accepted_plan_or_size_s_meets_plan_accepted():
    assert check_move(DEFAULT_RULES, "dev", facts(size="L", plan_status="accepted")) == []
    assert check_move(DEFAULT_RULES, "dev", facts(size="S")) == []
    assert check_move(DEFAULT_RULES, "dev", facts(size="S", plan_status="draft")) == []


def test_unless_size_lists_every_spared_size():
    doc = merge(
        DEFAULT_RULES,
        {"stage_requirements": {"dev": [{"kind": "plan_accepted", "unless_size": ["S", "M"]}]}},
    )
    assert check_move(doc, "dev", facts(size="L")) == [
        "moving to dev usually needs an accepted plan (not needed for size S/M). "
        "Write it with plan_set (2-5 steps), then ask for acceptance."
    ]
    assert check_move(doc, "dev", facts(size="M")) == []


def test_an_empty_unless_size_says_nothing_about_sizes():
    doc = merge(
        DEFAULT_RULES,
        {"stage_requirements": {"review": [{"kind": "plan_accepted", "unless_size": []}]}},
    )
    assert check_move(doc, "review", facts(size="S", plan_status="draft")) == [
        "moving to review usually needs an accepted plan. The plan is not accepted yet: "
        "the owner accepts it on the board, the coordinator with plan_accept."
    ]


def test_a_plan_accepted_without_unless_size_spares_size_s():
    doc = merge(DEFAULT_RULES, {"stage_requirements": {"dev": [{"kind": "plan_accepted"}]}})
    assert check_move(doc, "dev", facts(size="S")) == []
    assert check_move(doc, "dev", facts(size="M")) == [PLAN_NONE]


def test_test_needs_a_report_since_the_last_stage_change():
    assert check_move(DEFAULT_RULES, "test", facts()) == [
        "moving to test usually needs a report since the last stage change"
    ]
    assert check_move(DEFAULT_RULES, "test", facts(report=True)) == []


def test_owner_only_stages_and_turn_end_update_are_validated_and_merged():
    validate_layer({"owner_only_stages": ["done", "live"], "turn_end_update": "off"}, layer=LAYER)
    with pytest.raises(RulesError, match="unknown stage 'shipped'"):
        validate_layer({"owner_only_stages": ["shipped"]}, layer=LAYER)
    with pytest.raises(RulesError, match="turn_end_update: must be one of off, remind, block"):
        validate_layer({"turn_end_update": "nag"}, layer=LAYER)
    doc = merge(DEFAULT_RULES, {"owner_only_stages": [], "turn_end_update": "block"})
    assert doc["owner_only_stages"] == []
    assert check_move(doc, "done", facts(progress="x")) == []
    assert turn_end_update(doc, "warn") == "block"


def test_turn_end_update_follows_the_mode_unless_set():
    assert turn_end_update(DEFAULT_RULES, "warn") == "remind"
    assert turn_end_update(DEFAULT_RULES, "strict") == "block"
    assert rules_hash(DEFAULT_RULES, "warn") != rules_hash(
        merge(DEFAULT_RULES, {"turn_end_update": "off"}), "warn"
    )


@pytest.mark.parametrize("value", [None, "", "   ", False])
def test_done_needs_progress(value):
    assert check_move(DEFAULT_RULES, "done", facts(progress=value), by_owner=True) == [
        "moving to done usually needs progress"
    ]
    assert check_move(DEFAULT_RULES, "done", facts(), by_owner=True) == [
        "moving to done usually needs progress"
    ]
    assert check_move(DEFAULT_RULES, "done", facts()) == [
        "only the owner moves a task to done",
        "moving to done usually needs progress",
    ]


@pytest.mark.parametrize("value", ["did it", 0, True])
def test_a_field_with_a_value_counts_as_present(value):
    doc = merge(
        DEFAULT_RULES,
        {"stage_requirements": {"done": [{"kind": "field_present", "field": "priority"}]}},
    )
    assert check_move(doc, "done", facts(priority=value), by_owner=True) == []


def test_one_message_per_unmet_requirement_in_order():
    doc = merge(
        DEFAULT_RULES,
        {
            "stage_requirements": {
                "live": [
                    {"kind": "report_since_stage_change"},
                    {"kind": "field_present", "field": "branch"},
                ]
            }
        },
    )
    assert check_move(doc, "live", facts()) == [
        "moving to live usually needs a report since the last stage change",
        "moving to live usually needs branch",
    ]


def test_stages_without_requirements_need_nothing():
    for stage in ("plan", "review", "live"):
        assert check_move(DEFAULT_RULES, stage, facts()) == []


# --- summary line and markdown ------------------------------------------------------------------


def test_the_summary_line_names_the_requirements_in_stage_order():
    eff = effective_rules({}, "warn")
    assert summary_line(eff, "acme") == (
        f"Rules {eff.hash}: accepted plan before dev, report before test, progress before done "
        "(read relaybay://rules/acme)"
    )


def test_the_summary_line_without_requirements_or_project():
    eff = effective_rules({"stage_requirements": {stage: [] for stage in STAGES}}, "warn")
    assert summary_line(eff, None) == (
        f"Rules {eff.hash}: no stage requirements (read relaybay://rules)"
    )


def test_the_summary_line_says_when_the_override_was_ignored():
    eff = effective_rules({}, "warn", "{", project=f"p-{uuid.uuid4().hex[:8]}")
    assert summary_line(eff, "acme").endswith(" · " + eff.ignored)
    assert " · project override ignored: not valid JSON" in summary_line(eff, "acme")


def test_the_markdown_shows_hash_mode_format_requirements_and_guidance():
    eff = effective_rules({"description_template": "## Why\n", "guidance": "Be brief."}, "strict")
    text = render_rules_md(eff, "acme")
    assert eff.hash in text.splitlines()[0]
    assert "strict" in text.splitlines()[0]
    assert "`state · size · gist`" in text
    assert ", ".join(STATES) in text
    assert "S, M, L" in text
    assert text.index("to dev:") < text.index("to test:") < text.index("to done:")
    assert "an accepted plan (not needed for size S)" in text
    assert "~~~markdown\n## Why\n~~~" in text
    assert "Be brief." in text
    assert "ignored" not in text


def test_the_markdown_carries_the_ignored_note():
    eff = effective_rules({}, "warn", "{", project=f"p-{uuid.uuid4().hex[:8]}")
    assert eff.ignored in render_rules_md(eff, None)


# --- properties --------------------------------------------------------------------------------

requirements = st.one_of(
    st.just({"kind": "report_since_stage_change"}),
    st.builds(
        lambda field: {"kind": "field_present", "field": field},
        st.sampled_from(EDITABLE_FIELD_NAMES),
    ),
    st.builds(
        lambda unless: {"kind": "plan_accepted", "unless_size": unless},
        st.lists(st.sampled_from(SIZES), unique=True),
    ),
    st.just({"kind": "plan_accepted"}),
)
texts = st.none() | st.text(max_size=40)
layers = st.fixed_dictionaries(
    {},
    optional={
        "report_format": st.fixed_dictionaries(
            {},
            optional={
                "first_line": st.text(min_size=1, max_size=30).filter(str.strip),
                "states": st.lists(st.sampled_from(STATES), min_size=1, unique=True),
                "sizes": st.lists(st.sampled_from(SIZES), min_size=1, unique=True),
            },
        ),
        "stage_requirements": st.dictionaries(
            st.sampled_from(STAGES), st.lists(requirements, max_size=3)
        ),
        "description_template": texts,
        "guidance": texts,
    },
)
property_settings = settings(database=None, max_examples=150, deadline=None)


@property_settings
@given(layer=layers, project_layer=st.booleans())
def test_merging_an_empty_layer_is_identity(layer, project_layer):
    doc = merge(DEFAULT_RULES, layer)
    assert merge(doc, {}, project_layer=project_layer) == doc


@property_settings
@given(first=layers, second=layers, project_layer=st.booleans())
def test_the_merge_result_always_validates(first, second, project_layer):
    validate_layer(first, layer="generated")
    doc = merge(merge(DEFAULT_RULES, first), second, project_layer=project_layer)
    validate_layer(doc, layer="merged")
    assert set(doc) == set(DEFAULT_RULES)


@property_settings
@given(base_layer=layers, layer=layers, project_layer=st.booleans())
def test_the_layer_decides_every_stage_it_names(base_layer, layer, project_layer):
    base = merge(DEFAULT_RULES, base_layer)
    doc = merge(base, layer, project_layer=project_layer)
    named = layer.get("stage_requirements", {})
    for stage in STAGES:
        expected = named[stage] if stage in named else base["stage_requirements"].get(stage, [])
        assert doc["stage_requirements"].get(stage, []) == expected
