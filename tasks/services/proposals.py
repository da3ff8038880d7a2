"""The writing steps of "agent proposes, owner confirms" (tasks/proposals.py has the rest).

Environments' and policy's deciding services run them inside their own transaction, then
record their own events: find the proposal still pending (or refuse), decide it, reopen it.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils import timezone

from core.errors import NotFound
from tasks.proposals import PENDING, AlreadyDecided


def proposal_pending_step[P: models.Model](
    rows: models.QuerySet[P], proposal: int, *, label: str
) -> P:
    """The proposal `proposal` of `rows`, still pending. `label` names it in the refusals:
    "environment proposal" → "Unknown environment proposal #7." (404), "Environment proposal
    #7 was already rejected by owner; …" (409)."""
    found = rows.filter(id=proposal).first()
    if found is None:
        raise NotFound(f"Unknown {label} #{proposal}.")
    if found.status != PENDING:
        who = f" by {found.decided_by}" if found.decided_by else ""
        raise AlreadyDecided(
            f"{label[:1].upper()}{label[1:]} #{found.id} was already {found.status}{who}; a "
            "decided proposal cannot be decided again."
        )
    return found


def proposal_decide_step(found: models.Model, status: str, *, actor: str, **fields: Any) -> None:
    """Decide `found` (accepted / rejected) by `actor` now; `fields` are the app's own columns
    set with it (policy: the accepted layer, whether policy.json is still to be written)."""
    found.status, found.decided_at, found.decided_by = status, timezone.now(), actor
    for name, value in fields.items():
        setattr(found, name, value)
    found.save()


def proposal_reopen_step(found: models.Model, **fields: Any) -> None:
    """Put a decided proposal back to pending, undecided; `fields` are the app's own columns
    (policy: why it was reopened). `found` is read again after the write."""
    type(found)._default_manager.filter(id=found.id).update(
        status=PENDING, decided_at=None, decided_by="", **fields
    )
    found.refresh_from_db()
