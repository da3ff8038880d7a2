"""Agents' proposals for a project's stands (§7 Proposals): recorded, then decided by a person.

A proposal is validated like a board write (the same steps, run without writing) when it
is proposed, and applied through those steps in one transaction when it is accepted — with
the same confirmation for raising live.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from core.errors import DomainError, InvalidField, NotFound
from environments.models import ACCEPTED, PENDING, REJECTED, EnvironmentProposal
from environments.services._steps import (
    Change,
    NeedsConfirmation,
    apply_change,
    check_secrets,
    project_policy,
)
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.fields import clean_text
from tasks.selectors import get_project
from tasks.services import Outcome

CHANGE_KEYS = (
    "environment",
    "kind",
    "base_url",
    "notes",
    "sign_in_allowed",
    "login_state_path",
    "level",
    "overrides",
    "access",
)
REASON_MAX = 1000


class AlreadyDecided(DomainError):
    status = 409


def environment_propose(
    *, project: str, change: Any, reason: str, actor: Actor
) -> Outcome[EnvironmentProposal]:
    """Record a proposed change; nothing else changes (environment.proposed)."""
    why = clean_text("reason", reason, REASON_MAX)
    if not why:
        raise InvalidField("reason", "reason is required: say why the stands should change.")
    with transaction.atomic():
        who = caller_in(actor)
        found = get_project(project)
        check_secrets({"reason": why}, project_policy(found))
        parsed = parse_change(change)
        try:  # validated like the owner's write; only the confirmation is left to the owner
            apply_change(found, parsed, actor=who.name, confirmed=False, write=False, proposal=True)
            raises: tuple[str, ...] = ()
        except NeedsConfirmation as asked:
            raises = asked.reasons
        proposal = EnvironmentProposal.objects.create(
            project=found,
            change=change,
            reason=why,
            proposed_by=who.name,
            session_id=who.session_id,
            created_at=timezone.now(),
        )
        record_event(
            EventKind.ENVIRONMENT_PROPOSED,
            project=found,
            actor=who.name,
            payload=_payload(proposal, reason=why),
        )
    notes = (
        (
            "It raises agents' access on live ("
            + "; ".join(raises)
            + "), so the owner confirms it "
            "a second time when accepting.",
        )
        if raises
        else ()
    )
    return Outcome(obj=proposal, created=True, notes=notes, caller_notes=who.notes)


def environment_proposal_accept(
    *, proposal: int, actor: str, confirmed: bool = False
) -> Outcome[EnvironmentProposal]:
    """Apply the proposal in one transaction (environment.proposal_accepted + the change's own
    events); NeedsConfirmation when it raises live."""
    with transaction.atomic():
        found = _pending(proposal)
        change = parse_change(found.change)
        apply_change(
            found.project, change, actor=actor, confirmed=confirmed, write=True, proposal=True
        )
        _decide(found, ACCEPTED, actor)
        record_event(
            EventKind.ENVIRONMENT_PROPOSAL_ACCEPTED,
            project=found.project,
            actor=actor,
            payload=_payload(found),
        )
    return Outcome(obj=found, changed=("status",))


def environment_proposal_reject(*, proposal: int, actor: str) -> Outcome[EnvironmentProposal]:
    with transaction.atomic():
        found = _pending(proposal)
        _decide(found, REJECTED, actor)
        record_event(
            EventKind.ENVIRONMENT_PROPOSAL_REJECTED,
            project=found.project,
            actor=actor,
            payload=_payload(found),
        )
    return Outcome(obj=found, changed=("status",))


def parse_change(change: Any) -> Change:
    """The proposal's change object as a Change; unknown keys are refused, not dropped."""
    if not isinstance(change, dict) or not change:
        raise InvalidField(
            "change",
            'change must be an object naming the environment, e.g. {"environment": "live", '
            '"level": "ask"}; a new environment also needs "kind".',
        )
    unknown = sorted(set(change) - set(CHANGE_KEYS))
    if unknown:
        raise InvalidField(
            "change",
            f"change: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(CHANGE_KEYS)}).",
        )
    name = change.get("environment")
    if not isinstance(name, str) or not name.strip():
        raise InvalidField("change", 'change.environment names the environment, e.g. "live".')
    access = change.get("access") or []
    if not isinstance(access, list):
        raise InvalidField("change", "change.access is a list of entries to add.")
    sign_in = change.get("sign_in_allowed")
    if sign_in is not None and not isinstance(sign_in, bool):
        raise InvalidField("change", "change.sign_in_allowed is true or false.")
    return Change(
        environment=name,
        kind=change.get("kind"),
        base_url=change.get("base_url"),
        sign_in_allowed=sign_in,
        login_state_path=change.get("login_state_path"),
        notes=change.get("notes"),
        level=change.get("level"),
        overrides=change.get("overrides"),
        access=list(access),
    )


def _pending(proposal: int) -> EnvironmentProposal:
    found = EnvironmentProposal.objects.select_related("project").filter(id=proposal).first()
    if found is None:
        raise NotFound(f"Unknown environment proposal #{proposal}.")
    if found.status != PENDING:
        who = f" by {found.decided_by}" if found.decided_by else ""
        raise AlreadyDecided(
            f"Environment proposal #{found.id} was already {found.status}{who}; a decided "
            "proposal cannot be decided again."
        )
    return found


def _decide(found: EnvironmentProposal, status: str, actor: str) -> None:
    found.status, found.decided_at, found.decided_by = status, timezone.now(), actor
    found.save()


def _payload(found: EnvironmentProposal, **extra: Any) -> dict[str, Any]:
    return {"proposal": found.id, "environment": found.change.get("environment", ""), **extra}
