"""memory_add, memory_update and memory_get (§8 Memory notes): the writes of memory notes.

memory_add without op writes nothing when current notes of the same place (scope, and its
project or role) share a title word: it returns them with their title similarity, and the
caller answers with op add, update, supersede or noop. Nothing is deleted: a superseded
note keeps superseded_by, superseded_at and valid_to, and cannot change any more.

Every text a note holds (title, body, tags, source, source_text) passes the secret value
detectors (§7) under the effective policy of the note's project, the global one for
global and role notes; a match is refused with the field and the detector id, never the
value. Each public service is one transaction; shared steps are private helpers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime, time
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from core.errors import InvalidField, NotFound, VersionConflict
from environments import secret_door
from memory import notes as rules
from memory.models import NOTE_KINDS, NOTE_SCOPES, TITLE_MAX, MemoryNote
from tasks import fields as F_
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.models import Project
from tasks.selectors import get_project
from tasks.services.decisions import SOURCE_TEXT_MAX, check_source, parse_source

BODY_MAX = 20_000
ROLE_MAX = 60
TAGS_MAX = 500
OPS = ("add", "update", "supersede", "noop")
CANDIDATES_SHOWN = 10
_ROLE = re.compile(r"[a-z0-9][a-z0-9_-]*")


@dataclass(frozen=True)
class Candidate:
    """A current note of the same place sharing a title word, with its title similarity."""

    note: MemoryNote
    similarity: float

    @property
    def strong(self) -> bool:
        return rules.is_strong(self.similarity)


@dataclass(frozen=True)
class NoteOutcome:
    """What a memory service did.

    obj: the note written or read (the target for op=noop); None when memory_add returned
    candidates instead of writing.
    action: "added", "updated", "superseded", "noop", "candidates", "unchanged" or "read".
    replaced: for a supersede, the note that was replaced.
    candidates: for "candidates" (and op=add with force_new), the similar current notes.
    """

    obj: MemoryNote | None
    action: str
    created: bool = False
    changed: tuple[str, ...] = ()
    replaced: MemoryNote | None = None
    candidates: tuple[Candidate, ...] = ()
    caller_notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Fields:
    title: str
    body: str
    kind: str
    tags: str
    source_kind: str
    source_ref: str
    source_text: str
    review_at: datetime | None


# --- memory_add ------------------------------------------------------------------------------


def memory_add(
    *,
    scope: str,
    title: str,
    body: str,
    kind: str,
    actor: Actor,
    project: str | None = None,
    role: str | None = None,
    tags: str | list[str] | None = None,
    source: str | None = None,
    source_text: str | None = None,
    review_at: str | date | datetime | None = None,
    op: str | None = None,
    target: int | None = None,
    base_version: int | None = None,
    force_new: bool = False,
) -> NoteOutcome:
    """Add a memory note, or answer a dedupe question with op.

    scope: global, role (with role, e.g. coordinator) or project (with project, a slug).
    kind: user, feedback, project or reference. title: one line (≤ 200); body: the fact,
    why, how to apply (≤ 20000). tags: "a, b" or a list (lowercased, each once).
    source: report:<id>, event:<id>, comment:<id> (of the project) or message:<id>;
    source_text its display text. review_at: a date or ISO date-time.

    op None: current notes of the same place sharing a title word → nothing written, the
    candidates returned (action "candidates"); none → the note is added.
    op add: adds; next to a strong match (similarity ≥ 0.6) only with force_new.
    op update: rewrites target (title, body, kind; tags, source, review_at when given);
    base_version must be its version (newer → VersionConflict).
    op supersede: adds a new note that replaces target (target keeps superseded_by,
    superseded_at, valid_to). op noop: writes nothing.
    Events memory.added {note, scope, title} (+ supersedes for a supersede) and
    memory.updated {note, version, title}. Raises NotFound, InvalidField, VersionConflict.
    """
    action = _clean_op(op)
    place_scope, place_role = _clean_scope(scope, project, role)
    if action == "noop":  # the caller keeps what is there: nothing to check or write
        kept = _load(_clean_number("target", target)) if target is not None else None
        return NoteOutcome(obj=kept, action="noop")
    fields = _clean_fields(
        title=title,
        body=body,
        kind=kind,
        tags=tags,
        source=source,
        source_text=source_text,
        review_at=review_at,
    )
    number = _clean_number("target", target) if target is not None else None
    if action in ("update", "supersede") and number is None:
        raise InvalidField(
            "target",
            f"op={action} needs target: the number of the note it {action}s (a candidate's #).",
        )

    with transaction.atomic():
        proj = get_project(project) if place_scope == "project" else None  # type: ignore[arg-type]
        _check_fields(fields, proj, source, tags, scope=scope, role=role, kind=kind)
        _check_note_source(proj, fields)
        if action is None:
            found = _candidates(place_scope, proj, place_role, fields.title)
            if found:
                return NoteOutcome(obj=None, action="candidates", candidates=found)
        if action == "add" and not force_new:
            found = _candidates(place_scope, proj, place_role, fields.title)
            strong = [c for c in found if c.strong]
            if strong:
                best = strong[0]
                raise InvalidField(
                    "force_new",
                    f'Note #{best.note.id} "{best.note.title}" is a strong match (title '
                    f"similarity {best.similarity:.2f}). Update it (op=update, target="
                    f"{best.note.id}, base_version={best.note.version}), supersede it (op="
                    f"supersede, target={best.note.id}), or pass force_new=true to add anyway.",
                )
        if action == "update":
            note = _load(number)  # type: ignore[arg-type]
            _same_place(note, place_scope, proj, place_role)
            if base_version is None:
                raise InvalidField(
                    "base_version",
                    f"op=update needs base_version: note #{note.id} is at version "
                    f"{note.version} (memory_get shows it).",
                )
            # What the call leaves out (None) keeps the target's value.
            kept = replace(
                fields,
                tags=note.tags if tags is None else fields.tags,
                source_kind=note.source_kind if source is None else fields.source_kind,
                source_ref=note.source_ref if source is None else fields.source_ref,
                source_text=note.source_text if source_text is None else fields.source_text,
                review_at=note.review_at if review_at is None else fields.review_at,
            )
            who = caller_in(actor)
            return _rewrite(note, _clean_number("base_version", base_version), kept, who)
        replaced = None
        if action == "supersede":
            replaced = _load(number)  # type: ignore[arg-type]
            _same_place(replaced, place_scope, proj, place_role)
            _not_superseded(replaced)
        who = caller_in(actor)
        now = timezone.now()
        note = MemoryNote.objects.create(
            scope=place_scope,
            role=place_role,
            project=proj,
            kind=fields.kind,
            title=fields.title,
            body=fields.body,
            tags=fields.tags,
            source_kind=fields.source_kind,
            source_ref=fields.source_ref,
            source_text=fields.source_text,
            review_at=fields.review_at,
            valid_from=now,
            recorded_at=now,
            author=who.name,
            updated_at=now,
        )
        payload: dict[str, Any] = {"note": note.id, "scope": place_scope, "title": note.title}
        if replaced is not None:
            replaced.superseded_by = note
            replaced.superseded_at = replaced.valid_to = now
            replaced.save(update_fields=["superseded_by", "superseded_at", "valid_to"])
            payload["supersedes"] = replaced.id
        record_event(EventKind.MEMORY_ADDED, project=proj, actor=who.name, payload=payload)
        return NoteOutcome(
            obj=note,
            action="superseded" if replaced is not None else "added",
            created=True,
            replaced=replaced,
            caller_notes=who.notes,
        )


# --- memory_update ---------------------------------------------------------------------------


def memory_update(
    *,
    note: int,
    base_version: int,
    actor: Actor,
    title: str | None = None,
    body: str | None = None,
    tags: str | list[str] | None = None,
    kind: str | None = None,
    review_at: str | date | datetime | None = None,
) -> NoteOutcome:
    """Change a current note with optimistic locking (§8): base_version is the version you
    read; a newer one raises VersionConflict with the current version and text. A field left
    at None keeps its value; "-" clears tags or review_at. A superseded note cannot change
    (the error names the newer note). Event memory.updated {note, version, title}; a change
    that changes nothing is a no-op (no event, no version bump).
    """
    number = _clean_number("note", note)
    base = _clean_number("base_version", base_version)
    with transaction.atomic():
        current = _load(number)
        _not_superseded(current)
        fields = _Fields(
            title=_clean_title(title) if title is not None else current.title,
            body=_clean_body(body) if body is not None else current.body,
            kind=_clean_kind(kind) if kind is not None else current.kind,
            tags=_clean_tags(tags) if tags is not None else current.tags,
            source_kind=current.source_kind,
            source_ref=current.source_ref,
            source_text=current.source_text,
            review_at=_clean_review_at(review_at) if review_at is not None else current.review_at,
        )
        _check_fields(fields, current.project, None, tags, kind=kind)
        who = caller_in(actor)
        return _rewrite(current, base, fields, who)


# --- memory_get ------------------------------------------------------------------------------


def memory_get(*, note: int, actor: Actor) -> NoteOutcome:
    """Read a note: bumps its last_read_at and read_count (§8), so it is a write. No event."""
    number = _clean_number("note", note)
    with transaction.atomic():
        _load(number)
        who = caller_in(actor)
        MemoryNote.objects.filter(id=number).update(
            read_count=F("read_count") + 1, last_read_at=timezone.now()
        )
        read = MemoryNote.objects.select_related("project").get(id=number)
        return NoteOutcome(obj=read, action="read", caller_notes=who.notes)


# --- the private steps -----------------------------------------------------------------------


def _rewrite(note: MemoryNote, base: int, fields: _Fields, who: Any) -> NoteOutcome:
    _not_superseded(note)
    if base != note.version:
        raise _conflict(note, base)
    changed = tuple(
        name
        for name in (
            "title",
            "body",
            "kind",
            "tags",
            "source_kind",
            "source_ref",
            "source_text",
            "review_at",
        )
        if getattr(note, name) != getattr(fields, name)
    )
    if not changed:
        return NoteOutcome(obj=note, action="unchanged", caller_notes=who.notes)
    now = timezone.now()
    values = {name: getattr(fields, name) for name in changed}
    rows = MemoryNote.objects.filter(id=note.id, version=base, superseded_by__isnull=True)
    if not rows.update(**values, version=base + 1, updated_at=now):
        note.refresh_from_db()
        raise _conflict(note, base)
    note.refresh_from_db()
    record_event(
        EventKind.MEMORY_UPDATED,
        project=note.project,
        actor=who.name,
        payload={"note": note.id, "version": note.version, "title": note.title},
    )
    return NoteOutcome(obj=note, action="updated", changed=changed, caller_notes=who.notes)


def _conflict(note: MemoryNote, base: int) -> VersionConflict:
    return VersionConflict(
        f"Note #{note.id} is at version {note.version}, not {base}: someone changed it since "
        f"you read it. Its current text:\n\n## {note.title}\n\n{note.body}\n\n"
        f"Merge your change into it and write again with base_version={note.version}.",
        current_version=note.version,
    )


def _candidates(
    scope: str, project: Project | None, role: str, title: str
) -> tuple[Candidate, ...]:
    rows = MemoryNote.objects.filter(
        scope=scope, project=project, role=role, superseded_by__isnull=True, valid_to__isnull=True
    ).select_related("project")
    wanted = rules.title_stems(title)
    found = [
        Candidate(note=n, similarity=rules.similarity(title, n.title))
        for n in rows
        if wanted & rules.title_stems(n.title)
    ]
    found.sort(key=lambda c: (-c.similarity, -c.note.id))
    return tuple(found[:CANDIDATES_SHOWN])


def _load(number: int) -> MemoryNote:
    found = MemoryNote.objects.select_related("project").filter(id=number).first()
    if found is None:
        raise NotFound(
            f"No memory note #{number}. memory_add lists the similar notes of a title with "
            "their numbers (call it without op)."
        )
    return found


def _not_superseded(note: MemoryNote) -> None:
    if note.superseded_by_id is not None:
        raise InvalidField(
            "note",
            f"Note #{note.id} is superseded by #{note.superseded_by_id} and cannot change; "
            f"change #{note.superseded_by_id} instead (memory_get note={note.superseded_by_id}).",
        )


def _same_place(note: MemoryNote, scope: str, project: Project | None, role: str) -> None:
    if (
        note.scope != scope
        or note.project_id != (project.id if project else None)
        or (note.role != role)
    ):
        raise InvalidField(
            "target",
            f"Note #{note.id} is a {_place(note)} note, not {scope}"
            + (f" {project.slug}" if project else f" {role}" if role else "")
            + ": pass the target's own scope (and project or role).",
        )


def _place(note: MemoryNote) -> str:
    if note.scope == "project" and note.project is not None:
        return f"project {note.project.slug}"
    if note.scope == "role":
        return f"role {note.role}"
    return "global"


def _check_fields(
    fields: _Fields, project: Project | None, source: str | None, tags: Any, **given: Any
) -> None:
    """The write door (§8 Secret scan, §9.9): the first secret refused with its field and
    detector, never the value. Tags, role and kind are read as given, before lowercasing
    hides a case-sensitive key (AKIA…)."""
    secret_door.refuse(
        project,
        values={
            "title": fields.title,
            "body": fields.body,
            "tags": fields.tags if tags is None else tags,
            "source": (source or "").strip(),
            "source_text": fields.source_text,
            **given,
        },
    )


def _check_note_source(project: Project | None, fields: _Fields) -> None:
    if project is not None:
        check_source(project, fields.source_kind, fields.source_ref)
    elif fields.source_kind not in ("", "message"):
        raise InvalidField(
            "source",
            f"{fields.source_kind}:<id> belongs to a project: a global or role note takes "
            "message:<id> or source_text alone.",
        )


def _clean_op(op: str | None) -> str | None:
    text = (op or "").strip().lower()
    if not text:
        return None
    if text not in OPS:
        raise InvalidField("op", "op is add, update, supersede or noop; leave it out to check.")
    return text


def _clean_scope(scope: str, project: str | None, role: str | None) -> tuple[str, str]:
    text = (scope or "").strip().lower() if isinstance(scope, str) else ""
    if text not in NOTE_SCOPES:
        raise InvalidField("scope", "scope is global, role (with role) or project (with project).")
    has_project = bool((project or "").strip())
    given_role = (role or "").strip().lower()
    if text == "project" and not has_project:
        raise InvalidField("project", "scope=project needs project: the project's slug.")
    if text == "role" and not given_role:
        raise InvalidField("role", "scope=role needs role: a role name such as coordinator.")
    if text != "project" and has_project:
        raise InvalidField("project", f"A {text} note has no project; use scope=project.")
    if text != "role" and given_role:
        raise InvalidField("role", f"A {text} note has no role; use scope=role.")
    if given_role and (len(given_role) > ROLE_MAX or not _ROLE.fullmatch(given_role)):
        raise InvalidField(
            "role",
            f"role is one word of letters, digits, - and _ (≤ {ROLE_MAX}), e.g. coordinator.",
        )
    return text, given_role


def _clean_fields(
    *,
    title: Any,
    body: Any,
    kind: Any,
    tags: Any,
    source: Any,
    source_text: Any,
    review_at: Any,
) -> _Fields:
    source_kind, source_ref = parse_source(source)
    return _Fields(
        title=_clean_title(title),
        body=_clean_body(body),
        kind=_clean_kind(kind),
        tags=_clean_tags(tags),
        source_kind=source_kind,
        source_ref=source_ref,
        source_text=F_.clean_text("source_text", source_text or "", SOURCE_TEXT_MAX, one_line=True),
        review_at=_clean_review_at(review_at),
    )


def _clean_title(value: Any) -> str:
    text = F_.clean_text("title", value if value is not None else "", TITLE_MAX, one_line=True)
    if not text:
        raise InvalidField("title", "title is empty: name the fact in a few words.")
    return text


def _clean_body(value: Any) -> str:
    text = F_.clean_text("body", value if value is not None else "", BODY_MAX)
    if not text:
        raise InvalidField("body", "body is empty: write the fact, why, and how to apply it.")
    return text


def _clean_kind(value: Any) -> str:
    text = value.strip().lower() if isinstance(value, str) else ""
    if text not in NOTE_KINDS:
        raise InvalidField("kind", "kind is user, feedback, project or reference.")
    return text


def _clean_tags(value: Any) -> str:
    if isinstance(value, str) and value.strip() in F_.CLEAR:
        return ""
    try:
        text = rules.tags_text(rules.clean_tags(value))
    except ValueError as exc:
        raise InvalidField("tags", f"tags: {exc}.") from None
    if len(text) > TAGS_MAX:
        raise InvalidField("tags", f"tags are at most {TAGS_MAX} characters together.")
    return text


def _clean_review_at(value: Any) -> datetime | None:
    if value is None or (isinstance(value, str) and value.strip() in F_.CLEAR):
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time())
    elif isinstance(value, str):
        text = value.strip()
        moment = parse_datetime(text)  # type: ignore[assignment]
        if moment is None:
            day = parse_date(text) if len(text) == 10 else None
            if day is None:
                raise InvalidField(
                    "review_at", "review_at is a date (2026-09-01) or an ISO date-time."
                )
            moment = datetime.combine(day, time())
    else:
        raise InvalidField("review_at", "review_at is a date (2026-09-01) or an ISO date-time.")
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


def _clean_number(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise InvalidField(name, f"{name} must be a whole number.")
    if isinstance(value, str):
        value = value.strip().lstrip("#")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise InvalidField(name, f"{name} must be a whole number.") from None
    if number < 0:
        raise InvalidField(name, f"{name} must not be negative.")
    return number
