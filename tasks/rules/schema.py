"""Working rules (§6), the schema: the document's keys, the built-in rules and validate_layer.

Pure Python on purpose: the config loader validates the global [rules] layer before Django is
set up, and this is the one module of an app that core imports (docs/architecture.md §2), so
nothing here may import models (tasks.fields, the field table, is plain Python too).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.display import STAGES
from tasks.fields import EDITABLE_FIELD_NAMES, SIZES

STATES = ("inspected", "changed", "verified", "committed", "pushed", "blocked")

TOP_KEYS = (
    "report_format",
    "stage_requirements",
    "description_template",
    "guidance",
    "owner_only_stages",
    "turn_end_update",
)
# What relaybay does when a session ends a turn after working in its task without writing
# to it (sessions/hooks/turn_end.py); null in a layer means "by the mode": remind in warn, block
# in strict.
TURN_END_UPDATE = ("off", "remind", "block")
TURN_END_BY_MODE = {"warn": "remind", "strict": "block"}
REPORT_FORMAT_KEYS = ("first_line", "states", "sizes")
# Allowed keys per requirement kind; "kind" itself is always allowed.
REQUIREMENT_KEYS: dict[str, tuple[str, ...]] = {
    "report_since_stage_change": (),
    "field_present": ("field",),
    "plan_accepted": ("unless_size",),
}
# §6: "unless_size (default ["S"])" — a plan_accepted without it spares S tasks.
DEFAULT_UNLESS_SIZE = ("S",)


DEFAULT_GUIDANCE = (
    "Read project_snapshot first, then pick or create a task and pass your session. "
    "Before dev, write a plan with plan_set (2-5 steps) and get it accepted (S tasks may skip "
    "it). Keep next_step, waiting_on and progress current on every stage change and report. "
    "End every stage with report_add whose first line is state · size · gist. "
    "When a decision is needed, set waiting_on to who decides; fix what a Warning (rules) "
    "line names."
)

DEFAULT_RULES: dict[str, Any] = {
    "report_format": {
        "first_line": "state · size · gist",
        "states": list(STATES),
        "sizes": list(SIZES),
    },
    "stage_requirements": {
        "dev": [{"kind": "plan_accepted", "unless_size": ["S"]}],
        "test": [{"kind": "report_since_stage_change"}],
        "done": [{"kind": "field_present", "field": "progress"}],
    },
    "description_template": None,
    "guidance": DEFAULT_GUIDANCE,
    # Stages only the owner moves a task into: an agent's move is a rules warning (warn)
    # or refused (strict); the board moves freely.
    "owner_only_stages": ["done"],
    "turn_end_update": None,
}


class RulesError(ValueError):
    """An invalid rules layer; the message names the layer, the key path and the problem."""

    def __init__(self, layer: str, path: str, problem: str) -> None:
        self.layer = layer
        self.path = path
        self.problem = problem
        super().__init__(f"{layer}: {self.detail}")

    @property
    def detail(self) -> str:
        """The message without the layer: what the "override ignored" notes show."""
        return f"{self.path}: {self.problem}" if self.path else self.problem


_TYPE_NAMES = (
    (bool, "a boolean"),
    (int | float, "a number"),
    (str, "a string"),
    (list | tuple, "a list"),
    (dict, "a table"),
)


def _type_name(value: object) -> str:
    # TOML and JSON words, since that is what the owner wrote.
    if value is None:
        return "null"
    return next((name for kind, name in _TYPE_NAMES if isinstance(value, kind)), "an object")


def _check_keys(value: Mapping[str, Any], allowed: tuple[str, ...], layer: str, path: str) -> None:
    for key in value:
        if key not in allowed:
            where = f"{path}.{key}" if path else str(key)
            names = ", ".join(allowed) if allowed else "none"
            raise RulesError(layer, where, f"unknown key '{key}' (keys: {names})")


def _check_table(value: object, layer: str, path: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise RulesError(layer, path, f"must be a table, got {_type_name(value)}")
    return value


def _check_choices(
    value: object, allowed: tuple[str, ...], layer: str, path: str, noun: str
) -> None:
    if not isinstance(value, list):
        raise RulesError(layer, path, f"must be a list of {noun}s, got {_type_name(value)}")
    for item in value:
        if item not in allowed:
            raise RulesError(
                layer, path, f"unknown {noun} {item!r} ({noun}s: {', '.join(allowed)})"
            )


def _validate_report_format(value: object, layer: str) -> None:
    table = _check_table(value, layer, "report_format")
    _check_keys(table, REPORT_FORMAT_KEYS, layer, "report_format")
    if "first_line" in table:
        first = table["first_line"]
        if not isinstance(first, str) or not first.strip():
            got = "an empty string" if isinstance(first, str) else _type_name(first)
            problem = f"must be a non-empty string, got {got}"
            raise RulesError(layer, "report_format.first_line", problem)
    for key, allowed, noun in (("states", STATES, "state"), ("sizes", SIZES, "size")):
        if key in table:
            _check_choices(table[key], allowed, layer, f"report_format.{key}", noun)
            if not table[key]:
                raise RulesError(layer, f"report_format.{key}", "must name at least one")


def _validate_requirement(req: object, layer: str, path: str) -> None:
    table = _check_table(req, layer, path)
    kinds = ", ".join(REQUIREMENT_KEYS)
    if "kind" not in table:
        raise RulesError(layer, f"{path}.kind", f"missing (kinds: {kinds})")
    kind = table["kind"]
    if kind not in REQUIREMENT_KEYS:
        raise RulesError(layer, f"{path}.kind", f"unknown kind {kind!r} (kinds: {kinds})")
    _check_keys(table, ("kind", *REQUIREMENT_KEYS[kind]), layer, path)
    if kind == "field_present":
        if "field" not in table:
            raise RulesError(layer, f"{path}.field", "missing: name the task field to require")
        field = table["field"]
        if field not in EDITABLE_FIELD_NAMES:
            names = ", ".join(EDITABLE_FIELD_NAMES)
            raise RulesError(layer, f"{path}.field", f"unknown field {field!r} (fields: {names})")
    if kind == "plan_accepted" and "unless_size" in table:
        _check_choices(table["unless_size"], SIZES, layer, f"{path}.unless_size", "size")


def _validate_stage_requirements(value: object, layer: str) -> None:
    table = _check_table(value, layer, "stage_requirements")
    for stage, reqs in table.items():
        path = f"stage_requirements.{stage}"
        if stage not in STAGES:
            raise RulesError(layer, path, f"unknown stage '{stage}' (stages: {', '.join(STAGES)})")
        if not isinstance(reqs, list):
            problem = f"must be a list of requirements, got {_type_name(reqs)}"
            raise RulesError(layer, path, problem)
        for index, req in enumerate(reqs):
            _validate_requirement(req, layer, f"{path}[{index}]")


def validate_layer(doc: dict, *, layer: str) -> None:
    """Refuse a rules layer the merge could not read; every layer passes here first (§6)."""
    _check_table(doc, layer, "")
    _check_keys(doc, TOP_KEYS, layer, "")
    if "report_format" in doc:
        _validate_report_format(doc["report_format"], layer)
    if "stage_requirements" in doc:
        _validate_stage_requirements(doc["stage_requirements"], layer)
    for key in ("description_template", "guidance"):
        if key in doc and doc[key] is not None and not isinstance(doc[key], str):
            raise RulesError(layer, key, f"must be a string or null, got {_type_name(doc[key])}")
    if "owner_only_stages" in doc:
        _check_choices(doc["owner_only_stages"], STAGES, layer, "owner_only_stages", "stage")
    value = doc.get("turn_end_update")
    if value is not None and value not in TURN_END_UPDATE:
        raise RulesError(
            layer, "turn_end_update", f"must be one of {', '.join(TURN_END_UPDATE)} or null"
        )


def unless_size(req: Mapping[str, Any]) -> tuple[str, ...]:
    """The sizes a plan_accepted requirement spares (§6: ["S"] when it names none)."""
    return tuple(req.get("unless_size", DEFAULT_UNLESS_SIZE))
