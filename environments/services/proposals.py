"""Agents' proposals for a project's stands (§7 Proposals): recorded, then decided by a person.

A proposal is validated like a board write (the same steps, run without writing) when it
is proposed, and applied through those steps in one transaction when it is accepted — with
the same confirmation for raising live. What every proposal shares (pending, decided once,
the second confirmation) is tasks/proposals.py; here is only what a stands change means.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from core.actor import OWNER
from core.errors import DomainError, InvalidField
from environments import secret_door
from environments.models import EnvironmentProposal
from environments.services._steps import Change, apply_change, find_environment
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.fields import clean_text, nearest
from tasks.models import Project
from tasks.proposals import ACCEPTED, REJECTED, NeedsConfirmation, confirm_note
from tasks.selectors import get_project
from tasks.services import Outcome
from tasks.services.proposals import proposal_decide_step, proposal_pending_step

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
ENTRY_KEYS = ("kind", "fields")
TEXT_KEYS = ("environment", "kind", "base_url", "notes", "login_state_path", "level")
REASON_MAX = 1000
CHANGE_MAX = 32 * 1024  # characters of a change as JSON: 30 fields of 500, notes of 4000 …
LABEL = "environment proposal"


def environment_propose(
    *, project: str, change: Any, reason: str, actor: Actor
) -> Outcome[EnvironmentProposal]:
    """Record a proposed change; nothing else changes (environment.proposed)."""
    why = clean_text("reason", reason, REASON_MAX)
    if not why:
        raise InvalidField("reason", "reason is required: say why the stands should change.")
    with transaction.atomic(durable=True):
        who = caller_in(actor)
        found = get_project(project)
        # Every string of the change, keys too, at any depth, before it is parsed (§9.9).
        secret_door.refuse(found, values={"change": change, "reason": why}, limit=CHANGE_MAX)
        parsed = parse_change(change)
        # validated like the owner's write; only the confirmation is left to the owner
        raises = _raises(found, parsed, actor=who.name, proposal=True)
        stand = find_environment(found, parsed.environment)
        if stand is not None:  # names are case-insensitive (§7): the stand's own spelling
            parsed.environment = stand.name
        proposal = EnvironmentProposal.objects.create(
            project=found,
            change=change_json(parsed),  # what was checked, not what was sent
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
    notes = confirm_note(raises)
    return Outcome(obj=proposal, created=True, notes=notes, caller_notes=who.notes)


def environment_proposal_accept(
    *, proposal: int, actor: str, confirmed: bool = False
) -> Outcome[EnvironmentProposal]:
    """Apply the proposal in one transaction (environment.proposal_accepted + the change's own
    events); NeedsConfirmation when it raises live."""
    with transaction.atomic(durable=True):
        found = _pending(proposal)
        change = parse_change(found.change)
        apply_change(
            found.project, change, actor=actor, confirmed=confirmed, write=True, proposal=True
        )
        proposal_decide_step(found, ACCEPTED, actor=actor)
        record_event(
            EventKind.ENVIRONMENT_PROPOSAL_ACCEPTED,
            project=found.project,
            actor=actor,
            payload=_payload(found),
        )
    return Outcome(obj=found, changed=("status",))


def environment_proposal_reject(*, proposal: int, actor: str) -> Outcome[EnvironmentProposal]:
    """Decide a pending proposal as rejected (environment.proposal_rejected); nothing else
    changes."""
    with transaction.atomic(durable=True):
        found = _pending(proposal)
        proposal_decide_step(found, REJECTED, actor=actor)
        record_event(
            EventKind.ENVIRONMENT_PROPOSAL_REJECTED,
            project=found.project,
            actor=actor,
            payload=_payload(found),
        )
    return Outcome(obj=found, changed=("status",))


def environment_proposal_check(*, project: Project, change: Any) -> tuple[tuple[str, ...], str]:
    """What accepting a stored change would do now, for the page's list: (why it asks a second
    time, why it would be refused — "" when it would not). The steps run without writing, with
    the secret checks under the stand's own policy as the board's write of the change."""
    try:
        parsed = parse_change(change)
        return _raises(project, parsed, actor=OWNER, proposal=False), ""
    except DomainError as exc:
        return (), str(exc)


def parse_change(change: Any) -> Change:
    """The proposal's change object as a Change. Unknown keys are refused at every level, not
    dropped (an access entry is kind + fields, nothing else), and every value has its type."""
    if not isinstance(change, dict) or not change:
        raise InvalidField(
            "change",
            'change must be an object naming the environment, e.g. {"environment": "live", '
            '"level": "ask"}; a new environment also needs "kind".',
        )
    _known_keys("change", change, CHANGE_KEYS)
    name = change.get("environment")
    if not isinstance(name, str) or not name.strip():
        raise InvalidField("change", 'change.environment names the environment, e.g. "live".')
    for key in TEXT_KEYS:
        if change.get(key) is not None and not isinstance(change[key], str):
            raise InvalidField("change", f"change.{key} is text.")
    sign_in = change.get("sign_in_allowed")
    if sign_in is not None and not isinstance(sign_in, bool):
        raise InvalidField("change", "change.sign_in_allowed is true or false.")
    overrides = change.get("overrides")
    if overrides is not None and (
        not isinstance(overrides, dict) or not all(isinstance(v, str) for v in overrides.values())
    ):
        raise InvalidField(
            "change", 'change.overrides maps a capability to a level, e.g. {"db": "ask"}.'
        )
    return Change(
        environment=name,
        kind=change.get("kind"),
        base_url=change.get("base_url"),
        sign_in_allowed=sign_in,
        login_state_path=change.get("login_state_path"),
        notes=change.get("notes"),
        level=change.get("level"),
        overrides=overrides,
        access=_access(change.get("access")),
    )


def change_json(change: Change) -> dict[str, Any]:
    """The change as a proposal stores it: only the keys it gives, in CHANGE_KEYS' order."""
    given = {key: getattr(change, key) for key in CHANGE_KEYS}
    return {k: v for k, v in given.items() if v is not None and (k != "access" or v)}


def _access(value: Any) -> list[dict[str, Any]]:
    """change.access: entries of kind and fields, whose fields are text (a test secret's
    {"value": …} is the owner's, on the board)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidField("change", "change.access is a list of entries to add.")
    entries = []
    for index, entry in enumerate(value):
        where = f"change.access[{index}]"
        if not isinstance(entry, dict):
            raise InvalidField(
                "change", f'{where} is an object: {{"kind": "ssh", "fields": {{…}}}}.'
            )
        _known_keys(where, entry, ENTRY_KEYS)
        fields = entry.get("fields") or {}
        if not isinstance(fields, dict):
            raise InvalidField("change", f'{where}.fields is an object: {{"host": "…"}}.')
        if any(isinstance(v, dict) for v in fields.values()):
            raise InvalidField(
                "access", "Test secrets are entered by the owner on the board, never proposed."
            )
        if not all(isinstance(v, str) for v in fields.values()):
            raise InvalidField("change", f"{where}.fields holds text values only.")
        entries.append({"kind": entry.get("kind"), "fields": dict(fields)})
    return entries


def _known_keys(where: str, given: dict[str, Any], keys: tuple[str, ...]) -> None:
    """Refuse unknown keys, naming where and the nearest valid key, never the unknown one:
    it may be a value pasted in the wrong place."""
    unknown = [key for key in given if key not in keys]
    if unknown:
        near = sorted({n for key in unknown if (n := nearest(key, keys))})
        raise InvalidField(
            "change",
            f"{where} has {len(unknown)} unknown key{'s' if len(unknown) > 1 else ''}; its "
            f"keys are {', '.join(keys)}." + (f" Did you mean {', '.join(near)}?" if near else ""),
        )


def _raises(project: Project, change: Change, *, actor: str, proposal: bool) -> tuple[str, ...]:
    """Run the change's steps without writing: why applying it raises live (() when it does
    not); any other refusal of the steps is raised."""
    try:
        apply_change(project, change, actor=actor, confirmed=False, write=False, proposal=proposal)
    except NeedsConfirmation as asked:
        return asked.reasons
    return ()


def _pending(proposal: int) -> EnvironmentProposal:
    rows = EnvironmentProposal.objects.select_related("project")
    return proposal_pending_step(rows, proposal, label=LABEL)


def _payload(found: EnvironmentProposal, **extra: Any) -> dict[str, Any]:
    return {"proposal": found.id, "environment": found.change.get("environment", ""), **extra}
