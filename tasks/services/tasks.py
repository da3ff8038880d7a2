"""task_create, task_update, task_patch and task_set_stage (§1 Task, Stage, §6 checks)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.utils import timezone

from core import actor as actors
from core.errors import InvalidField
from core.rows import insert, update_if
from tasks import extensions
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.fields import clean_field, clean_fields
from tasks.models import Project, Task, TrackerEntry
from tasks.selectors import project_rules
from tasks.services._common import Outcome, load_project, load_task
from tasks.services._taskwrite import (
    TaskChange,
    check_version,
    clean_expected_version,
    dev_hint,
    nothing_changed,
    run_write,
)


def _next_number(project: Project) -> int:
    number = project.next_number
    # Conditional, like the task version: two creators can never share a number (a lost
    # race raises core.rows.StaleRow, which run_write retries).
    update_if(Project, project.pk, {"next_number": number + 1}, when={"next_number": number})
    return number


def task_create(
    *,
    project: str,
    title: str,
    actor: Actor,
    stage: str = "plan",
    **fields: Any,
) -> Outcome[Task]:
    """Create a task in `project` (a slug) with the key <slug>-<n> (numbers never reused).

    `fields` takes any editable field of tasks.fields (None = not given). Creating a task is
    not a stage move, so the working rules are not checked; a task created in dev gets the
    no-plan hint. Event task.created {title, stage, fields: [other fields set]}.
    Raises NotFound (project), InvalidField (unknown field, bad value, empty title).
    """
    values = clean_fields({**fields, "title": title, "stage": stage or "plan"})

    def attempt() -> Outcome[Task]:
        proj = load_project(project)
        extensions.refuse_secrets(proj, texts=values)
        who = caller_in(actor)
        number = _next_number(proj)
        now = timezone.now()
        task = Task(
            project=proj,
            number=number,
            key=f"{proj.slug}-{number}",
            created_at=now,
            updated_at=now,
            stage_changed_at=now,
            version=1,
        )
        for name, value in values.items():
            setattr(task, name, value)
        task.closed_at = now if task.stage == "done" else None
        task.next_step_at = now if task.next_step else None
        if task.tracker_ref and "tracker_logged" not in values:
            task.tracker_logged = False
        insert(task)  # save(force_insert=True)'s INSERT, written once (every task_create)
        if task.tracker_ref:
            TrackerEntry.objects.create(
                task=task,
                ref=task.tracker_ref,
                name=task.tracker_name,
                url=task.tracker_url,
                created_at=now,
                logged_at=now if task.tracker_logged else None,
            )
        others = [
            n for n in values if n not in ("title", "stage") and getattr(task, n) not in ("", False)
        ]
        record_event(
            EventKind.TASK_CREATED,
            project=proj,
            task=task,
            actor=who.name,
            payload={"title": task.title, "stage": task.stage, "fields": others}
            | ({"waiting_on": task.waiting_on} if task.waiting_on else {}),
        )
        hints: tuple[str, ...] = ()
        fact = extensions.move_fact
        if task.stage == "dev" and not fact(task, "has_plan_steps") and not fact(task, "has_todo"):
            hints = (dev_hint(task.key),)
        return Outcome(
            obj=task, created=True, changed=tuple(values), hints=hints, caller_notes=who.notes
        )

    return run_write(attempt)


def _write(
    key: str, raw: dict[str, Any], actor: Actor, expected_version: object
) -> tuple[Outcome[Task], TaskChange]:
    """The one path of task_update, task_patch and task_set_stage.

    The caller is resolved after the task is found and inside the same transaction, so a
    stale version or a strict-rules refusal leaves no "session seen" behind.
    """
    values = clean_fields(raw)
    expected = clean_expected_version(expected_version)

    def attempt() -> tuple[Outcome[Task], TaskChange]:
        task = load_task(key)
        extensions.refuse_secrets(task.project, texts=values)
        who = caller_in(actor, task=task)
        check_version(task, expected)
        change = TaskChange(task=task)
        change.apply(values)
        change.check_rules(project_rules(task.project), by_owner=actors.is_owner(actor))
        if change.is_noop:
            noop = Outcome(obj=task, notes=(nothing_changed(task),), caller_notes=who.notes)
            return noop, change
        change.save(who.name)
        outcome = Outcome(
            obj=task,
            changed=change.outcome_fields(),
            warnings=tuple(change.warnings),
            hints=tuple(change.hints),
            notes=tuple(change.notes),
            moved=change.move,
            caller_notes=who.notes,
        )
        return outcome, change

    return run_write(attempt)


def task_update(
    *,
    key: str,
    actor: Actor,
    expected_version: int | None = None,
    **fields: Any,
) -> Outcome[Task]:
    """Change the given editable fields of a task (None = not given; "-" or "" clears).

    `fields` may include stage (checked against the working rules as in task_set_stage),
    stage_note, next_step, waiting_on and every field of tasks.fields.EDITABLE_FIELDS.
    With expected_version the write fails with VersionConflict when the task has moved on.
    A real write bumps the version by exactly 1; a write that changes nothing is a no-op
    (no version bump, no event, a "Nothing changed" note). Events: task.stage_changed
    {from, to, stage, warnings?, note?} for a move, task.updated {fields, confirmed?} for the
    other fields, task.tracker_unlogged {reason} when new work clears the tracker mark.
    Raises NotFound, InvalidField, VersionConflict, RuleRefusal (strict mode).
    """
    return _write(key, fields, actor, expected_version)[0]


def task_patch(
    *,
    key: str,
    fields: dict[str, Any],
    actor: Actor,
    expected_version: int | None = None,
) -> Outcome[Task]:
    """task_update with the fields as one mapping: reaches any editable field even when a
    client's cached tool schema lacks it (§3 compatibility policy). Same rules and events."""
    if not isinstance(fields, dict):
        raise InvalidField("fields", 'fields must be a mapping such as {"priority": "high"}.')
    if not fields:
        raise InvalidField("fields", 'fields is empty: pass e.g. {"priority": "high"}.')
    for name in fields:
        if not isinstance(name, str):
            raise InvalidField("fields", f"field names must be text, got {type(name).__name__}.")
    return _write(key, dict(fields), actor, expected_version)[0]


def task_set_stage(
    *,
    key: str,
    stage: str,
    actor: Actor,
    note: str | None = None,
    next_step: str | None = None,
    waiting_on: str | None = None,
    expected_version: int | None = None,
) -> Outcome[Task]:
    """Move a task to `stage` (any transition is allowed), checked by the working rules (§6).

    note sets the stage note; next_step and waiting_on are saved in the same transaction
    (writing the same next step again confirms it, since the stage changes). Moving to done
    sets closed_at, leaving done clears it; stage_changed_at is set on every change. A move
    back out of live/done to an earlier stage clears the tracker mark. warn mode: the move
    succeeds with Outcome.warnings (also in the event payload); strict mode: RuleRefusal
    "Rules: <reason>. Nothing changed." A move to dev of a task with no plan steps and no todo
    adds a hint. Moving to the stage the task is in is not a move (a note says so).
    """
    if stage is None:
        raise InvalidField("stage", "stage is required: plan, dev, review, test, live or done.")
    target = clean_field("stage", stage)
    raw = {"stage": target, "stage_note": note, "next_step": next_step, "waiting_on": waiting_on}
    outcome, change = _write(key, raw, actor, expected_version)
    if change.move is None:
        note_line = f"{outcome.obj.key} was already in {target}; the stage did not change."
        outcome = replace(
            outcome,
            notes=(note_line, *(n for n in outcome.notes if not n.startswith("Nothing changed"))),
        )
    return outcome
