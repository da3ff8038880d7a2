"""decision_add (§1 Decision, basic form: the memory issue adds supersede chains)."""

from __future__ import annotations

from django.utils import timezone

from core.errors import InvalidField
from tasks import fields as F
from tasks.events import EventKind, record_event
from tasks.models import Decision
from tasks.services._common import Outcome, load_project, load_task
from tasks.services._taskwrite import run_write


def decision_add(
    *,
    project: str,
    text: str,
    actor: str,
    task: str | None = None,
    decided_by: str | None = None,
) -> Outcome[Decision]:
    """Record a decision for `project` (a slug) or, with `task` (a key), for one of its tasks.

    text is required (≤ 2000 characters); decided_by names who decided (optional, ≤ 200).
    The task must belong to the project. Event decision.added {text, decision_id}.
    Raises NotFound (project or task) and InvalidField.
    """
    clean = F.clean_text("text", text, F.DECISION_TEXT_MAX) if text is not None else ""
    if not clean:
        raise InvalidField("text", "text is empty: write the decision in a sentence or two.")
    by = F.clean_text("decided_by", decided_by or "", F.DECIDED_BY_MAX, one_line=True)

    def attempt() -> Outcome[Decision]:
        proj = load_project(project)
        target = None
        if task is not None and task.strip() not in F.CLEAR:
            target = load_task(task)
            if target.project_id != proj.id:
                raise InvalidField(
                    "task",
                    f"Task {target.key} belongs to project {target.project.slug}, not "
                    f"{proj.slug}. Pass project={target.project.slug} or a task of {proj.slug}.",
                )
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
            actor=actor,
            payload={"text": clean, "decision_id": decision.id},
        )
        return Outcome(obj=decision, created=True)

    return run_write(attempt)
