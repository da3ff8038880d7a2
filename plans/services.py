"""The one write path of plans (§1 Plan and checkpoints): plan_set, plan_step_update, plan_accept.

Each public service is one durable `transaction.atomic()`: it validates, writes the steps,
writes the plan status on the task (through the tasks app's write path,
tasks.services.plan_status_step: the three plan columns plus the version, nothing else of
the task), adds a PlanRevision with the whole plan and appends its event. A write that
changes nothing is not kept: no revision, no event, a "Nothing changed" note.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.errors import Forbidden, InvalidField, NotFound, VersionConflict
from core.rows import StaleRow
from plans import selectors
from plans.fields import (
    CLEAR,
    CONFORMANCE_RULE,
    StepIn,
    clean_conformance,
    clean_details,
    clean_link,
    clean_outcome,
    clean_reason,
    clean_status,
    clean_steps,
)
from plans.models import DONE, PENDING, PlanRevision, PlanStep
from sessions import selectors as session_selectors
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in, refuse_secrets
from tasks.models import Task
from tasks.selectors import get_task
from tasks.services import Outcome, plan_status_step
from tasks.steps import step_number

# --- private steps shared by the services --------------------------------------------------


def _step_json(step: PlanStep) -> dict[str, Any]:
    return {
        "position": step.position,
        "title": step.title,
        "details": step.details,
        "status": step.status,
        "done_at": step.done_at.isoformat() if step.done_at else None,
        "outcome": step.outcome,
        "link": step.link,
        "conformance": step.conformance,
    }


def _add_revision(task: Task, steps: list[PlanStep], *, actor: str, reason: str) -> int:
    number = selectors.latest_revision(task) + 1
    PlanRevision.objects.create(
        task=task,
        revision=number,
        body={
            "status": task.plan_status,
            "accepted_by": task.plan_accepted_by,
            "accepted_at": task.plan_accepted_at.isoformat() if task.plan_accepted_at else None,
            "steps": [_step_json(s) for s in steps],
        },
        author=actor,
        reason=reason,
        created_at=timezone.now(),
    )
    return number


def _write_plan_status(
    task: Task, status: str, accepted_at: datetime | None, accepted_by: str, now: datetime
) -> None:
    """The task's plan columns and version, conditional like every task write (§3)."""
    old = task.version
    try:
        plan_status_step(
            task, status=status, accepted_at=accepted_at, accepted_by=accepted_by, now=now
        )
    except StaleRow:
        raise VersionConflict(
            f"Another write changed {task.key} at the same moment. Read the plan again "
            "(plan_get) and write again.",
            current_version=old,
        ) from None


def _load(key: str) -> Task:
    return get_task(key)


def _clear_checkpoint(step: PlanStep) -> None:
    step.done_at, step.outcome, step.link, step.conformance = None, "", "", ""


# --- plan_set --------------------------------------------------------------------------------


def _apply_steps(
    task: Task, old: list[PlanStep], new: list[StepIn], actor: str, now: datetime
) -> list[PlanStep]:
    """Step N keeps status and checkpoint while its title stays; a renamed one is pending."""
    result = []
    for position, item in enumerate(new, 1):
        step = old[position - 1] if position <= len(old) else None
        if step is None:
            step = PlanStep(
                task=task,
                position=position,
                title=item.title,
                details=item.details or "",
                created_by=actor,
                created_at=now,
                updated_at=now,
            )
            step.save(force_insert=True)
        elif step.title != item.title:
            step.title, step.status, step.created_by = item.title, PENDING, actor
            step.details = item.details or ""
            _clear_checkpoint(step)
            step.updated_at = now
            step.save()
        elif item.details is not None and item.details != step.details:
            step.details, step.updated_at = item.details, now
            step.save(update_fields=["details", "updated_at"])
        result.append(step)
    PlanStep.objects.filter(task=task, position__gt=len(new)).delete()
    return result


def _is_same(old: list[PlanStep], new: list[StepIn]) -> bool:
    if [s.title for s in old] != [n.title for n in new]:
        return False
    return all(n.details is None or n.details == s.details for s, n in zip(old, new, strict=True))


def plan_set(
    *, key: str, steps: list[Any], actor: Actor, reason: str | None = None
) -> Outcome[Task]:
    """Replace the plan of task `key` with `steps` (§1 Plan and checkpoints).

    steps: titles or {title, details?}. Step N keeps its status and checkpoint while its
    title stays the same; a renamed step is pending again with its checkpoint cleared; steps
    past the new end are removed; [] removes the plan (status none). details left out keeps
    the details of a step whose title stays, "-" or "" clears them. A first plan is a draft; a
    change of the titles or their order turns an accepted plan back to draft (a note says so).
    A write that changes nothing is not kept (no revision, no event, a note). Event plan.set
    {steps, status, previous_status, titles_changed, reason}.
    Raises NotFound (task), InvalidField (steps, reason).
    """
    new = clean_steps(steps)
    with transaction.atomic(durable=True):
        task = _load(key)
        refuse_secrets(task.project, texts={"steps": steps, "reason": reason})
        who = caller_in(actor, task=task)
        old = selectors.plan_steps(task)
        if _is_same(old, new):
            what = f"these {len(old)} step(s)" if old else "no plan"
            note = f"Nothing changed: {task.key} already has {what}."
            return Outcome(obj=task, notes=(note,), caller_notes=who.notes)
        now = timezone.now()
        titles_changed = [s.title for s in old] != [n.title for n in new]
        previous = task.plan_status if old else "none"
        notes: list[str] = []
        if not new:
            status, accepted_at, accepted_by = "none", None, ""
        elif previous == "accepted" and titles_changed:
            status, accepted_at, accepted_by = "draft", None, ""
            notes.append(
                f"The plan of {task.key} was accepted; its step titles or their order changed, "
                "so it is a draft again: ask for acceptance."
            )
        elif previous == "accepted":
            status, accepted_at, accepted_by = (
                "accepted",
                task.plan_accepted_at,
                task.plan_accepted_by,
            )
        else:
            status, accepted_at, accepted_by = "draft", None, ""
        written = _apply_steps(task, old, new, who.name, now)
        _write_plan_status(task, status, accepted_at, accepted_by, now)
        default = "plan removed" if not new else ("plan written" if not old else "plan changed")
        why = clean_reason(reason, default)
        _add_revision(task, written, actor=who.name, reason=why)
        record_event(
            EventKind.PLAN_SET,
            project=task.project,
            task=task,
            actor=who.name,
            payload={
                "steps": len(written),
                "status": status,
                "previous_status": previous,
                "titles_changed": titles_changed,
                "reason": why,
            },
        )
        return Outcome(obj=task, changed=("plan",), notes=tuple(notes), caller_notes=who.notes)


# --- plan_step_update ------------------------------------------------------------------------


def _find_step(task: Task, step: object) -> PlanStep:
    number = step_number(step, "plan_get")
    found = PlanStep.objects.filter(task=task, position=number).first()
    if found is None:
        count = PlanStep.objects.filter(task=task).count()
        if not count:
            raise NotFound(f"{task.key} has no plan yet: write it with plan_set.")
        raise NotFound(f"{task.key} has no step {number}: its plan has {count} step(s) (plan_get).")
    return found


@dataclass(frozen=True)
class _StepValues:
    status: str | None
    outcome: str | None
    link: str | None
    conformance: str | None
    details: str | None


def _apply_update(step: PlanStep, v: _StepValues, task: Task, now: datetime) -> None:
    """Set the new values on `step` in memory; raise when the result breaks a rule."""
    previous = step.status
    target = v.status or previous
    if target != previous:
        if previous == DONE:
            _clear_checkpoint(step)  # leaving done clears the checkpoint
        else:
            step.outcome = ""  # a blocked step's reason does not outlive its status
        step.status = target
        if target == DONE:
            step.done_at = now  # done again keeps its done_at (no status change)
    if v.details is not None:
        step.details = "" if v.details in CLEAR else v.details
    if v.outcome is not None:
        step.outcome = "" if v.outcome.strip() in CLEAR else clean_outcome(v.outcome)
    if step.outcome and target not in (DONE, "blocked"):
        raise InvalidField(
            "outcome", "outcome belongs to a done step (what came of it) or a blocked one (why)."
        )
    if v.link is not None:
        step.link = "" if v.link.strip() in CLEAR else clean_link(v.link, task)
    if v.conformance is not None and v.conformance.strip() not in CLEAR:
        step.conformance = clean_conformance(v.conformance)
    elif v.conformance is not None:
        step.conformance = ""
    if target != DONE and (step.link or step.conformance):
        raise InvalidField(
            "status", "link and conformance belong to a done step: pass status done with them."
        )
    if target == DONE and not step.conformance:
        raise InvalidField(
            "conformance", f"Step {step.position} '{step.title}': {CONFORMANCE_RULE}."
        )


def plan_step_update(
    *,
    key: str,
    step: int | str,
    actor: Actor,
    status: str | None = None,
    outcome: str | None = None,
    link: str | None = None,
    conformance: str | None = None,
    details: str | None = None,
    reason: str | None = None,
) -> Outcome[PlanStep]:
    """Change one step of the plan of `key` (its number `step`); None = not given.

    status: pending, in_progress, done or blocked. done needs conformance "as planned" or
    "deviation: <why>" (given now, or kept when the step is already done); a done step's
    checkpoint is done_at, outcome (one line), link (12, #12, report:12 → report:12, a report
    of this task; or an http(s) URL) and conformance. Leaving done clears the checkpoint;
    marking a done step done again keeps its done_at. An outcome may also say why a step is
    blocked. "-" or "" clears outcome, link or details. Step updates never change the plan
    status. Event plan.step_updated {position, title, status, previous, conformance, outcome}.
    Raises NotFound (task, step), InvalidField.
    """
    values = _StepValues(
        status=clean_status(status),
        outcome=outcome,
        link=link,
        conformance=conformance,
        details=clean_details(details, 0) if details is not None else None,
    )
    with transaction.atomic(durable=True):
        task = _load(key)
        refuse_secrets(
            task.project,
            texts={
                "outcome": outcome,
                "conformance": conformance,
                "details": details,
                "reason": reason,
            },
            values={"link": link},
        )
        who = caller_in(actor, task=task)
        found = _find_step(task, step)
        before = _step_json(found)
        now = timezone.now()
        _apply_update(found, values, task, now)
        if _step_json(found) == before:
            return Outcome(
                obj=found,
                notes=(f"Nothing changed: step {found.position} of {task.key} already says so.",),
                caller_notes=who.notes,
            )
        found.updated_at = now
        found.save()
        previous = before["status"]
        move = f"{previous} → {found.status}" if previous != found.status else found.status
        why = clean_reason(reason, f"step {found.position} {move}")
        _add_revision(task, selectors.plan_steps(task), actor=who.name, reason=why)
        record_event(
            EventKind.PLAN_STEP_UPDATED,
            project=task.project,
            task=task,
            actor=who.name,
            payload={
                "position": found.position,
                "title": found.title,
                "status": found.status,
                "previous": previous,
                "conformance": found.conformance,
                "outcome": found.outcome,
            },
        )
        return Outcome(obj=found, changed=("step",), caller_notes=who.notes)


# --- plan_accept -----------------------------------------------------------------------------


def plan_accept(*, key: str, actor: Actor) -> Outcome[Task]:
    """Accept the plan of `key` (the owner on the board, or the coordinator over MCP).

    actor: the owner's name, or the calling agent's CallerRef: the session bound to the task
    may not accept its own plan. Accepting an accepted plan changes nothing (a note says who
    accepted it). Event plan.accepted {by}. Raises NotFound (task), InvalidField (no plan),
    Forbidden (the bound session).
    """
    with transaction.atomic(durable=True):
        task = _load(key)
        who = caller_in(actor, task=task)
        steps = selectors.plan_steps(task)
        if not steps:
            raise InvalidField("task", f"{task.key} has no plan to accept: write it with plan_set.")
        bound = session_selectors.bound_session(task)
        if who.session_id is not None and bound is not None and bound.id == who.session_id:
            raise Forbidden(
                f"{task.key} is bound to your session ({bound.name}): its plan is accepted by "
                "the owner on the board or by the coordinator with plan_accept, not by the "
                "session working on it. Ask for acceptance (set waiting_on)."
            )
        if task.plan_status == "accepted":
            return Outcome(
                obj=task,
                notes=(
                    f"Nothing changed: the plan of {task.key} is already accepted"
                    + (f" by {task.plan_accepted_by}." if task.plan_accepted_by else "."),
                ),
                caller_notes=who.notes,
            )
        now = timezone.now()
        _write_plan_status(task, "accepted", now, who.name, now)
        _add_revision(task, steps, actor=who.name, reason="plan accepted")
        record_event(
            EventKind.PLAN_ACCEPTED,
            project=task.project,
            task=task,
            actor=who.name,
            payload={"by": who.name},
        )
        return Outcome(obj=task, changed=("plan_status",), caller_notes=who.notes)
