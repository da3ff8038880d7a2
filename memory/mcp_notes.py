"""MCP adapters of memory notes (§3, §8): memory_add, memory_update and memory_get.

`async def`, one `call_service` hop each; every tool names its service, passes the caller
as a CallerRef and answers from the service's result. memory_get is a write too: it bumps
the note's last_read_at and read_count.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from core.mcp import call_service
from memory import render_notes, services
from memory.services.notes import BODY_MAX
from tasks.extensions import CallerRef
from tasks.mcp_params import WRITE, HookSession, Session, SessionTitle, chars

NoteNumber = Annotated[int, Field(description="The note's number (#12 → 12).")]
Tags = Annotated[
    str | list[str] | None,
    Field(description='Tags, "a, b" or a list: lowercased, each kept once.'),
]
ReviewAt = Annotated[
    str | None,
    Field(description="When to check the note again: a date (2026-09-01) or ISO date-time."),
]
Kind = Annotated[str, Field(description="user, feedback, project or reference.")]


async def memory_add(
    scope: Annotated[
        str,
        Field(description="global, role (pass role) or project (pass project)."),
    ],
    title: Annotated[str, Field(description="One line naming the fact (≤ 200).")],
    body: Annotated[
        str,
        Field(
            description="The fact, why it holds, and how to apply it.",
            json_schema_extra=chars(BODY_MAX),
        ),
    ],
    kind: Kind,
    project: Annotated[
        str | None, Field(description="Project slug for scope=project (project_list).")
    ] = None,
    role: Annotated[
        str | None, Field(description="Role name for scope=role, e.g. coordinator.")
    ] = None,
    tags: Tags = None,
    source: Annotated[
        str | None,
        Field(
            description="Where it comes from: report:<id>, event:<id>, comment:<id> (of the "
            "project) or message:<external id>."
        ),
    ] = None,
    source_text: Annotated[
        str | None, Field(description="Display text of the source, or the source alone.")
    ] = None,
    review_at: ReviewAt = None,
    op: Annotated[
        str | None,
        Field(description="Leave out first. After candidates: add, update, supersede or noop."),
    ] = None,
    target: Annotated[
        int | None, Field(description="The candidate's number, for op=update or supersede.")
    ] = None,
    base_version: Annotated[
        int | None, Field(description="The candidate's version, for op=update.")
    ] = None,
    force_new: Annotated[
        bool, Field(description="op=add next to a strong match (similarity ≥ 0.6).")
    ] = False,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Remember a fact across sessions: a memory note, global, for a role or a project.

    Call it without op first: when current notes of the same place share a title word,
    nothing is written and they come back with their title similarity. Then call again
    with op=update (rewrite one: target and base_version), op=supersede (a new note
    replaces target), op=add (keep both; force_new=true next to a strong match) or
    op=noop. Notes holding a secret value are refused.

    Returns:
        "Added memory note #<n> v1 (project acme-shop, feedback): <title>", or
        "Nothing written: …" with one line per candidate:
        - #3 "SQLite WAL mode" · v1 · feedback · similarity 0.75 (strong match)
    Errors:
        - scope=project without project, scope=role without role; unknown project.
        - op=add next to a strong match without force_new (names the note).
        - op=update with a stale base_version (the note's current version and text).
        - A superseded target (names the newer note); a secret value (field, detector).
    """
    return await call_service(
        services.memory_add,
        scope=scope,
        title=title,
        body=body,
        kind=kind,
        project=project,
        role=role,
        tags=tags,
        source=source,
        source_text=source_text,
        review_at=review_at,
        op=op,
        target=target,
        base_version=base_version,
        force_new=force_new,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_notes.note_add_md,
    )


async def memory_update(
    note: NoteNumber,
    base_version: Annotated[int, Field(description="The version you read (memory_get shows it).")],
    title: Annotated[str | None, Field(description="New title (one line).")] = None,
    body: Annotated[
        str | None,
        Field(description="New body: fact, why, how to apply.", json_schema_extra=chars(BODY_MAX)),
    ] = None,
    tags: Tags = None,
    kind: Annotated[str | None, Field(description="user, feedback, project or reference.")] = None,
    review_at: ReviewAt = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Change a current memory note; what you leave out stays. "-" clears tags or review_at.

    Optimistic locking: base_version is the version you read; if the note changed since,
    nothing is written and the error shows its current version and text to merge with.

    Returns:
        "Updated memory note #<n> to version <v> (body, tags): <title>" or "Nothing changed".
    Errors:
        - Stale base_version (current version and text); a superseded note (names the
          newer one); a secret value (field and detector, never the value).
    """
    return await call_service(
        services.memory_update,
        note=note,
        base_version=base_version,
        title=title,
        body=body,
        tags=tags,
        kind=kind,
        review_at=review_at,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_notes.note_update_md,
    )


async def memory_get(
    note: NoteNumber,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Read one memory note; counts the read (last read time and read count).

    Returns:
        "# Memory note #<n>: <title>", its place, kind, version and author, tags, source,
        times and reads, whether it is superseded (by which note), then the body.
    Errors:
        - Unknown note number.
    """
    return await call_service(
        services.memory_get,
        note=note,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_notes.note_get_md,
    )


NOTES_TOOLS = [(memory_add, WRITE), (memory_update, WRITE), (memory_get, WRITE)]
