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

from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.errors import InvalidField, VersionConflict
from core.rows import StaleRow, update_if
from memory.models import MemoryNote
from memory.services._note_fields import (
    BODY_MAX,
    OPS,
    ROLE_MAX,
    TAGS_MAX,
    NoteFields,
    check_fields,
    check_note_source,
    clean_body,
    clean_fields,
    clean_kind,
    clean_number,
    clean_op,
    clean_review_at,
    clean_scope,
    clean_tags,
    clean_title,
)
from memory.services._note_steps import (
    CANDIDATES_SHOWN,
    Candidate,
    Place,
    candidates,
    load,
    not_superseded,
    refuse_strong_match,
    same_place,
)
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.selectors import get_project

__all__ = [
    "BODY_MAX",
    "CANDIDATES_SHOWN",
    "OPS",
    "ROLE_MAX",
    "TAGS_MAX",
    "Candidate",
    "NoteOutcome",
    "memory_add",
    "memory_get",
    "memory_update",
]
# A call's argument left out (None) keeps these fields of the note op=update rewrites.
_KEPT_WHEN_LEFT_OUT = {
    "tags": ("tags",),
    "source": ("source_kind", "source_ref"),
    "source_text": ("source_text",),
    "review_at": ("review_at",),
}


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
    action = clean_op(op)
    place_scope, place_role = clean_scope(scope, project, role)
    if action == "noop":  # the caller keeps what is there: nothing to check or write
        kept = load(clean_number("target", target)) if target is not None else None
        return NoteOutcome(obj=kept, action="noop")
    fields = clean_fields(
        title=title,
        body=body,
        kind=kind,
        tags=tags,
        source=source,
        source_text=source_text,
        review_at=review_at,
    )
    number = clean_number("target", target) if target is not None else None
    if action in ("update", "supersede") and number is None:
        raise InvalidField(
            "target",
            f"op={action} needs target: the number of the note it {action}s (a candidate's #).",
        )

    with transaction.atomic(durable=True):
        proj = get_project(project) if place_scope == "project" else None  # type: ignore[arg-type]
        place = Place(place_scope, proj, place_role)
        check_fields(fields, proj, source, tags, scope=scope, role=role, kind=kind)
        check_note_source(proj, fields)
        if action is None:
            found = candidates(place, fields.title)
            if found:
                return NoteOutcome(obj=None, action="candidates", candidates=found)
        if action == "add" and not force_new:
            refuse_strong_match(candidates(place, fields.title))
        if action == "update":
            given = {"tags": tags, "source": source, "source_text": source_text}
            left_out = [k for k, v in {**given, "review_at": review_at}.items() if v is None]
            return _update_target(number, place, fields, left_out, base_version, actor)
        return _add(place, fields, number if action == "supersede" else None, actor)


def _update_target(
    number: int | None,
    place: Place,
    fields: NoteFields,
    left_out: list[str],
    base_version: int | None,
    actor: Actor,
) -> NoteOutcome:
    """op=update: the target of the same place rewritten, keeping what the call left out."""
    note = load(number)  # type: ignore[arg-type]
    same_place(note, place)
    if base_version is None:
        raise InvalidField(
            "base_version",
            f"op=update needs base_version: note #{note.id} is at version "
            f"{note.version} (memory_get shows it).",
        )
    kept = replace(
        fields,
        **{name: getattr(note, name) for arg in left_out for name in _KEPT_WHEN_LEFT_OUT[arg]},
    )
    who = caller_in(actor)
    return _rewrite(note, clean_number("base_version", base_version), kept, who)


def _add(place: Place, fields: NoteFields, supersedes: int | None, actor: Actor) -> NoteOutcome:
    """A new note; with supersedes, the current note of that number is replaced by it."""
    replaced = None
    if supersedes is not None:
        replaced = load(supersedes)
        same_place(replaced, place)
        not_superseded(replaced)
    who = caller_in(actor)
    now = timezone.now()
    note = MemoryNote.objects.create(
        scope=place.scope,
        role=place.role,
        project=place.project,
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
    payload: dict[str, Any] = {"note": note.id, "scope": place.scope, "title": note.title}
    if replaced is not None:
        replaced.superseded_by = note
        replaced.superseded_at = replaced.valid_to = now
        replaced.save(update_fields=["superseded_by", "superseded_at", "valid_to"])
        payload["supersedes"] = replaced.id
    record_event(EventKind.MEMORY_ADDED, project=place.project, actor=who.name, payload=payload)
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
    number = clean_number("note", note)
    base = clean_number("base_version", base_version)
    with transaction.atomic(durable=True):
        current = load(number)
        not_superseded(current)
        fields = NoteFields(
            title=clean_title(title) if title is not None else current.title,
            body=clean_body(body) if body is not None else current.body,
            kind=clean_kind(kind) if kind is not None else current.kind,
            tags=clean_tags(tags) if tags is not None else current.tags,
            source_kind=current.source_kind,
            source_ref=current.source_ref,
            source_text=current.source_text,
            review_at=clean_review_at(review_at) if review_at is not None else current.review_at,
        )
        check_fields(fields, current.project, None, tags, kind=kind)
        who = caller_in(actor)
        return _rewrite(current, base, fields, who)


# --- memory_get ------------------------------------------------------------------------------


def memory_get(*, note: int, actor: Actor) -> NoteOutcome:
    """Read a note: bumps its last_read_at and read_count (§8), so it is a write. No event."""
    number = clean_number("note", note)
    with transaction.atomic(durable=True):
        load(number)
        who = caller_in(actor)
        MemoryNote.objects.filter(id=number).update(
            read_count=F("read_count") + 1, last_read_at=timezone.now()
        )
        read = MemoryNote.objects.select_related("project").get(id=number)
        return NoteOutcome(obj=read, action="read", caller_notes=who.notes)


# --- the private steps -----------------------------------------------------------------------


def _rewrite(note: MemoryNote, base: int, fields: NoteFields, who: Any) -> NoteOutcome:
    not_superseded(note)
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
    try:  # the conditional UPDATE written once (core.rows): still at `base`, still current
        update_if(
            MemoryNote,
            note.id,
            {**values, "version": base + 1, "updated_at": now},
            when={"version": base, "superseded_by": None},
        )
    except StaleRow:
        note.refresh_from_db()
        raise _conflict(note, base) from None
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
