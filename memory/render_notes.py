"""The markdown answers of the memory note tools (§3 short answers), built from what the
services returned (memory/services/notes.py), never from a read made before the write."""

from __future__ import annotations

from memory.notes import place
from memory.services.notes import NoteOutcome


def _with_caller(lines: list[str], outcome: NoteOutcome) -> str:
    return "\n".join([*lines, *outcome.caller_notes])


def note_add_md(outcome: NoteOutcome) -> str:
    """The answer of memory_add: the note written, or the candidates and the ops to answer."""
    if outcome.action == "candidates":
        count = len(outcome.candidates)
        first = outcome.candidates[0].note
        lines = [
            f"Nothing written: {count} current {place(first)} "
            f"{'note shares' if count == 1 else 'notes share'} a title word:"
        ]
        for found in outcome.candidates:
            strong = " (strong match)" if found.strong else ""
            lines.append(
                f'- #{found.note.id} "{found.note.title}" · v{found.note.version} · '
                f"{found.note.kind} · similarity {found.similarity:.2f}{strong}"
            )
        lines.append(
            "Call memory_add again with op: update (target=<#>, base_version=<v>) to rewrite "
            "one, supersede (target=<#>) to replace one, add to keep both (force_new=true "
            "next to a strong match) or noop to write nothing."
        )
        return _with_caller(lines, outcome)
    if outcome.action == "noop":
        kept = f" Note #{outcome.obj.id} stays as it is." if outcome.obj is not None else ""
        return _with_caller([f"Nothing written (op=noop).{kept}"], outcome)
    if outcome.action in ("updated", "unchanged"):
        return note_update_md(outcome)
    note = outcome.obj
    assert note is not None
    line = (
        f"Added memory note #{note.id} v{note.version} ({place(note)}, {note.kind}): {note.title}"
    )
    if outcome.replaced is not None:
        line += (
            f"\nIt supersedes #{outcome.replaced.id}, which stays readable but no longer current."
        )
    return _with_caller([line], outcome)


def note_update_md(outcome: NoteOutcome) -> str:
    note = outcome.obj
    assert note is not None
    if outcome.action == "unchanged":
        return _with_caller(
            [f"Nothing changed: note #{note.id} already says that (version {note.version})."],
            outcome,
        )
    return _with_caller(
        [
            f"Updated memory note #{note.id} to version {note.version} "
            f"({', '.join(outcome.changed)}): {note.title}"
        ],
        outcome,
    )


def note_get_md(outcome: NoteOutcome) -> str:
    """The note with its facts: place, kind, version, author, tags, source, times, reads."""
    note = outcome.obj
    assert note is not None
    facts = [place(note), note.kind, f"version {note.version}"]
    if note.author:
        facts.append(f"by {note.author}")
    lines = [f"# Memory note #{note.id}: {note.title}", " · ".join(facts)]
    more = []
    if note.tags:
        more.append(f"tags: {note.tags.replace(',', ', ')}")
    if note.source_kind or note.source_text:
        source = f"{note.source_kind}:{note.source_ref}" if note.source_kind else ""
        shown = note.source_text
        more.append("source: " + (f"{source} ({shown})" if source and shown else source or shown))
    more.append(f"recorded {note.recorded_at:%Y-%m-%d %H:%M}")
    if note.review_at:
        more.append(f"review at {note.review_at:%Y-%m-%d}")
    more.append(f"read {note.read_count} time{'s' if note.read_count != 1 else ''}")
    lines.append(" · ".join(more))
    if note.superseded_by_id is not None:
        lines.append(
            f"Superseded by #{note.superseded_by_id} on {note.superseded_at:%Y-%m-%d}: "
            f"no longer current; read #{note.superseded_by_id}."
        )
    lines += ["", note.body]
    return _with_caller(lines, outcome)
