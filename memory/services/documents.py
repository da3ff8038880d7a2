"""doc_update: the one write of a project document (§8 Documents).

Every write that changes something adds a DocumentVersion with the whole markdown body;
the document row holds the title, kind and current version. Optimistic locking: the
caller names the version it read (base_version, 0 to create), and a write on any other
version is refused with the current text (or section) to merge.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from core.errors import InvalidField, NotFound, VersionConflict
from memory import sections
from memory.models import DOC_NAME_MAX, DOC_TEXT_MAX, TITLE_MAX, Document, DocumentVersion
from memory.services._common import (
    clean_line,
    clean_slug,
    quoted,
    refuse_secrets,
    write_versioned,
)
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.fields import check_length, did_you_mean
from tasks.models import Project
from tasks.selectors import get_project

KIND_MAX = 40
REASON_MAX = 500


@dataclass(frozen=True)
class DocResult:
    """What doc_update did: the document (after the write), whether it was created or
    changed, the section replaced ("" for the whole text) and notes for the answer."""

    document: Document
    created: bool = False
    changed: bool = False
    section: str = ""
    notes: tuple[str, ...] = ()
    caller_notes: tuple[str, ...] = ()


def _current_body(doc: Document) -> str:
    return DocumentVersion.objects.get(document=doc, version=doc.version).body


def _anchors_text(body: str) -> str:
    anchors = [s.anchor for s in sections.sections(body)]
    return ", ".join(anchors) if anchors else "none (the document has no headings)"


def _nearest_anchor(body: str, wanted: str) -> str:
    """ " Did you mean <anchor>?" — the refused anchor itself is not repeated."""
    return did_you_mean(wanted, [s.anchor for s in sections.sections(body)])


def _conflict(doc: Document, base_version: int, section: str) -> VersionConflict:
    body = _current_body(doc)
    where = "text"
    if section and sections.find_section(body, section) is not None:
        body, where = sections.section_text(body, section), f"section {section}"
    elif section:
        where = f"text (it has no such section any more; its sections: {_anchors_text(body)})"
    if base_version == 0:
        head = f"Document {doc.name} already exists at version {doc.version}."
    else:
        head = f"Conflict: {doc.name} is at version {doc.version}, not {base_version}."
    return VersionConflict(
        f"{head} Nothing was written. Merge your change into the current {where} below and "
        f"write again with base_version {doc.version}.\n\n{quoted(body)}",
        current_version=doc.version,
    )


def _new_body(doc_name: str, body: str, text: str, section: str) -> str:
    if not section:
        return text
    try:
        return sections.replace_section(body, section, text)
    except KeyError:
        raise InvalidField(
            "section",
            f"{doc_name} has no such section.{_nearest_anchor(body, section)} Its sections: "
            f"{_anchors_text(body)}. Leave section out to write the whole text.",
        ) from None


def _create(project: Project, name: str, title: str, kind: str, section: str) -> Document:
    if not title:
        raise InvalidField("title", f"title is required to create document {name}: one line.")
    if section:
        raise InvalidField(
            "section", f"{name} does not exist yet: write its whole text without section."
        )
    now = timezone.now()
    return Document(project=project, name=name, title=title, kind=kind, version=0, created_at=now)


def _read_or_create(
    project: Project, name: str, base_version: int, title: str, kind: str, section: str
) -> tuple[Document, str | None]:
    """The document at the version the caller read with its text, or a new one (no text)."""
    doc = Document.objects.filter(project=project, name=name).first()
    if doc is None and base_version:
        raise NotFound(
            f"{project.slug} has no document {name}. Create it with base_version 0 and a "
            "title, or call doc_list to see the names."
        )
    if doc is not None and base_version != doc.version:
        raise _conflict(doc, base_version, section)
    if doc is None:
        return _create(project, name, title, kind, section), None
    return doc, _current_body(doc)


def doc_update(
    *,
    project: str,
    name: str,
    text: str,
    base_version: int,
    actor: Actor,
    title: str | None = None,
    kind: str | None = None,
    section: str | None = None,
    reason: str | None = None,
) -> DocResult:
    """Create or change a project document (§8 Documents).

    base_version 0 creates it (title required; refused with its version and text if it
    exists); any other base_version must be the current version, else VersionConflict with
    the current version and the current text (or section). With section (an anchor), text
    replaces that section: a text starting with a heading replaces the heading too, any
    other text only the body. Writing the same text (and title, kind) again writes no
    version. Event document.updated {name, version, section, reason}.
    Raises NotFound (project, document), InvalidField (name, title, kind, reason, section,
    text, a secret value), VersionConflict.
    """
    # As given, before lowercasing: a token lowercased is still a secret (§9.9).
    refuse_secrets(project, name=name, kind=kind)
    name = clean_slug(name, field="name", max_length=DOC_NAME_MAX, lists="doc_list")
    new_title = clean_line(title, field="title", max_length=TITLE_MAX) if title else ""
    new_kind = clean_line(kind, field="kind", max_length=KIND_MAX).lower() if kind else ""
    why = clean_line(reason, field="reason", max_length=REASON_MAX)
    anchor = (section or "").strip().lstrip("#").strip()
    text = text or ""
    if base_version is None or base_version < 0:
        raise InvalidField("base_version", "base_version is 0 to create, else the version read.")
    if not text.strip() and not anchor:
        raise InvalidField("text", "text is empty: write the document's markdown.")
    check_length("text", text, DOC_TEXT_MAX)
    with transaction.atomic(durable=True):
        proj = get_project(project)
        who = caller_in(actor)
        refuse_secrets(proj, text=text, title=new_title, reason=why)
        doc, old_body = _read_or_create(proj, name, base_version, new_title, new_kind, anchor)
        body = _new_body(name, old_body or "", text, anchor) if old_body is not None else text
        same = (
            old_body is not None
            and body == old_body
            and (not new_title or new_title == doc.title)
            and (not new_kind or new_kind == doc.kind)
        )
        if same:
            what = f"section {anchor} of {name}" if anchor else name
            note = f"Nothing changed: {what} already reads so at version {doc.version}."
            return DocResult(document=doc, section=anchor, notes=(note,), caller_notes=who.notes)
        now = timezone.now()
        created = old_body is None
        doc.title = new_title or doc.title
        doc.kind = new_kind or doc.kind
        doc.version, doc.updated_at, doc.updated_by = base_version + 1, now, who.name
        if created:
            doc.save(force_insert=True)
        else:
            values = {
                "title": doc.title,
                "kind": doc.kind,
                "version": doc.version,
                "updated_at": now,
                "updated_by": who.name,
            }
            write_versioned(
                Document, doc.pk, values, base_version=base_version, what=name, read="doc_get"
            )
        DocumentVersion.objects.create(
            document=doc,
            version=doc.version,
            body=body,
            author=who.name,
            reason=why,
            base_version=base_version,
            section=anchor,
            created_at=now,
        )
        record_event(
            EventKind.DOCUMENT_UPDATED,
            project=proj,
            actor=who.name,
            payload={"name": name, "version": doc.version, "section": anchor, "reason": why},
        )
        return DocResult(
            document=doc, created=created, changed=True, section=anchor, caller_notes=who.notes
        )
