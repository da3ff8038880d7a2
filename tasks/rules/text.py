"""Working rules (§6) as text: the snapshot's rules line and the rules_get answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.display import STAGES
from tasks.rules.effective import (
    EffectiveRules,
    first_line_pattern,
    owner_only_stages,
    sizes,
    states,
    turn_end_update,
)
from tasks.rules.schema import unless_size


def _requirements(doc: dict) -> list[tuple[str, Mapping[str, Any]]]:
    stages = doc.get("stage_requirements", {})
    return [(stage, req) for stage in STAGES for req in stages.get(stage, [])]


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
    unless = unless_size(req)
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
