"""The Owner check's services (§1 Review checklist).

- review_steps_set: the agent writes the whole checklist (keep/reset rules below);
- review_step_update: the agent changes one step's text, or asks for a new look (open);
- review_step_decide: the owner's decision on the board (accept / reject / reopen /
  comment). Each decision is an owner comment linked to the step (comment.step_id), written
  in the same transaction through tasks.services.owner_comment_step, so it reaches the bound
  session through the comment path (§4). Agents never accept or reject.

A write that changes nothing is not kept: no row, no event, a "Nothing changed" note.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from core import actor as actors
from core.errors import InvalidField
from reviews import selectors
from reviews.models import (
    ACCEPTED,
    DETAILS_MAX,
    OPEN,
    REJECTED,
    STEPS_MAX,
    TITLE_MAX,
    ReviewStep,
)
from reviews.services._common import event
from tasks import steps as step_rules
from tasks.events import EventKind
from tasks.extensions import Actor, caller_in, refuse_secrets
from tasks.models import Comment, Task
from tasks.selectors import get_task
from tasks.services import Outcome, owner_comment_step
from tasks.steps import StepIn, checked_text

DECISIONS = ("accept", "reject", "reopen", "comment")
COMMENT_MAX = 3000  # the decision head plus the comment stay under a comment's 4000


def _title(name: str, value: object) -> str:
    title = " ".join(checked_text(name, value or "", TITLE_MAX, one_line=True).split())
    if not title:
        raise InvalidField(name, f"{name} is empty: say what the owner should check.")
    return title


def _details(name: str, value: object) -> str | None:
    return step_rules.clean_details(name, value, DETAILS_MAX)


def clean_steps(raw: object) -> list[StepIn]:
    """review_steps_set's steps: a list of {title, details?} or plain titles."""
    return step_rules.clean_steps(
        raw, what="A checklist", max_steps=STEPS_MAX, title_max=TITLE_MAX, details_max=DETAILS_MAX
    )


def _payload(step: ReviewStep, by: str, **extra: Any) -> dict[str, Any]:
    return {
        "position": step.position,
        "title": step.title,
        "status": step.status,
        "by": by,
        **extra,
    }


def _reopen(step: ReviewStep) -> None:
    step.status, step.decided_at, step.decided_by = OPEN, None, ""


# --- review_steps_set ------------------------------------------------------------------------


def _same(step: ReviewStep, item: StepIn) -> bool:
    return step.title == item.title and (item.details is None or item.details == step.details)


def review_steps_set(*, key: str, steps: list[Any], actor: Actor) -> Outcome[Task]:
    """Replace the Owner check of task `key` with `steps` (§1 Review checklist).

    steps: titles or {title, details?}. Step N keeps its status (and its screenshots) while
    its title and details stay the same; a changed step is open again; steps past the new
    end are removed; [] removes the checklist. details left out keeps the details of a step
    whose title stays. A write that changes nothing is not kept (no event, a note). Events
    review.step_added / review.step_updated / review.step_removed {position, title, status,
    by} (updated also has previous).
    Raises NotFound (task), InvalidField (steps).
    """
    new = clean_steps(steps)
    with transaction.atomic(durable=True):
        task = get_task(key)
        refuse_secrets(task.project, texts={"steps": steps})
        who = caller_in(actor, task=task)
        old = selectors.review_steps(task)
        if len(old) == len(new) and all(_same(s, n) for s, n in zip(old, new, strict=True)):
            what = f"these {len(old)} step(s)" if old else "no Owner check"
            return Outcome(
                obj=task,
                notes=(f"Nothing changed: {task.key} already has {what}.",),
                caller_notes=who.notes,
            )
        now = timezone.now()
        for position, item in enumerate(new, 1):
            step = old[position - 1] if position <= len(old) else None
            if step is None:
                step = ReviewStep(
                    task=task,
                    position=position,
                    title=item.title,
                    details=item.details or "",
                    created_by=who.name,
                    created_at=now,
                    updated_at=now,
                )
                step.save(force_insert=True)
                event(EventKind.REVIEW_STEP_ADDED, task, who.name, _payload(step, who.name))
            elif not _same(step, item):
                previous = step.status
                step.title = item.title
                if item.details is not None:
                    step.details = item.details
                _reopen(step)
                step.updated_at = now
                step.save()
                payload = _payload(step, who.name, previous=previous)
                event(EventKind.REVIEW_STEP_UPDATED, task, who.name, payload)
        for step in old[len(new) :]:
            event(EventKind.REVIEW_STEP_REMOVED, task, who.name, _payload(step, who.name))
        ReviewStep.objects.filter(task=task, position__gt=len(new)).delete()
        return Outcome(obj=task, changed=("review_steps",), caller_notes=who.notes)


# --- review_step_update ----------------------------------------------------------------------


def review_step_update(
    *,
    key: str,
    step: int | str,
    actor: Actor,
    title: str | None = None,
    details: str | None = None,
    status: str | None = None,
) -> Outcome[ReviewStep]:
    """Change one step of the Owner check of `key` (its number `step`); None = not given.

    title / details: new text ("-" or "" clears details); a step whose text changes is open
    again. status: only "open", to ask the owner for a new look after a fix — agents never
    accept or reject. Event review.step_updated {position, title, status, by, previous}.
    Raises NotFound (task, step), InvalidField.
    """
    new_title = _title("title", title) if title is not None else None
    new_details = _details("details", details) if details is not None else None
    if status is not None and status.strip().lower() != OPEN:
        raise InvalidField(
            "status",
            'status can only be "open" (ask for a new look): the owner accepts or rejects '
            "steps on the board.",
        )
    with transaction.atomic(durable=True):
        task = get_task(key)
        refuse_secrets(task.project, texts={"title": title, "details": details})
        who = caller_in(actor, task=task)
        found = selectors.find_step(task, step)
        previous = found.status
        text_changed = (new_title is not None and new_title != found.title) or (
            new_details is not None and new_details != found.details
        )
        if not text_changed and (status is None or previous == OPEN):
            return Outcome(
                obj=found,
                notes=(f"Nothing changed: step {found.position} of {task.key} already says so.",),
                caller_notes=who.notes,
            )
        found.title = new_title if new_title is not None else found.title
        found.details = new_details if new_details is not None else found.details
        _reopen(found)
        found.updated_at = timezone.now()
        found.save()
        payload = _payload(found, who.name, previous=previous)
        event(EventKind.REVIEW_STEP_UPDATED, task, who.name, payload)
        return Outcome(obj=found, changed=("step",), caller_notes=who.notes)


# --- review_step_decide (the owner, on the board) -------------------------------------------


def _accepted_text(step: ReviewStep, steps: list[ReviewStep]) -> str:
    head = f"Step {step.position} '{step.title}' accepted"
    following = selectors.next_not_accepted(steps, step.position)
    if following is None:
        return f"{head} — all {len(steps)} steps accepted"
    return f"{head} — continue with step {following.position}"


def _decision_text(decision: str, step: ReviewStep, steps: list[ReviewStep], note: str) -> str:
    name = f"step {step.position} '{step.title}'"
    if decision == "comment":
        return f"On {name}: {note}"
    if decision == "accept":
        text = _accepted_text(step, steps)
        return f"{text}\n\n{note}" if note else text
    verb = "rejected" if decision == "reject" else "reopened"
    text = f"Step {step.position} '{step.title}' {verb}"
    return f"{text}: {note}" if note else text


_TARGET = {"accept": ACCEPTED, "reject": REJECTED, "reopen": OPEN}
_KIND = {
    ACCEPTED: EventKind.REVIEW_STEP_ACCEPTED,
    REJECTED: EventKind.REVIEW_STEP_REJECTED,
    OPEN: EventKind.REVIEW_STEP_UPDATED,
}


def _clean_decision(decision: object, comment: str | None) -> tuple[str, str]:
    what = str(decision or "").strip().lower()
    if what not in DECISIONS:
        raise InvalidField("decision", f"decision must be one of {', '.join(DECISIONS)}.")
    note = checked_text("comment", comment, COMMENT_MAX) if comment is not None else ""
    if what == "comment" and not note:
        raise InvalidField("comment", "comment is empty: write what the agent should know.")
    return what, note


def review_step_decide(
    *,
    key: str,
    step: int | str,
    decision: str,
    comment: str | None = None,
    actor: str = actors.OWNER,
) -> Outcome[Comment | None]:
    """The owner's decision on one step of the Owner check (board only, §1).

    decision: accept, reject, reopen or comment (comment needs a comment). The decision is
    an owner comment linked to the step (comment.step_id) with the exact texts "Step 2
    'Login with 2FA' accepted — continue with step 3", "… accepted — all 3 steps
    accepted", "Step 2 '…' rejected: <comment>", "Step 2 '…' reopened" and "On step 2
    '…': <comment>"; it goes to the bound session through the comment path. A decision the
    step already has, with a comment, is a comment on the step; without one (a double
    click, a stale panel) it writes and delivers nothing. Events review.step_accepted /
    review.step_rejected / review.step_updated (reopen) {position, title, status, by,
    previous, comment_id} and comment.added. Outcome.obj: the comment, None when nothing
    was written. Raises NotFound (task, step), InvalidField (decision, comment).
    """
    what, note = _clean_decision(decision, comment)
    with transaction.atomic(durable=True):
        task = get_task(key)
        refuse_secrets(task.project, texts={"comment": note})
        found = selectors.find_step(task, step)
        target = _TARGET.get(what)
        if target == found.status:
            if not note:
                return Outcome(
                    obj=None,
                    notes=(f"Nothing changed: step {found.position} is already {target}.",),
                )
            what, target = "comment", None
        previous = found.status
        if target is not None:
            now = timezone.now()
            found.status = target
            found.decided_at, found.decided_by = (None, "") if target == OPEN else (now, actor)
            found.updated_at = now
            found.save()
        steps = selectors.review_steps(task)
        body = _decision_text(what, found, steps, note)
        written = owner_comment_step(task, body=body, actor=actor, step_id=found.id)
        if target is not None:
            payload = _payload(found, actor, previous=previous, comment_id=written.obj.id)
            event(_KIND[target], task, actor, payload)
        return Outcome(
            obj=written.obj,
            created=True,
            changed=("status",) if target else (),
            notes=written.notes,
        )
