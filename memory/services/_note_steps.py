"""The reads and checks memory_add and memory_update share (§8 Memory notes): a note loaded
by its number, the place it belongs to, and the current notes of a place whose titles share
a word with a new one (the dedupe candidates). Private to memory.services: each runs inside
the calling service's transaction."""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import InvalidField, NotFound
from memory import notes as rules
from memory.models import MemoryNote
from memory.notes import place as place_of
from tasks.models import Project

CANDIDATES_SHOWN = 10


@dataclass(frozen=True)
class Candidate:
    """A current note of the same place sharing a title word, with its title similarity."""

    note: MemoryNote
    similarity: float

    @property
    def strong(self) -> bool:
        return rules.is_strong(self.similarity)


@dataclass(frozen=True)
class Place:
    """Where a note belongs: its scope with its project (scope project) or role (scope role)."""

    scope: str
    project: Project | None
    role: str


def candidates(place: Place, title: str) -> tuple[Candidate, ...]:
    """The current notes of the place sharing a title word, most similar first."""
    rows = MemoryNote.objects.filter(
        scope=place.scope,
        project=place.project,
        role=place.role,
        superseded_by__isnull=True,
        valid_to__isnull=True,
    ).select_related("project")
    wanted = rules.title_stems(title)
    found = [
        Candidate(note=n, similarity=rules.similarity(title, n.title))
        for n in rows
        if wanted & rules.title_stems(n.title)
    ]
    found.sort(key=lambda c: (-c.similarity, -c.note.id))
    return tuple(found[:CANDIDATES_SHOWN])


def refuse_strong_match(found: tuple[Candidate, ...]) -> None:
    """op=add next to a strong match needs force_new: the message names the three ways on."""
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


def load(number: int) -> MemoryNote:
    """The note of that number with its project, or NotFound naming how to find one."""
    found = MemoryNote.objects.select_related("project").filter(id=number).first()
    if found is None:
        raise NotFound(
            f"No memory note #{number}. memory_add lists the similar notes of a title with "
            "their numbers (call it without op)."
        )
    return found


def not_superseded(note: MemoryNote) -> None:
    """A superseded note cannot change: the error names the newer note."""
    if note.superseded_by_id is not None:
        raise InvalidField(
            "note",
            f"Note #{note.id} is superseded by #{note.superseded_by_id} and cannot change; "
            f"change #{note.superseded_by_id} instead (memory_get note={note.superseded_by_id}).",
        )


def same_place(note: MemoryNote, place: Place) -> None:
    """A target of update or supersede belongs to the place the call names."""
    if (
        note.scope != place.scope
        or note.project_id != (place.project.id if place.project else None)
        or (note.role != place.role)
    ):
        named = place.project.slug if place.project else place.role
        raise InvalidField(
            "target",
            f"Note #{note.id} is a {place_of(note)} note, not {place.scope}"
            + (f" {named}" if named else "")
            + ": pass the target's own scope (and project or role).",
        )
