"""Working rules (§6), the move check: which requirements of a target stage a task misses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tasks.rules.effective import owner_only_stages
from tasks.rules.schema import unless_size


def owner_only_message(stage: str) -> str:
    """The refusal or warning of an agent's move into an owner-only stage."""
    return f"only the owner moves a task to {stage}"


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
            unless = unless_size(req)
            if facts.plan_status != "accepted" and facts.size not in unless:
                messages.append(_plan_message(target_stage, unless, facts.plan_status))
    return messages
