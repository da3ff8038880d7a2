"""The private core of every task write: apply, check the rules, save, append the events.

task_update, task_patch, task_set_stage and report_add all go through `TaskChange`, so the
field rules (§1 Task, next-step freshness, tracker mark) and the working-rules check (§6)
exist once. A change is built in memory first; nothing touches the database until `save`,
so a strict-mode refusal or an invalid value leaves the task exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.errors import InvalidField, RuleRefusal, VersionConflict
from core.rows import StaleRow, fetch_one, update_if
from tasks import extensions, sql
from tasks.events import EventKind, record_event
from tasks.fields import EDITABLE_FIELD_NAMES
from tasks.models import STAGES, Task, TrackerEntry
from tasks.rules import EffectiveRules, MoveFacts, check_move
from tasks.selectors import is_next_step_stale

# Stages after which a move to an earlier stage is new work on logged work (§1 tracker mark).
_SETTLED = ("live", "done")
_ATTEMPTS = 3


def run_write[R](fn: Callable[[], R]) -> R:
    """Run one write attempt per transaction; a lost race (core.rows.StaleRow) is retried
    on fresh data.

    With SQLite's BEGIN IMMEDIATE (settings) writers are serialised and the first attempt
    always wins; the retry keeps "no lost write" true on any database. Durable: a public
    service never runs inside another's transaction (docs/architecture.md §3).
    """
    for _ in range(_ATTEMPTS - 1):
        try:
            with transaction.atomic(durable=True):
                return fn()
        except StaleRow:
            continue
    with transaction.atomic(durable=True):
        try:
            return fn()
        except StaleRow:
            # Unreachable on SQLite (IMMEDIATE serialises writers); kept for other databases.
            raise VersionConflict(
                "Another write changed this at the same moment. Read it again (task_get) "
                "and write again.",
                current_version=0,
            ) from None


def clean_expected_version(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidField("expected_version", "expected_version must be a whole number.")
    try:
        return int(value)
    except ValueError:
        raise InvalidField("expected_version", "expected_version must be a whole number.") from None


def check_version(task: Task, expected: int | None) -> None:
    if expected is not None and expected != task.version:
        raise VersionConflict(
            f"{task.key} is at version {task.version}, not {expected}. Read it with task_get "
            f"and write again with expected_version={task.version}.",
            current_version=task.version,
        )


@dataclass
class TaskChange:
    """One write to one task, built in memory."""

    task: Task
    now: datetime = field(default_factory=timezone.now)
    changed: list[str] = field(default_factory=list)
    dirty: set[str] = field(default_factory=set)  # columns to write
    confirmed: bool = False  # next step written again unchanged, and that counted
    move: tuple[str, str] | None = None
    old_stage_changed_at: datetime | None = None
    explicit_logged: bool = False
    unlog_reason: str | None = None
    new_ref: bool = False
    entry_stamp: str | None = None  # "logged" / "unlogged": stamp the current tracker entry
    entry_meta: bool = False  # tracker_name / tracker_url changed under the same ref
    warnings: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    # --- applying values -----------------------------------------------------------------

    def set_value(self, name: str, value: Any, *, track: bool = True) -> bool:
        if getattr(self.task, name) == value:
            return False
        setattr(self.task, name, value)
        self.dirty.add(name)
        if track and name not in self.changed:
            self.changed.append(name)
        return True

    def apply(self, values: dict[str, Any]) -> None:
        """Apply cleaned field values; the stage goes first so a next step can be confirmed."""
        # Known before the stage moves: an explicit tracker_logged beats the automatic unlog.
        self.explicit_logged = "tracker_logged" in values
        if "stage" in values:
            self._apply_stage(values["stage"])
        for name, value in values.items():
            if name in ("stage", "next_step") or name.startswith("tracker_"):
                continue
            self.set_value(name, value)
        if "next_step" in values:
            self._apply_next_step(values["next_step"])
        self._apply_tracker(values)
        if "progress" in self.changed:
            self.auto_unlog("progress changed")

    def _apply_stage(self, stage: str) -> None:
        task = self.task
        old = task.stage
        if not self.set_value("stage", stage):
            return
        self.move = (old, stage)
        self.old_stage_changed_at = task.stage_changed_at
        task.stage_changed_at = self.now
        self.dirty.add("stage_changed_at")
        if stage == "done":
            task.closed_at = self.now
            self.dirty.add("closed_at")
        elif old == "done":
            task.closed_at = None
            self.dirty.add("closed_at")
        if old in _SETTLED and STAGES.index(stage) < STAGES.index(old):
            self.auto_unlog(f"moved back from {old} to {stage}")

    def _apply_next_step(self, text: str) -> None:
        task = self.task
        if self.set_value("next_step", text):
            task.next_step_at = self.now if text else None
            self.dirty.add("next_step_at")
        elif text and (self.move is not None or is_next_step_stale(task)):
            # §1: writing it again confirms it when stale or when this write moves the stage.
            task.next_step_at = self.now
            self.dirty.add("next_step_at")
            self.confirmed = True

    def _apply_tracker(self, values: dict[str, Any]) -> None:
        task = self.task
        for name in ("tracker_name", "tracker_url"):
            if name in values and self.set_value(name, values[name]):
                self.entry_meta = True
        if "tracker_ref" in values and self.set_value("tracker_ref", values["tracker_ref"]):
            self.new_ref = bool(task.tracker_ref)
            self.entry_meta = False
            if self.new_ref and "tracker_logged" not in values:
                # A new issue key starts unlogged unless the same write says otherwise.
                self.set_value("tracker_logged", False)
        if "tracker_logged" in values and self.set_value(
            "tracker_logged", values["tracker_logged"]
        ):
            self.entry_stamp = "logged" if task.tracker_logged else "unlogged"

    def auto_unlog(self, reason: str) -> None:
        """New work on a logged task clears the mark; an explicit tracker_logged wins."""
        if self.explicit_logged or not self.task.tracker_logged or self.unlog_reason:
            return
        self.task.tracker_logged = False
        self.dirty.add("tracker_logged")
        self.unlog_reason = reason
        self.entry_stamp = "unlogged"
        ref = self.task.tracker_ref or "the tracker"
        self.notes.append(
            f"Tracker mark cleared on {self.task.key} ({reason}): log the work in {ref} "
            "and set tracker_logged again."
        )

    # --- working rules -------------------------------------------------------------------

    def check_rules(self, rules: EffectiveRules, *, by_owner: bool = False) -> None:
        """§6: on a stage move only. warn → warnings; strict → RuleRefusal, nothing written.
        by_owner: the owner's move (the board), which owner-only stages never stop."""
        if self.move is None:
            return
        task = self.task
        target = self.move[1]
        # Read only when the target stage asks for it (a query).
        wants_report = any(
            req.get("kind") == "report_since_stage_change"
            for req in rules.doc.get("stage_requirements", {}).get(target, [])
        )
        facts = MoveFacts(
            size=task.size,
            plan_status=task.plan_status,
            has_report_since_stage_change=wants_report
            and report_since(task.pk, self.old_stage_changed_at),
            field_values={name: getattr(task, name) for name in EDITABLE_FIELD_NAMES},
        )
        messages = check_move(rules.doc, target, facts, by_owner=by_owner)
        if messages and rules.mode == "strict":
            reasons = "; ".join(m.rstrip(".") for m in messages)
            raise RuleRefusal(f"Rules: {reasons}. Nothing changed.")
        self.warnings.extend(messages)
        # The hints ask the other apps only for the facts their target needs (a query each).
        fact = extensions.move_fact
        if target == "dev" and not fact(task, "has_plan_steps") and not fact(task, "has_todo"):
            self.hints.append(dev_hint(task.key))
        # §1 Review checklist: a hint line, not a rule warning. reviews supplies the fact;
        # without the reviews app (the fact missing) no hint is given.
        if target in ("review", "test") and fact(task, "has_review_steps") is False:
            self.hints.append(review_hint(task.key))

    # --- saving --------------------------------------------------------------------------

    @property
    def is_noop(self) -> bool:
        return not self.dirty

    def save(self, actor: str, *, force: bool = False) -> None:
        """Conditional UPDATE (version + 1), tracker history, then the events."""
        task = self.task
        if self.is_noop and not force:
            return
        old_version = task.version
        columns = {name: getattr(task, name) for name in self.dirty}
        columns.update(version=old_version + 1, updated_at=self.now)
        update_if(Task, task.pk, columns, when={"version": old_version})
        task.version = old_version + 1
        task.updated_at = self.now
        self._save_tracker_history()
        self._record_events(actor)

    def _save_tracker_history(self) -> None:
        task = self.task
        if self.new_ref:
            TrackerEntry.objects.create(
                task=task,
                ref=task.tracker_ref,
                name=task.tracker_name,
                url=task.tracker_url,
                created_at=self.now,
                logged_at=self.now if task.tracker_logged else None,
            )
            return
        if not (self.entry_stamp or self.entry_meta) or not task.tracker_ref:
            return
        entry = TrackerEntry.objects.filter(task=task, ref=task.tracker_ref).order_by("-id").first()
        if entry is None:
            return
        entry.name, entry.url = task.tracker_name, task.tracker_url
        if self.entry_stamp == "logged":
            entry.logged_at = self.now
        elif self.entry_stamp == "unlogged":
            entry.unlogged_at = self.now
        entry.save(update_fields=["name", "url", "logged_at", "unlogged_at"])

    def updated_fields(self) -> list[str]:
        """Fields for task.updated: the stage (and a note that rides on it) have their event."""
        skip = {"stage"}
        if self.move is not None:
            skip.add("stage_note")
        return [n for n in _ordered(self.changed) if n not in skip]

    def _record_events(self, actor: str) -> None:
        task, project = self.task, self.task.project
        if self.move is not None:
            payload: dict[str, Any] = {
                "from": self.move[0],
                "to": self.move[1],
                "stage": task.stage,
            }
            if self.warnings:
                payload["warnings"] = list(self.warnings)
            if "stage_note" in self.changed and task.stage_note:
                payload["note"] = task.stage_note
            record_event(
                EventKind.TASK_STAGE_CHANGED,
                project=project,
                task=task,
                actor=actor,
                payload=payload,
            )
        fields = self.updated_fields()
        if fields or self.confirmed:
            payload = {"fields": fields}
            if "waiting_on" in fields:  # whom the task waits on, from now (effort's waiting time)
                payload["waiting_on"] = task.waiting_on
            if self.confirmed:
                payload["confirmed"] = ["next_step"]
            record_event(
                EventKind.TASK_UPDATED, project=project, task=task, actor=actor, payload=payload
            )
        if self.unlog_reason:
            record_event(
                EventKind.TASK_TRACKER_UNLOGGED,
                project=project,
                task=task,
                actor=actor,
                payload={"reason": self.unlog_reason},
            )

    def outcome_fields(self) -> tuple[str, ...]:
        names = _ordered(self.changed)
        if self.confirmed and "next_step" not in names:
            names.append("next_step")
        if self.unlog_reason and "tracker_logged" not in names:
            names.append("tracker_logged")
        return tuple(names)


def plan_status_step(
    task: Task, *, status: str, accepted_at: datetime | None, accepted_by: str, now: datetime
) -> bool:
    """The task's plan columns and its version, as a step of the caller's open transaction.

    plans writes a plan's status on the base app's row in the same transaction as its steps
    and revision; the task row has one write path, this module, so the plan's columns are
    written here, conditional like every task write (§3). Nothing changed: no version bump,
    False. Raises core.rows.StaleRow when another writer got there first.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("plan_status_step runs inside the caller's transaction")
    values = {
        "plan_status": status,
        "plan_accepted_at": accepted_at,
        "plan_accepted_by": accepted_by,
    }
    if all(getattr(task, name) == value for name, value in values.items()):
        return False
    old = task.version
    columns = {**values, "version": old + 1, "updated_at": now}
    update_if(Task, task.pk, columns, when={"version": old})
    for name, value in columns.items():
        setattr(task, name, value)
    return True


def report_since(task_id: int, moment: datetime | None) -> bool:
    """Whether the task has a report written at or after `moment` (its last move): asked on
    every move to test by default, so one statement written once (tasks/sql.py)."""
    since = transaction.get_connection().ops.adapt_datetimefield_value(moment)
    return fetch_one(sql.REPORT_SINCE.text, [task_id, since]) is not None


def _ordered(names: list[str]) -> list[str]:
    """Field names in the order of the field list, so answers and events read the same."""
    return sorted(names, key=lambda n: EDITABLE_FIELD_NAMES.index(n))


def dev_hint(key: str) -> str:
    """The hint of a move to dev without a plan or a todo; plans' reminder repeats it."""
    return (
        f"Hint: {key} has no plan and no todo yet: write down what you are going to do "
        "(todo or 2-3 steps with plan_set)."
    )


def review_hint(key: str) -> str:
    return (
        f"Hint: {key} has no Owner check yet: write it with review_steps_set (what the owner "
        "should check by eye), then attach screenshots with attach_file."
    )


def nothing_changed(task: Task) -> str:
    return f"Nothing changed: {task.key} already has these values (version {task.version})."
