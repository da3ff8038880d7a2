"""decision_add (§1 Decision, §8 Decisions): a decision with its scope, source, the time it
held and the time it was recorded; `supersedes` replaces a current one of the same project.

Nothing is deleted: a superseded decision keeps superseded_at, superseded_by and valid_to,
and a decision already superseded cannot be superseded again (the error names the newer
one), so chains have no cycles.
"""

from __future__ import annotations

from django.utils import timezone

from core.errors import InvalidField, NotFound
from tasks import extensions
from tasks import fields as F
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.models import Comment, Decision, Event, Project, Report
from tasks.services._common import Outcome, load_project, load_task
from tasks.services._taskwrite import run_write

SOURCE_KINDS = ("report", "event", "comment", "message")
SOURCE_TEXT_MAX = 500


def decision_add(
    *,
    project: str,
    text: str,
    actor: Actor,
    task: str | None = None,
    decided_by: str | None = None,
    supersedes: int | None = None,
    source: str | None = None,
    source_text: str | None = None,
) -> Outcome[Decision]:
    """Record a decision for `project` (a slug) or, with `task` (a key), for one of its tasks.

    text is required (≤ 2000 characters); decided_by names who decided (optional, ≤ 200).
    The task must belong to the project; a blank project means the task's own project.
    supersedes: the id of a current decision of the same project that this one replaces.
    source: "report:<id>", "event:<id>", "comment:<id>" (of this project) or
    "message:<external id>"; source_text: its display text (or the source alone).
    Event decision.added {text, decision_id} (+ supersedes when it replaces one).
    Raises NotFound (project, task, decision, source) and InvalidField.
    """
    clean = F.clean_text("text", text, F.DECISION_TEXT_MAX) if text is not None else ""
    if not clean:
        raise InvalidField("text", "text is empty: write the decision in a sentence or two.")
    by = F.clean_text("decided_by", decided_by or "", F.DECIDED_BY_MAX, one_line=True)
    shown = F.clean_text("source_text", source_text or "", SOURCE_TEXT_MAX, one_line=True)
    source_kind, source_ref = parse_source(source)
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
        check_source(proj, source_kind, source_ref)
        # §8: a decision is secret-scanned under the project's policy (the detectors' app
        # registers the check: tasks imports no other app).
        extensions.refuse_secrets(
            proj,
            values={"text": clean, "source": source, "source_text": shown, "decided_by": by},
        )
        replaced = _current(proj, supersedes) if supersedes else None
        who = caller_in(actor, task_key=key)
        now = timezone.now()
        decision = Decision.objects.create(
            project=proj,
            task=target,
            text=clean,
            decided_by=by,
            created_at=now,
            scope="task" if target is not None else "project",
            source_kind=source_kind,
            source_ref=source_ref,
            source_text=shown,
            valid_from=now,
            recorded_at=now,
        )
        if replaced is not None:
            replaced.superseded_at = replaced.valid_to = now
            replaced.superseded_by = decision
            replaced.save(update_fields=["superseded_at", "valid_to", "superseded_by"])
        record_event(
            EventKind.DECISION_ADDED,
            project=proj,
            task=target,
            actor=who.name,
            payload={"text": clean, "decision_id": decision.id}
            | ({"supersedes": replaced.id} if replaced is not None else {}),
        )
        return Outcome(obj=decision, created=True, caller_notes=who.notes)

    return run_write(attempt)


def parse_source(source: str | None) -> tuple[str, str]:
    """A source such as report:12 → ("report", "12"); blank → ("", ""). Memory notes share it."""
    text = (source or "").strip()
    if not text or text in F.CLEAR:
        return "", ""
    kind, sep, ref = text.partition(":")
    kind, ref = kind.strip().lower(), ref.strip().lstrip("#")
    if not sep or kind not in SOURCE_KINDS or not ref:
        raise InvalidField(
            "source",
            "source is report:<id>, event:<id>, comment:<id> (of this project) or "
            "message:<external id>; or leave it out and give source_text alone.",
        )
    if kind != "message" and not ref.isdigit():
        raise InvalidField("source", f"{kind}:<id> takes a number, e.g. {kind}:12.")
    if len(ref) > 200:
        raise InvalidField("source", "source's id is at most 200 characters.")
    return kind, ref


def check_source(project: Project, kind: str, ref: str) -> None:
    """A report, event or comment source must exist in the project (§8)."""
    if kind in ("", "message"):
        return
    rows = {
        "report": Report.objects.filter(id=int(ref), task__project=project),
        "event": Event.objects.filter(id=int(ref), project=project),
        "comment": Comment.objects.filter(id=int(ref), task__project=project),
    }[kind]
    if not rows.exists():
        raise NotFound(
            f"No {kind} #{ref} in project {project.slug}: a source must be one of its own."
        )


def _current(project: Project, number: int) -> Decision:
    found = Decision.objects.filter(id=number, project=project).first()
    if found is None:
        raise NotFound(
            f"No decision #{number} in project {project.slug}. decision_list shows the ids."
        )
    if found.superseded_by_id is not None:
        raise InvalidField(
            "supersedes",
            f"Decision #{number} is already superseded by #{found.superseded_by_id}; supersede "
            f"#{found.superseded_by_id} instead.",
        )
    return found
