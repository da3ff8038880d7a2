"""Working rules (§6): the layered rules document, its validation, merge, hash and checks.

Pure Python on purpose: the config loader validates the global [rules] layer before Django is
set up, so nothing here may import models (tasks.fields, the field table, is plain Python too).
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.display import STAGES
from tasks.fields import EDITABLE_FIELD_NAMES, SIZES

logger = logging.getLogger(__name__)

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
# to it (sessions/turn_end.py); null in a layer means "by the mode": remind in warn, block
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


def merge(base: dict, layer: dict, *, project_layer: bool = False) -> dict:
    """base ⊕ layer by the §6 rules; a new document, so callers may share DEFAULT_RULES safely."""
    out = copy.deepcopy(base)
    layer = copy.deepcopy(layer)
    if "report_format" in layer:
        out["report_format"] = {**out.get("report_format", {}), **layer["report_format"]}
    if "stage_requirements" in layer:
        stages = {**out.get("stage_requirements", {}), **layer["stage_requirements"]}
        # [] drops the stage, so {dev: []} and {} are the same document (and the same hash).
        out["stage_requirements"] = {s: stages[s] for s in STAGES if stages.get(s)}
    for key in ("description_template", "owner_only_stages", "turn_end_update"):
        if key in layer:
            out[key] = layer[key]
    if "guidance" in layer:
        text = layer["guidance"]
        if not project_layer:
            out["guidance"] = text
        elif text:
            earlier = out.get("guidance")
            out["guidance"] = f"{earlier}\n\n{text}" if earlier else text
    return out


def rules_hash(doc: dict, mode: str) -> str:
    """Short identity of the effective rules: /healthz, doctor and the snapshot line compare it."""
    canonical = json.dumps(
        {"rules": doc, "rules_mode": mode},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:8]


@dataclass(frozen=True)
class EffectiveRules:
    """The merged rules a client sees, with the reason a project override was ignored."""

    doc: dict
    mode: str
    hash: str
    ignored: str | None


# (project, override text) pairs already warned about: a broken override is logged once.
_LOGGED_OVERRIDES: set[tuple[str | None, str]] = set()
_LOGGED_MAX = 1024


def _parse_override(text: str, project: str | None) -> dict:
    layer = f"project {project} rules override" if project else "project rules override"
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise RulesError(layer, "", f"not valid JSON ({exc})") from None
    validate_layer(doc, layer=layer)
    return doc


def effective_rules(
    global_layer: dict,
    mode: str,
    project_override: str | None = None,
    *,
    project: str | None = None,
) -> EffectiveRules:
    """DEFAULT ⊕ config ⊕ project override; a broken override never stops the work (§6)."""
    doc = merge(DEFAULT_RULES, global_layer)
    ignored = None
    if project_override is not None and project_override.strip():
        try:
            doc = merge(doc, _parse_override(project_override, project), project_layer=True)
        except RulesError as exc:
            ignored = f"project override ignored: {exc.detail}"
            key = (project, project_override)
            if key not in _LOGGED_OVERRIDES:
                if len(_LOGGED_OVERRIDES) >= _LOGGED_MAX:
                    _LOGGED_OVERRIDES.clear()
                _LOGGED_OVERRIDES.add(key)
                logger.warning("%s; using the global rules", exc)
    return EffectiveRules(doc=doc, mode=mode, hash=rules_hash(doc, mode), ignored=ignored)


def first_line_pattern(doc: dict) -> str:
    """The report first line agents are asked to write (server instructions, rules_get)."""
    return doc.get("report_format", {}).get("first_line") or "state · size · gist"


def states(doc: dict) -> tuple[str, ...]:
    """Report states the rules allow, as the document lists them."""
    return tuple(doc.get("report_format", {}).get("states", STATES))


def sizes(doc: dict) -> tuple[str, ...]:
    """Report sizes the rules allow."""
    return tuple(doc.get("report_format", {}).get("sizes", SIZES))


def owner_only_stages(doc: dict) -> tuple[str, ...]:
    """The stages only the owner moves a task into."""
    return tuple(s for s in STAGES if s in doc.get("owner_only_stages", ()))


def turn_end_update(doc: dict, mode: str) -> str:
    """off, remind or block: what a turn that worked in a task but wrote nothing gets
    (null: remind in warn mode, block in strict)."""
    return doc.get("turn_end_update") or TURN_END_BY_MODE.get(mode, "remind")


def owner_only_message(stage: str) -> str:
    return f"only the owner moves a task to {stage}"


def _unless_size(req: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(req.get("unless_size", DEFAULT_UNLESS_SIZE))


def _requirements(doc: dict) -> list[tuple[str, Mapping[str, Any]]]:
    stages = doc.get("stage_requirements", {})
    return [(stage, req) for stage in STAGES for req in stages.get(stage, [])]


@dataclass(frozen=True)
class MoveFacts:
    """What check_move needs to know about a task; the service reads it from the database."""

    size: str
    plan_status: str  # "none", "draft" or "accepted"
    has_report_since_stage_change: bool
    field_values: Mapping[str, object]


def _present(value: object) -> bool:
    if value is None or value is False:
        return False
    return not (isinstance(value, str) and not value.strip())


def _plan_message(stage: str, unless: tuple[str, ...], plan_status: str) -> str:
    spared = f" (not needed for size {'/'.join(unless)})" if unless else ""
    head = f"moving to {stage} usually needs an accepted plan{spared}."
    if plan_status == "draft":
        return (
            f"{head} The plan is not accepted yet: the owner accepts it on the board, "
            "the coordinator with plan_accept."
        )
    return f"{head} Write it with plan_set (2-5 steps), then ask for acceptance."


def check_move(
    doc: dict, target_stage: str, facts: MoveFacts, *, by_owner: bool = False
) -> list[str]:
    """One message per unmet requirement of the target stage; the caller warns or refuses.

    An agent's move into an owner-only stage is one of them; the owner's never is."""
    messages = []
    if not by_owner and target_stage in owner_only_stages(doc):
        messages.append(owner_only_message(target_stage))
    for req in doc.get("stage_requirements", {}).get(target_stage, []):
        kind = req.get("kind")
        if kind == "report_since_stage_change" and not facts.has_report_since_stage_change:
            messages.append(
                f"moving to {target_stage} usually needs a report since the last stage change"
            )
        elif kind == "field_present" and not _present(facts.field_values.get(req["field"])):
            messages.append(f"moving to {target_stage} usually needs {req['field']}")
        elif kind == "plan_accepted":
            unless = _unless_size(req)
            if facts.plan_status != "accepted" and facts.size not in unless:
                messages.append(_plan_message(target_stage, unless, facts.plan_status))
    return messages


def _short(stage: str, req: Mapping[str, Any]) -> str:
    kind = req.get("kind")
    if kind == "report_since_stage_change":
        return f"report before {stage}"
    if kind == "field_present":
        return f"{req.get('field')} before {stage}"
    return f"accepted plan before {stage}"


def summary_line(eff: EffectiveRules, project: str | None) -> str:
    """The first line of project_snapshot: names the rules an agent works under (§6)."""
    parts = [_short(stage, req) for stage, req in _requirements(eff.doc)]
    uri = f"relaybay://rules/{project}" if project else "relaybay://rules"
    line = f"Rules {eff.hash}: {', '.join(parts) or 'no stage requirements'} (read {uri})"
    if eff.ignored:
        line += f" · {eff.ignored}"
    return line


def _long(req: Mapping[str, Any]) -> str:
    kind = req.get("kind")
    if kind == "report_since_stage_change":
        return "a report since the last stage change"
    if kind == "field_present":
        return f"{req.get('field')} filled in"
    unless = _unless_size(req)
    spared = f" (not needed for size {'/'.join(unless)})" if unless else ""
    return f"an accepted plan{spared}"


_MODE_TEXT = {
    "warn": "a move that misses a requirement succeeds with a Warning (rules) line",
    "strict": "a move that misses a requirement is refused and nothing changes",
}


_TURN_END_TEXT = {
    "off": "turn_end_update off: no reminder when a turn changes files without a relaybay write",
    "remind": "turn_end_update remind: a turn that changed files or ran commands in your task "
    "without a relaybay write to it gets a reminder in the next context",
    "block": "turn_end_update block: a turn that changed files or ran commands in your task "
    "without a relaybay write to it is stopped once, asking for progress, next_step or "
    "report_add",
}


def render_rules_md(eff: EffectiveRules, project: str | None) -> str:
    """The rules_get answer and the relaybay://rules resources: short, plain markdown."""
    doc = eff.doc
    scope = f" for {project}" if project else ""
    lines = [f"# Working rules{scope} {eff.hash} (mode {eff.mode})", ""]
    if eff.ignored:
        lines += [f"Note: {eff.ignored}", ""]
    lines += [
        "## Reports",
        f"- First line: `{first_line_pattern(doc)}`",
        f"- States: {', '.join(states(doc))}",
        f"- Sizes: {', '.join(sizes(doc))}",
        "",
        "## Stage moves",
    ]
    stages = doc.get("stage_requirements", {})
    needed = [(s, stages[s]) for s in STAGES if stages.get(s)]
    for stage, reqs in needed:
        lines.append(f"- to {stage}: {'; '.join(_long(req) for req in reqs)}")
    if not needed:
        lines.append("- no stage requirements")
    owner_only = owner_only_stages(doc)
    if owner_only:
        lines.append(f"- to {', '.join(owner_only)}: only the owner moves a task there")
    lines.append(f"- Mode {eff.mode}: {_MODE_TEXT.get(eff.mode, eff.mode)}.")
    lines += ["", "## End of a turn", f"- {_TURN_END_TEXT[turn_end_update(doc, eff.mode)]}"]
    template = doc.get("description_template")
    if template:
        # Fenced: the template's own headings must not read as sections of this answer.
        lines += ["", "## Description template", "", "~~~markdown", template.rstrip(), "~~~"]
    guidance = doc.get("guidance")
    if guidance:
        lines += ["", "## Guidance", "", guidance.rstrip()]
    return "\n".join(lines) + "\n"
