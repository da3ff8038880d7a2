"""Working rules (§6), the effective document: the layer merge, its hash, the project
override that may be ignored, and what the merged document says."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import logging
from dataclasses import dataclass

from core import caches
from core.display import STAGES
from tasks.fields import SIZES
from tasks.rules.schema import (
    DEFAULT_RULES,
    STATES,
    TURN_END_BY_MODE,
    RulesError,
    validate_layer,
)

logger = logging.getLogger(__name__)


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
caches.register(
    "tasks.rules.effective._LOGGED_OVERRIDES",
    key="(project, override text) already warned about",
    bound=_LOGGED_MAX,
    invalidation="cleared when full",
    reset="none needed",
)


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
    """DEFAULT ⊕ config ⊕ project override; a broken override never stops the work (§6).

    Every write checks the rules: the merge (two deep copies) and its hash are made once
    per distinct input, not per write. The document is shared: read it, never change it."""
    return _effective(json.dumps(global_layer, sort_keys=True), mode, project_override, project)


@caches.kept(
    "(the config's rules as JSON, rules mode, project override text, project)",
    invalidation=caches.PURE,
)
@functools.lru_cache(maxsize=64)
def _effective(
    global_json: str, mode: str, project_override: str | None, project: str | None
) -> EffectiveRules:
    doc = merge(DEFAULT_RULES, json.loads(global_json))
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
