"""The markdown policy_get and policy_propose answer (short, for the model)."""

from __future__ import annotations

from policy.merge import show
from policy.models import PolicyProposal
from policy.selectors import Effective
from tasks.services import Outcome


def policy_md(effective: Effective) -> str:
    """# Policy: <scope>, the layer chain, ignored layers, one line per value with its source."""
    lines = [f"# Policy: {effective.scope.name}", ""]
    lines.append("Layers, a later one winning: " + " → ".join(effective.chain))
    if effective.global_error:
        lines.append(
            "policy.json is broken; its last valid version is in effect: " + effective.global_error
        )
    for source, problem in effective.ignored:
        lines.append(f"Ignored (broken): {source}: {_without_source(source, problem)}")
    lines.append("")
    lines += [f"- {path} = {show(value)} ({source})" for path, value, source in effective.lines()]
    return "\n".join(lines)


def _without_source(source: str, problem: str) -> str:
    """selectors keep a layer's problems as validate wrote them, "<source>: a; <source>: b";
    the line names the source once."""
    return "; ".join(p.removeprefix(f"{source}: ") for p in problem.split(f"; {source}: "))


def proposed_md(outcome: Outcome[PolicyProposal]) -> str:
    p = outcome.obj
    head = (
        f"Proposed policy change #{p.id} for {p.scope}; nothing changed yet. The owner accepts "
        "or rejects it on Settings → Policy (events_since shows the decision)."
    )
    return "\n".join([head, *outcome.notes, *outcome.caller_notes])
