"""The markdown answers of the memory tools (§3): short, built from selectors' rows and
services' results."""

from __future__ import annotations

from django.utils import timezone

from core.display import ago
from memory import sections
from memory.models import Document, DocumentVersion, MemoryBlock
from memory.services import BlockResult, DocResult


def _with_notes(head: str, notes: tuple[str, ...] | list[str]) -> str:
    return "\n".join([head, *(n for n in notes if n)])


# --- documents ---------------------------------------------------------------------------


def doc_line(doc: Document) -> str:
    kind = f" ({doc.kind})" if doc.kind else ""
    when = ago(doc.updated_at, timezone.now())
    by = f" by {doc.updated_by}" if doc.updated_by else ""
    return f"- {doc.name}{kind}: {doc.title} · v{doc.version} · updated {when}{by}"


def doc_list_md(slug: str, docs: list[Document]) -> str:
    if not docs:
        return (
            f"{slug} has no documents yet. Create one with doc_update(project={slug!r}, "
            "name=…, title=…, text=…, base_version=0)."
        )
    return "\n".join([f"# Documents of {slug}", *(doc_line(d) for d in docs)])


def doc_get_md(doc: Document, row: DocumentVersion, section_text: str | None = None) -> str:
    kind = f" · {doc.kind}" if doc.kind else ""
    current = "" if row.version == doc.version else f" (current: v{doc.version})"
    head = [
        f"# {doc.title}",
        f"{doc.project.slug}/{doc.name}{kind} · version {row.version}{current} · "
        f"{ago(row.created_at, timezone.now())} by {row.author or 'unknown'}",
    ]
    anchors = [s.anchor for s in sections.sections(row.body)]
    if section_text is None and anchors:
        head.append("Sections: " + ", ".join(anchors))
    head.append(f"Write with base_version {doc.version}.")
    return "\n".join([*head, "", section_text if section_text is not None else row.body])


def doc_resource_md(row: DocumentVersion) -> str:
    return row.body


def doc_write_md(result: DocResult) -> str:
    doc = result.document
    if not result.changed:
        return _with_notes(result.notes[0], [*result.notes[1:], *result.caller_notes])
    where = f" (section {result.section})" if result.section else ""
    verb = "Created" if result.created else "Updated"
    head = f"{verb} document {doc.name}{where}: now version {doc.version}."
    return _with_notes(head, [f"Next write: base_version {doc.version}.", *result.caller_notes])


def doc_history_md(doc: Document, rows: list[DocumentVersion]) -> str:
    now = timezone.now()
    lines = [f"# History of {doc.name} ({doc.version} versions, newest first)"]
    for r in rows:
        where = f" · section {r.section}" if r.section else ""
        why = f" · {r.reason}" if r.reason else ""
        lines.append(
            f"- v{r.version} · {ago(r.created_at, now)} by {r.author or 'unknown'}{where}{why}"
        )
    lines.append("Compare two versions with doc_history(from_version=…, to_version=…).")
    return "\n".join(lines)


def doc_diff_md(doc: Document, from_version: int, to_version: int, diff: list[str]) -> str:
    head = f"# {doc.name}: v{from_version} → v{to_version}"
    if not diff:
        return f"{head}\nNo difference."
    return "\n".join([head, "```diff", *diff, "```"])


# --- blocks ------------------------------------------------------------------------------


def _scope(block: MemoryBlock) -> str:
    return f"project {block.project.slug}" if block.project_id else "global"


def block_md(block: MemoryBlock) -> str:
    marks = " · owner-only (the owner edits it on the board)" if block.owner_only else ""
    lines = [
        f"# Block {block.label} ({_scope(block)})",
        f"version {block.version} · {len(block.body)} of {block.char_limit} characters{marks}",
    ]
    if block.description:
        lines.append(block.description)
    return "\n".join([*lines, "", block.body])


def block_list_md(blocks: list[MemoryBlock], project: str | None) -> str:
    if not blocks:
        where = f"global or {project}" if project else "global"
        return f"No {where} blocks yet. Create one with block_set(label=…, body=…, base_version=0)."
    lines = ["# Blocks"]
    for b in blocks:
        about = f": {b.description}" if b.description else ""
        owner = " · owner-only" if b.owner_only else ""
        lines.append(
            f"- {b.label} ({_scope(b)}) · v{b.version} · {len(b.body)}/{b.char_limit}{owner}{about}"
        )
    lines.append("Read one with block_get(label=…).")
    return "\n".join(lines)


def block_write_md(result: BlockResult) -> str:
    b = result.block
    if not result.changed:
        return _with_notes(result.notes[0], [*result.notes[1:], *result.caller_notes])
    verb = "Created" if result.created else "Updated"
    head = (
        f"{verb} {_scope(b)} block {b.label}: now version {b.version} "
        f"({len(b.body)} of {b.char_limit} characters)."
    )
    return _with_notes(head, result.caller_notes)
