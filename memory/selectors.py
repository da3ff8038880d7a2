"""Reads of the project memory (§8): documents, their versions and diffs, blocks."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from core.errors import InvalidField, NotFound
from memory import sections
from memory.models import Document, DocumentVersion, MemoryBlock, MemoryNote
from tasks.fields import did_you_mean
from tasks.models import Decision, Project
from tasks.selectors import get_project

# A decision's columns the page shows (its text, who, when, source, what replaced it).
DECISION_SHOWN = (
    "text",
    "decided_by",
    "created_at",
    "recorded_at",
    "source_kind",
    "source_ref",
    "source_text",
    "superseded_at",
    "superseded_by",
    "task",
    "task__key",
)


def doc_list(project: str) -> tuple[str, list[Document]]:
    """The project's slug and its documents by name."""
    proj = get_project(project)
    return proj.slug, list(Document.objects.filter(project=proj).order_by("name"))


def doc_get(project: str, name: str) -> Document:
    proj = get_project(project)
    wanted = (name or "").strip().lower()
    doc = Document.objects.filter(project=proj, name=wanted).select_related("project").first()
    if doc is None:
        raise NotFound(
            f"{proj.slug} has no document {wanted or '(empty)'}. Call doc_list to see the "
            "names, or create it with doc_update(base_version=0, title=…)."
        )
    return doc


def doc_version(doc: Document, version: int | None = None) -> DocumentVersion:
    """One version of a document (the current one when version is None)."""
    number = doc.version if version is None or version == 0 else version
    found = DocumentVersion.objects.filter(document=doc, version=number).first()
    if found is None:
        raise NotFound(
            f"{doc.name} has versions 1 to {doc.version}; there is no version {number} "
            "(doc_history lists them)."
        )
    return found


def doc_section(doc: Document, body: str, anchor: str) -> str:
    """A section of a version's body; InvalidField names the known anchors."""
    wanted = (anchor or "").strip().lstrip("#").strip()
    if sections.find_section(body, wanted) is None:
        anchors = [s.anchor for s in sections.sections(body)]
        known = ", ".join(anchors) or "none (no headings)"
        raise InvalidField(  # the refused anchor is not repeated: it may be any text
            "section",
            f"{doc.name} has no such section.{did_you_mean(wanted, anchors)} Its sections: "
            f"{known}.",
        )
    return sections.section_text(body, wanted)


def doc_history(doc: Document) -> list[DocumentVersion]:
    """Every version, newest first, without the bodies."""
    return list(DocumentVersion.objects.filter(document=doc).defer("body").order_by("-version"))


def doc_diff(doc: Document, from_version: int, to_version: int) -> list[str]:
    """difflib.unified_diff between two versions (§8)."""
    old, new = doc_version(doc, from_version), doc_version(doc, to_version)
    return sections.unified_diff(
        old.body,
        new.body,
        from_label=f"{doc.name} v{old.version}",
        to_label=f"{doc.name} v{new.version}",
    )


def block_get(label: str, project: str | None = None) -> MemoryBlock:
    proj = get_project(project) if project else None
    wanted = (label or "").strip().lower()
    block = MemoryBlock.objects.filter(project=proj, label=wanted).select_related("project").first()
    if block is None:
        where = f"project {proj.slug}" if proj else "global"
        raise NotFound(
            f"There is no {where} block {wanted or '(empty)'}. Call block_get without label "
            "to see the labels, or create it with block_set(base_version=0)."
        )
    return block


def block_list(project: str | None = None) -> list[MemoryBlock]:
    """The global blocks and, with a project, that project's blocks."""
    proj = get_project(project) if project else None
    scope = Q(project__isnull=True) | (Q(project=proj) if proj else Q(pk__in=[]))
    return list(
        MemoryBlock.objects.filter(scope).select_related("project").order_by("project_id", "label")
    )


def _notes_of(project: Project) -> QuerySet[MemoryNote]:
    """The notes a project's page shows: its own, the global and the role notes."""
    return MemoryNote.objects.filter(Q(project=project) | Q(scope__in=("global", "role")))


def document_page(project: Project, limit: int) -> tuple[list[Document], int]:
    """The first `limit` documents by name, and how many there are (Docs & rules)."""
    docs = Document.objects.filter(project=project)
    return list(docs.order_by("name")[:limit]), docs.count()


def decision_page(project: Project, superseded: bool, limit: int) -> tuple[list[Decision], int]:
    """The newest `limit` current (or superseded) decisions, and how many there are."""
    rows = Decision.objects.filter(project=project, superseded_at__isnull=not superseded)
    first = rows.select_related("task").only(*DECISION_SHOWN).order_by("-id")[:limit]
    return list(first), rows.count()


def replaced_by(decisions: list[Decision]) -> dict[int, int]:
    """{decision id: the id of the decision it superseded} for the decisions given."""
    found = Decision.objects.filter(superseded_by__in=[d.id for d in decisions])
    return dict(found.values_list("superseded_by_id", "id"))


def note_page(project: Project, superseded: bool, limit: int) -> tuple[list[MemoryNote], int]:
    """The newest `limit` current (or superseded) notes of the page, and how many there are."""
    rows = _notes_of(project).filter(superseded_at__isnull=not superseded)
    # The ids first: SQLite sorts the two indexes' union by id, and sorting ids alone is
    # a fraction of sorting whole notes (0.6 against 9 ms at 4,000 of them).
    ids = list(rows.order_by("-id").values_list("id", flat=True)[:limit])
    first = MemoryNote.objects.filter(id__in=ids).select_related("project").order_by("-id")
    return list(first), rows.count()
