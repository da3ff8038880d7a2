"""decision_add (§1 Decision, basic form: the memory issue adds supersede chains)."""

from __future__ import annotations

from django.utils import timezone

from core.errors import InvalidField
from tasks import fields as F
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.models import Decision
from tasks.services._common import Outcome, load_project, load_task
from tasks.services._taskwrite import run_write


def decision_add(
    *,
    project: str,
    text: str,
    actor: Actor,
    task: str | None = None,
    decided_by: str | None = None,
) -> Outcome[Decision]:
    """Record a decision for `project` (a slug) or, with `task` (a key), for one of its tasks.

    text is required (≤ 2000 characters); decided_by names who decided (optional, ≤ 200).
    The task must belong to the project; a blank project means the task's own project.
    Event decision.added {text, decision_id}.
    Raises NotFound (project or task) and InvalidField.
    """
    clean = F.clean_text("text", text, F.DECISION_TEXT_MAX) if text is not None else ""
    if not clean:
        raise InvalidField("text", "text is empty: write the decision in a sentence or two.")
    by = F.clean_text("decided_by", decided_by or "", F.DECIDED_BY_MAX, one_line=True)
    key = None if task is None or task.strip() in F.CLEAR else task
    if not (project or "").strip() and key is None:
        raise InvalidField("project", "Pass project (a slug), task (a key) or both.")

    def attempt() -> Outcome[Decision]:
        given = load_project(project) if (project or "").strip() else None
        target = load_task(key) if key is not None else None
        proj = given or target.project  # type: ignore[union-attr]  # one is given (above)
        if target is not None and target.project_id != proj.id:
            raise InvalidField(
                "task",
                f"Task {target.key} belongs to project {target.project.slug}, not "
                f"{proj.slug}. Pass project={target.project.slug} or a task of {proj.slug}.",
            )
        who = caller_in(actor, task_key=key)
        decision = Decision.objects.create(
            project=proj,
            task=target,
            text=clean,
            decided_by=by,
            created_at=timezone.now(),
        )
        record_event(
            EventKind.DECISION_ADDED,
            project=proj,
            task=target,
            actor=who.name,
            payload={"text": clean, "decision_id": decision.id},
        )
        return Outcome(obj=decision, created=True, caller_notes=who.notes)

    return run_write(attempt)
