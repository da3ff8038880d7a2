"""MCP adapters of the project documents (§3 Memory group, §8 Documents): doc_list,
doc_get, doc_update, doc_history and the resource relaybay://doc/{project}/{doc}.

Same shape as the other apps' tools: `async def`, one `call_service` hop; the write tool
names its service, passes the caller as a CallerRef and answers from the service's result.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from core.mcp import call_service, resource_answer
from memory import render_md, selectors, services
from memory.models import DOC_NAME_MAX, DOC_TEXT_MAX, TITLE_MAX
from memory.services.documents import KIND_MAX, REASON_MAX
from tasks.extensions import CallerRef
from tasks.mcp_params import HookSession, Project, Session, SessionTitle, chars, optional

DocName = Annotated[
    str,
    Field(
        description="Document name, a lowercase slug such as release-runbook (doc_list).",
        json_schema_extra=chars(DOC_NAME_MAX),
    ),
]
Version = Annotated[
    int | None, Field(description="A version number (doc_history); left out: the current one.")
]
Anchor = optional(
    "A section anchor, e.g. gift-cards for '## Gift cards' (doc_get lists the anchors)."
)


def _list(project: str) -> str:
    return render_md.doc_list_md(*selectors.doc_list(project))


def _get(project: str, name: str, version: int | None, section: str | None) -> str:
    doc = selectors.doc_get(project, name)
    row = selectors.doc_version(doc, version)
    part = selectors.doc_section(doc, row.body, section) if section else None
    return render_md.doc_get_md(doc, row, part)


def _history(project: str, name: str, from_version: int | None, to_version: int | None) -> str:
    doc = selectors.doc_get(project, name)
    if from_version is None and to_version is None:
        return render_md.doc_history_md(doc, selectors.doc_history(doc))
    to = to_version or doc.version
    start = from_version if from_version is not None else max(to - 1, 1)
    return render_md.doc_diff_md(doc, start, to, selectors.doc_diff(doc, start, to))


def _resource(project: str, name: str) -> str:
    doc = selectors.doc_get(project, name)
    return render_md.doc_resource_md(selectors.doc_version(doc))


async def doc_list(project: Project) -> str:
    """List a project's documents (specs, status pages, briefs, runbooks, ADRs …).

    Returns:
        "# Documents of <project>" and one line per document:
        "- <name> (<kind>): <title> · v<version> · updated <when> by <who>".
    Errors:
        - Unknown project: call project_list.
    """
    return await call_service(_list, project)


async def doc_get(
    project: Project,
    name: DocName,
    version: Version = None,
    section: Anchor = None,
) -> str:
    """Read a project document: the whole markdown, one section, or an older version.

    Returns:
        "# <title>", a line with <project>/<name>, kind, version and author, "Sections:
        <anchors>", "Write with base_version <current>.", then the markdown (or only the
        section, heading included).
    Errors:
        - Unknown project or document (doc_list); unknown version (doc_history); unknown
          section (the answer lists the anchors).
    """
    return await call_service(_get, project, name, version, section)


async def doc_update(
    project: Project,
    name: DocName,
    text: Annotated[
        str,
        Field(
            description="The markdown: the whole document, or with section the new section "
            "(starting with a heading replaces the heading too; otherwise only its body).",
            json_schema_extra=chars(DOC_TEXT_MAX),
        ),
    ],
    base_version: Annotated[
        int,
        Field(description="The version you read (doc_get); 0 creates the document."),
    ],
    title: optional("The document's title, one line; required when creating.", TITLE_MAX) = None,
    kind: optional("What it is: spec, status, brief, runbook, adr … (free text).", KIND_MAX) = None,
    section: Anchor = None,
    reason: optional("Why it changes, one line (kept in its history).", REASON_MAX) = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Create or change a project document; every version is kept (doc_history).

    base_version 0 creates it. Otherwise base_version must be the version you read: if
    someone wrote since, nothing is written and the answer holds the current version and
    the current text (or section) to merge your change into. With section only that
    section is replaced. Writing the same text again writes no version. Text that looks
    like a secret value is refused (the field and the detector are named).

    Returns:
        "Created document <name>: now version 1." / "Updated document <name> (section
        <anchor>): now version <n>." and the next base_version; "Nothing changed: …".
    Errors:
        - Unknown project; a bad name; no title when creating; a stale base_version (the
          current version and text are in the message); an unknown section (the anchors
          are listed); a secret value.
    """
    return await call_service(
        services.doc_update,
        project=project,
        name=name,
        text=text,
        base_version=base_version,
        title=title,
        kind=kind,
        section=section,
        reason=reason,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.doc_write_md,
    )


async def doc_history(
    project: Project,
    name: DocName,
    from_version: Version = None,
    to_version: Version = None,
) -> str:
    """List a document's versions, or the diff between two of them.

    Without versions: every version with when, who, the section replaced and the reason.
    With from_version and/or to_version: a unified diff (to_version defaults to the
    current version, from_version to the one before to_version).

    Returns:
        "# History of <name> (<n> versions, newest first)" and "- v<n> · <when> by <who> ·
        section <anchor> · <reason>" lines; or "# <name>: v<a> → v<b>" and a diff block.
    Errors:
        - Unknown project, document or version.
    """
    return await call_service(_history, project, name, from_version, to_version)


async def doc_resource(project: str, doc: str) -> str:
    """A project document's current markdown."""
    return await resource_answer(_resource, project, doc)
