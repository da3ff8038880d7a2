"""The live lists of Docs & rules (§8), bounded: documents, decisions and memory
notes, the superseded ones apart.

A year of use leaves thousands of decisions and notes in a project; the page showed every
one of them, each note's markdown rendered (4 MB and a second at 50,000 items). Each list
now shows its first LIST_LIMIT rows and says how many more there are; "Show N more" asks
for that list again with `shown_<list>` raised, through the same partial, and the lists'
state rides out of band so their live refresh keeps what the reader opened — the board's
columns do the same. Two queries a list (its rows, its count), one more for the decisions
the shown ones replaced: the page costs the same whatever the memory holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.safestring import SafeString

from core.display import Stamp, stamp
from core.markdown import render_markdown
from memory import selectors
from memory.models import Document, MemoryNote
from memory.row_html import row_html
from tasks.models import Decision, Project

LIST_LIMIT = 50  # rows a list shows before "Show N more"
SHOWN_MAX = 10_000  # a `shown_<list>` above this is read as this
# Each list: the rows' kind (which item partial), and the empty text's owner in lists.html.
LISTS = {
    "documents": "document",
    "decisions": "decision",
    "decisions-old": "decision",
    "notes": "note",
    "notes-old": "note",
}


@dataclass(frozen=True)
class DocRow:
    name: str
    title: str
    kind: str
    version: int
    updated_by: str
    when: Stamp | None
    url: str


@dataclass(frozen=True)
class DecisionRow:
    id: int
    anchor: str
    text: str
    decided_by: str
    task: str
    when: Stamp | None
    superseded_by: int | None
    supersedes: int | None = None  # the decision this one replaced
    source: str = ""  # its display text, else "report:12" etc.


@dataclass(frozen=True)
class NoteRow:
    id: int
    anchor: str
    title: str
    body: SafeString
    place: str  # "acme", "global", "role: reviewer"
    kind: str
    tags: str
    author: str
    when: Stamp | None
    superseded_by: int | None


@dataclass(frozen=True)
class ListsState:
    """The lists the reader opened further (`shown_<list>=N`), like the board's columns."""

    shown: tuple[tuple[str, int], ...] = ()

    @classmethod
    def from_query(cls, query: Any) -> ListsState:
        shown = []
        for name in LISTS:
            value = (query.get(f"shown_{name}") or "").strip()
            if re.fullmatch(r"\d{1,9}", value) and int(value) > LIST_LIMIT:
                shown.append((name, min(int(value), SHOWN_MAX)))
        return cls(tuple(shown))

    def limit(self, name: str) -> int:
        return dict(self.shown).get(name, LIST_LIMIT)

    def params(self, **raised: int) -> list[tuple[str, str]]:
        merged = {**dict(self.shown), **raised}
        return [(f"shown_{n}", str(v)) for n, v in sorted(merged.items()) if v > LIST_LIMIT]

    @property
    def inputs(self) -> list[tuple[str, str]]:
        """The hidden inputs of #docs-state: what the lists' live refresh sends."""
        return self.params()


@dataclass(frozen=True)
class ListView:
    """One list as the page shows it: its first rows, its whole count, "Show N more"."""

    name: str
    kind: str  # document, decision or note: which item partial
    rows: list[Any]
    count: int
    more: int
    next_batch: int
    more_href: str  # the whole page with this list opened further (no script)
    more_hx: str  # this list alone, opened further

    @property
    def html(self) -> list[SafeString]:
        """The rows as HTML, each kept by what it shows (memory/row_html.py)."""
        return [row_html(self.kind, row) for row in self.rows]


def _view(project: Project, name: str, state: ListsState, rows: list[Any], count: int) -> ListView:
    more = max(count - len(rows), 0)
    query = urlencode(state.params(**{name: state.limit(name) + LIST_LIMIT}))
    page = reverse("docs", args=[project.slug])
    one = reverse("docs_list", args=[project.slug, name])
    return ListView(
        name=name,
        kind=LISTS[name],
        rows=rows,
        count=count,
        more=more,
        next_batch=min(more, LIST_LIMIT),
        more_href=f"{page}?{query}#docs-list-{name}" if more else "",
        more_hx=f"{one}?{query}" if more else "",
    )


def one_list(project: Project, name: str, state: ListsState) -> ListView:
    """One list, read and built alone (its "Show N more")."""
    limit = state.limit(name)
    if name == "documents":
        docs, count = selectors.document_page(project, limit)
        rows: list[Any] = [_doc(project.slug, d) for d in docs]
    elif name.startswith("decisions"):
        decisions, count = selectors.decision_page(project, name == "decisions-old", limit)
        replaced = selectors.replaced_by(decisions)
        rows = [_decision(d, replaced.get(d.id)) for d in decisions]
    else:
        notes, count = selectors.note_page(project, name == "notes-old", limit)
        rows = [_note(n) for n in notes]
    return _view(project, name, state, rows, count)


def lists(project: Project, state: ListsState | None = None) -> dict[str, Any]:
    """The live section's context: every list, each cut to what the page shows."""
    state = state or ListsState()
    views = {name.replace("-", "_"): one_list(project, name, state) for name in LISTS}
    return {**views, "lists_state": state}


def _doc(slug: str, d: Document) -> DocRow:
    return DocRow(
        name=d.name,
        title=d.title,
        kind=d.kind,
        version=d.version,
        updated_by=d.updated_by,
        when=stamp(d.updated_at),
        url=reverse("doc", args=[slug, d.name]),
    )


def _decision(d: Decision, supersedes: int | None = None) -> DecisionRow:
    superseded = d.superseded_by_id if d.superseded_at else None
    source = d.source_text or (f"{d.source_kind}:{d.source_ref}" if d.source_kind else "")
    return DecisionRow(
        id=d.id,
        anchor=f"decision-{d.id}",
        text=d.text,
        decided_by=d.decided_by,
        task=d.task.key if d.task_id else "",
        when=stamp(d.recorded_at or d.created_at),
        superseded_by=superseded or (0 if d.superseded_at else None),
        supersedes=supersedes,
        source=source,
    )


def _place(n: MemoryNote) -> str:
    if n.scope == "project" and n.project_id:
        return n.project.slug
    if n.scope == "role":
        return f"role: {n.role}"
    return "global"


def _note(n: MemoryNote) -> NoteRow:
    superseded = n.superseded_by_id if n.superseded_at else None
    return NoteRow(
        id=n.id,
        anchor=f"note-{n.id}",
        title=n.title,
        body=render_markdown(n.body),
        place=_place(n),
        kind=n.kind,
        tags=", ".join(t for t in n.tags.split(",") if t),
        author=n.author,
        when=stamp(n.updated_at),
        superseded_by=superseded or (0 if n.superseded_at else None),
    )
