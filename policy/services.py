"""Every change of a policy: agents' proposals, the owner's decisions, the editor, the preset.

Each service validates, writes and records its events in one transaction (docs/architecture.md
§1). The global layer is the file policy.json: it is written after that transaction
commits, atomically; when the write fails an accepted proposal goes back to pending
(policy.proposal_reopened) and the error names the file (§7). A change that widens agents'
access on live raises NeedsConfirmation until the owner confirms it (policy/widen.py). What
every proposal shares (pending, decided once, reopened, the second confirmation) is
tasks/proposals.py; here is only what a policy change means.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.errors import InvalidField
from policy import global_file, seams, selectors, validate
from policy.merge import merge_patch
from policy.models import REASON_MAX, PolicyLayer, PolicyProposal
from policy.presets import PRESETS
from policy.selectors import GLOBAL, Scope
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.fields import clean_text
from tasks.proposals import ACCEPTED, REJECTED, NeedsConfirmation, confirm_note
from tasks.proposals import AlreadyDecided as AlreadyDecided  # re-exported for the adapters
from tasks.services import Outcome
from tasks.services.proposals import (
    proposal_decide_step,
    proposal_pending_step,
    proposal_reopen_step,
)

LABEL = "policy proposal"
VERB = "widens"  # what a change does to agents' access on live, in its messages


@dataclass(frozen=True)
class Saved:
    """A stored layer: its scope, and what it widened on live (confirmed)."""

    scope: Scope
    widened: tuple[str, ...] = ()


# --- agents -----------------------------------------------------------------------------------


def policy_propose(*, scope: str, patch: Any, reason: str, actor: Actor) -> Outcome[PolicyProposal]:
    """Record an agent's merge patch for a scope; nothing else changes (policy.proposed).

    The patch is merged into the scope's current layer (objects key by key, null removes a
    key) and the result validated now; it is validated again when accepted.
    """
    why = clean_text("reason", reason, REASON_MAX)
    if not why:
        raise InvalidField("reason", "reason is required: say why the policy should change.")
    if not isinstance(patch, dict) or not patch:
        raise InvalidField(
            "patch",
            'patch must be a non-empty JSON object merged into the layer, e.g. {"guard": '
            '{"mode": "block"}} (null removes a key). policy_get shows the current values.',
        )
    with transaction.atomic(durable=True):
        who = caller_in(actor)
        target = selectors.resolve_scope(scope)
        # §9.9: every string of the patch, keys too, under the scope's policy as it is now
        seams.check_texts({"patch": patch, "reason": why}, selectors.effective(target).merged)
        body = _patched(target, patch, label=f"proposal for {target.label()}")
        widens = _widens(target, body)
        proposal = PolicyProposal.objects.create(
            scope=target.name,
            project=target.project,
            environment=target.environment,
            patch=patch,
            reason=why,
            proposed_by=who.name,
            session_id=who.session_id,
            created_at=timezone.now(),
        )
        record_event(
            EventKind.POLICY_PROPOSED,
            project=target.project,
            actor=who.name,
            payload=_payload(proposal, reason=why, widens=list(widens)),
        )
    notes = confirm_note(widens, verb=VERB)
    return Outcome(obj=proposal, created=True, notes=notes, caller_notes=who.notes)


# --- the owner ------------------------------------------------------------------------------------


def policy_proposal_accept(
    *, proposal: int, actor: str, confirmed: bool = False
) -> Outcome[PolicyProposal]:
    """Store the proposed layer (policy.updated, policy.proposal_accepted).

    Raises NeedsConfirmation when it widens live and `confirmed` is False, PolicyInvalid
    when the result no longer validates, PolicyFileError when policy.json is broken (not
    overwritten) or cannot be written (the proposal is pending again).
    """
    with transaction.atomic(durable=True):
        found = _pending(proposal)
        target = _scope_of(found)
        if target.kind == GLOBAL:
            _refuse_broken_file("accepted")
        body = _patched(target, found.patch, label=f"proposal #{found.id} for {target.label()}")
        widens = _widens(target, body)
        if widens and not confirmed:
            raise NeedsConfirmation(widens, verb=VERB)
        _store(target, body, actor=actor)
        proposal_decide_step(
            found, ACCEPTED, actor=actor, result=body, error="", file_pending=target.kind == GLOBAL
        )
        payload = _payload(found, widens=list(widens))
        record_event(EventKind.POLICY_UPDATED, project=target.project, actor=actor, payload=payload)
        record_event(
            EventKind.POLICY_PROPOSAL_ACCEPTED, project=target.project, actor=actor, payload=payload
        )
    if target.kind == GLOBAL:
        _write_accepted(found, body, actor=actor)
    return Outcome(obj=found, changed=("status",))


def policy_proposal_reject(*, proposal: int, actor: str) -> Outcome[PolicyProposal]:
    """Decide a pending proposal as rejected (policy.proposal_rejected); nothing else changes."""
    with transaction.atomic(durable=True):
        found = _pending(proposal)
        proposal_decide_step(found, REJECTED, actor=actor)
        record_event(
            EventKind.POLICY_PROPOSAL_REJECTED,
            project=found.project,
            actor=actor,
            payload=_payload(found),
        )
    return Outcome(obj=found, changed=("status",))


def policy_layer_save(
    *, scope: str, text: str, actor: str, confirmed: bool = False
) -> Outcome[Saved]:
    """The editor: replace a scope's layer with `text` (JSON). Empty text removes a
    project or environment layer, and leaves an empty global file. The editor may replace a
    broken policy.json (that is how it gets fixed)."""
    target = selectors.resolve_scope(scope)
    label = target.label()
    body = validate.parse(text, label=label) if text.strip() else None
    if body is not None:
        seams.check_texts({"layer": body}, selectors.effective(target).merged)  # §9.9
        validate.check(body, label=label, scope=target.kind)
    return _save(target, body, actor=actor, confirmed=confirmed, via="editor")


def policy_preset_set(*, preset: str, actor: str, confirmed: bool = False) -> Outcome[Saved]:
    """Write `preset` into policy.json, keeping everything else in the file."""
    if preset not in PRESETS:
        raise InvalidField("preset", f"preset must be one of {', '.join(PRESETS)}.")
    _refuse_broken_file("changed")
    body = {**global_file.state().body, "preset": preset}
    return _save(Scope(), body, actor=actor, confirmed=confirmed, via="preset")


def policy_reopen_unwritten(*, actor: str = "relaybay") -> int:
    """At start: reopen accepted global proposals whose policy.json write never happened
    (the server stopped between the commit and the write). Returns how many."""
    reopened = 0
    for found in PolicyProposal.objects.filter(file_pending=True):
        if found.result is not None and global_file.content_is(found.result):
            PolicyProposal.objects.filter(id=found.id).update(file_pending=False)
            continue
        _reopen(
            found,
            f"the server stopped before {global_file.policy_path()} was written, so the file "
            "did not change. Accept the proposal again.",
            actor=actor,
        )
        reopened += 1
    return reopened


# --- private steps --------------------------------------------------------------------------------


def _save(
    target: Scope, body: dict[str, Any] | None, *, actor: str, confirmed: bool, via: str
) -> Outcome[Saved]:
    with transaction.atomic(durable=True):
        current = _current_body(target)
        broken = target.kind == GLOBAL and global_file.state().error  # the editor replaces it
        if not broken and (body or {}) == current and (body is not None or target.kind == GLOBAL):
            note = f"Nothing changed: the {_scope_words(target)} policy already says so."
            return Outcome(obj=Saved(target), notes=(note,))
        if body is None and target.kind != GLOBAL and selectors.own_layer(target) is None:
            return Outcome(obj=Saved(target), notes=("Nothing changed: there is no layer.",))
        widens = _widens(target, body or {})
        if widens and not confirmed:
            raise NeedsConfirmation(widens, verb=VERB)
        _store(target, body, actor=actor)
        record_event(
            EventKind.POLICY_UPDATED,
            project=target.project,
            actor=actor,
            payload={"scope": target.name, "via": via, "widens": list(widens)},
        )
    if target.kind == GLOBAL:
        global_file.write(body or {})
    note = f"Saved the {_scope_words(target)} policy."
    return Outcome(obj=Saved(target, widens), changed=("layer",), notes=(note,))


def _store(target: Scope, body: dict[str, Any] | None, *, actor: str) -> None:
    """The database layer of a project or environment (the global file is written after)."""
    if target.kind == GLOBAL:
        return
    rows = PolicyLayer.objects.filter(project=target.project, environment=target.environment)
    if body is None:
        rows.delete()
        return
    PolicyLayer.objects.update_or_create(
        project=target.project,
        environment=target.environment,
        defaults={"body": body, "changed_at": timezone.now(), "changed_by": actor},
    )


def _write_accepted(found: PolicyProposal, body: dict[str, Any], *, actor: str) -> None:
    try:
        global_file.write(body)
    except global_file.PolicyFileError as exc:
        _reopen(found, str(exc), actor=actor)
        raise global_file.PolicyFileError(
            f"{exc} The proposal #{found.id} is pending again."
        ) from None
    PolicyProposal.objects.filter(id=found.id).update(file_pending=False)


def _reopen(found: PolicyProposal, error: str, *, actor: str) -> None:
    with transaction.atomic(durable=True):
        proposal_reopen_step(found, file_pending=False, error=error)
        record_event(
            EventKind.POLICY_PROPOSAL_REOPENED,
            project=found.project,
            actor=actor,
            payload=_payload(found, error=error),
        )


def _pending(proposal: int) -> PolicyProposal:
    rows = PolicyProposal.objects.select_related("project", "environment")
    return proposal_pending_step(rows, proposal, label=LABEL)


def _scope_of(found: PolicyProposal) -> Scope:
    return selectors.proposal_scope(found)


def _current_body(target: Scope) -> dict[str, Any]:
    return selectors.own_body(target)


def _patched(target: Scope, patch: dict[str, Any], *, label: str) -> dict[str, Any]:
    body = merge_patch(_current_body(target), patch)
    validate.check(body, label=label, scope=target.kind)
    return body


def _widens(target: Scope, body: dict[str, Any]) -> tuple[str, ...]:
    return selectors.widens_on_live(target, body)


def _refuse_broken_file(verb: str) -> None:
    current = global_file.state()
    if current.error:
        raise global_file.PolicyFileError(
            f"{current.path} is broken, so it was not {verb}: {current.error}. Fix or replace "
            "it in the editor of the global policy first."
        )


def _payload(found: PolicyProposal, **extra: Any) -> dict[str, Any]:
    return {"proposal": found.id, "scope": found.scope, **extra}


def _scope_words(target: Scope) -> str:
    return "global" if target.kind == GLOBAL else target.name
