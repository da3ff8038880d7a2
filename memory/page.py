"""What the Docs & rules page and a document's page show (§8), computed here so the
templates only loop and branch.

Reads only: the project's documents, decisions (current, superseded collapsed), memory
notes (the project's, global and role ones) — each list bounded, memory/page_lists.py —
blocks with their owner's edit forms, the
effective working rules (rules_get's markdown, rendered), search hits, and one document's
rendered version, sections, history and a diff. Agent markdown goes through
core.markdown.render_markdown only; everything else is escaped by the templates.
The views (memory/views.py) render these; the one write, a block edit, goes through
memory.services.block_set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString

from core.display import Stamp, stamp
from core.markdown import render_markdown_anchored
from memory import search as memory_search
from memory import sections as memory_sections
from memory import selectors
from memory.models import BLOCK_LIMIT_DEFAULT, Document, MemoryBlock
from memory.page_lists import ListsState, lists
from memory.search_text import SEARCH_QUERY_MAX
from tasks import selectors as task_selectors
from tasks.models import Project
from tasks.rules import render_rules_md

SECTIONS = ("lists",)
NEW_BLOCK_ANCHOR = "block-new"


@dataclass(frozen=True)
class BlockForm:
    """A block with its edit form; after a refused write, the typed values and the reason."""

    anchor: str
    label: str
    scope: str  # "project" or "global"
    place: str  # the project's slug or "global"
    version: int
    body: str
    description: str
    char_limit: int
    owner_only: bool
    updated_by: str
    when: Stamp | None
    count: int
    error: str = ""


@dataclass(frozen=True)
class HitRow:
    kind: str
    ref: str
    title: str
    line: str
    place: str
    url: str
    superseded: bool


@dataclass(frozen=True)
class Draft:
    """What the owner typed into a block form whose write was refused."""

    scope: str
    label: str
    values: dict[str, str]
    error: str

    @property
    def new(self) -> bool:
        """Typed into the "New block" form (base version 0), not an existing block's."""
        return self.values.get("base_version", "").strip() == "0"

    @property
    def anchor(self) -> str:
        return NEW_BLOCK_ANCHOR if self.new else f"block-{self.scope}-{self.label}"


@dataclass(frozen=True)
class HistoryRow:
    version: int
    author: str
    reason: str
    section: str
    when: Stamp | None
    url: str
    current: bool
    shown: bool


@dataclass(frozen=True)
class DiffLine:
    text: str
    mark: str  # "add", "del", "hunk", "head" or ""
    sign: str  # "+", "−", "" for the screen reader label


@dataclass(frozen=True)
class DocPage:
    doc: Document
    version: int
    author: str
    reason: str
    when: Stamp | None
    html: SafeString
    sections: list[Any]
    history: list[HistoryRow]
    older: bool
    diff: list[DiffLine] = field(default_factory=list)
    diff_from: int = 0
    diff_to: int = 0


def page_url(slug: str) -> str:
    return reverse("docs", args=[slug])


def doc_url(slug: str, name: str) -> str:
    return reverse("doc", args=[slug, name])


def diff_url(slug: str, name: str) -> str:
    return reverse("doc_diff", args=[slug, name])


def urls(slug: str) -> dict[str, str]:
    return {
        "page": page_url(slug),
        "lists": reverse("docs_lists", args=[slug]),
        "block_save": reverse("docs_block_save", args=[slug]),
    }


def context(
    project: Project,
    query: str = "",
    draft: Draft | None = None,
    *,
    superseded: bool = False,
    state: ListsState | None = None,
) -> dict[str, Any]:
    """Everything the Docs & rules page shows; `draft` refills a refused block form;
    `superseded`: the search box's "Include superseded", off like memory_search's (§8);
    `state`: the lists opened further than their first rows."""
    query = query.strip()[:SEARCH_QUERY_MAX]
    eff = task_selectors.project_rules(project)
    return {
        "project": project,
        "project_slug": project.slug,
        **lists(project, state),
        "blocks": blocks(project, draft),
        "new_block": new_block(draft),
        "rules_html": render_markdown_anchored(render_rules_md(eff, project.slug), shift=2),
        "query": query,
        "superseded": superseded,
        "hits": hits(project, query, superseded=superseded) if query else [],
        "urls": urls(project.slug),
    }


def section(part: str, project: Project, state: ListsState | None = None) -> dict[str, Any]:
    """The context of one live section (memory/partials/<part>.html) for its refetch."""
    return {"project": project, "urls": urls(project.slug), **lists(project, state)}


def blocks(project: Project, draft: Draft | None = None) -> list[BlockForm]:
    return [_block(project, b, draft) for b in selectors.block_list(project.slug)]


def _block(project: Project, b: MemoryBlock, draft: Draft | None) -> BlockForm:
    scope = "project" if b.project_id else "global"
    form = BlockForm(
        anchor=f"block-{scope}-{b.label}",
        label=b.label,
        scope=scope,
        place=project.slug if b.project_id else "global",
        version=b.version,
        body=b.body,
        description=b.description,
        char_limit=b.char_limit,
        owner_only=b.owner_only,
        updated_by=b.updated_by,
        when=stamp(b.updated_at),
        count=len(b.body),
    )
    if draft is None or draft.new or (draft.scope, draft.label) != (scope, b.label):
        return form
    return _refilled(form, draft)


def new_block(draft: Draft | None = None) -> BlockForm:
    """The empty "New block" form (block_set with base version 0), or what was typed into
    it when that write was refused."""
    form = BlockForm(
        anchor=NEW_BLOCK_ANCHOR,
        label="",
        scope="project",
        place="",
        version=0,
        body="",
        description="",
        char_limit=BLOCK_LIMIT_DEFAULT,
        owner_only=False,
        updated_by="",
        when=None,
        count=0,
    )
    if draft is None or not draft.new:
        return form
    return _refilled(form, draft, label=draft.values.get("label", ""), scope=draft.scope)


def _refilled(form: BlockForm, draft: Draft, **more: Any) -> BlockForm:
    v = draft.values
    limit = v.get("char_limit", "")
    return BlockForm(
        **{
            **form.__dict__,
            "body": v.get("body", ""),
            "description": v.get("description", ""),
            "char_limit": int(limit) if limit.isdigit() else form.char_limit,
            "owner_only": v.get("owner_only") in ("1", "on", "yes"),
            "count": len(v.get("body", "")),
            "error": draft.error,
            **more,
        }
    )


def hits(project: Project, query: str, *, superseded: bool = False) -> list[HitRow]:
    """Search hits over the index: the project's items plus global and role notes, the
    superseded notes and decisions only when asked for."""
    found = []
    for h in memory_search.search(query, project=project.slug, include_superseded=superseded):
        if h.kind == "document":
            url = doc_url(project.slug, h.ref)
        elif h.kind == "decision":
            url = f"#decision-{h.ref}"
        elif h.kind == "memory":
            url = f"#note-{h.ref}"
        else:
            url = ""
        place = h.project.replace("role:", "role: ") if h.project else "global"
        found.append(HitRow(h.kind, h.ref, h.title, h.line, place, url, h.state == "superseded"))
    return found


# --- a document's page ---------------------------------------------------------------------


def doc_page(
    project: Project,
    name: str,
    version: int | None = None,
    diff: tuple[int, int] | None = None,
) -> DocPage:
    """One version of a document (the current one by default), rendered, with its sections
    and history; with `diff`, the lines between two versions. Raises NotFound."""
    doc = selectors.doc_get(project.slug, name)
    shown = selectors.doc_version(doc, version)
    history = [
        HistoryRow(
            version=v.version,
            author=v.author,
            reason=v.reason,
            section=v.section,
            when=stamp(v.created_at),
            url=f"{doc_url(project.slug, doc.name)}?version={v.version}",
            current=v.version == doc.version,
            shown=v.version == shown.version,
        )
        for v in selectors.doc_history(doc)
    ]
    lines: list[DiffLine] = []
    if diff is not None:
        lines = [_diff_line(text) for text in selectors.doc_diff(doc, *diff)]
    return DocPage(
        doc=doc,
        version=shown.version,
        author=shown.author,
        reason=shown.reason,
        when=stamp(shown.created_at),
        html=render_with_anchors(shown.body),
        sections=memory_sections.sections(shown.body),
        history=history,
        older=shown.version != doc.version,
        diff=lines,
        diff_from=diff[0] if diff else max(doc.version - 1, 1),
        diff_to=diff[1] if diff else doc.version,
    )


def _diff_line(text: str) -> DiffLine:
    if text.startswith(("+++", "---")):
        return DiffLine(text, "head", "")
    if text.startswith("@@"):
        return DiffLine(text, "hunk", "")
    if text.startswith("+"):
        return DiffLine(text, "add", "added")
    if text.startswith("-"):
        return DiffLine(text, "del", "removed")
    return DiffLine(text, "", "")


def render_with_anchors(body: str) -> SafeString:
    """The markdown rendered safely, each heading carrying the id of its section's anchor
    (memory.sections: the same anchors agents read and write sections by)."""
    anchors = [s.anchor for s in memory_sections.sections(body)]
    return render_markdown_anchored(body, anchors, shift=1)
