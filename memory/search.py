"""The memory's one search index (§8 Search): the FTS5 table search_index, kept in step with
every write in that write's transaction, and the search over it.

It covers current document versions, decisions, memory notes, reports and comments. The
table is created at start when SQLite has FTS5; when it cannot be created a plain table
with the same columns takes its place and search runs as LIKE matches of each word or its
stem — nothing fails. At start the index is rebuilt when its row count differs from the
items it covers (a new index, an upgrade), and replaced when its columns are an older
layout. Besides §8's columns the table carries two indexed token columns the MATCH
expression filters on, so a filter costs a doclist merge instead of reading every match's
row (bench/search.py): `state` (current / superseded), so superseded notes and decisions
can be left out, and `scope` (`scope_token`: one token per project, `global`, `role`), so a
project's search stays in the project plus global and role notes.

Every covered write reaches it through `tasks.events.register_event_observer`: the event
the write records in its transaction names the item, and the observer replaces its row in
that same transaction (tasks imports no other app, and memory's services need no extra
call) — except a new report's or comment's row from an MCP write on the loop's thread,
which is left for after the write's answer (core/on_loop.py: a fifth of report_add's time
on the server); a stop before it is caught by the start's count check.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import OperationalError, connection, transaction

from core import caches, on_loop
from core.rows import fetch_one
from memory import search_text, sql
from tasks.models import Comment, Decision, Event, Report

log = logging.getLogger("relaybay.memory")

TABLE = sql.TABLE
KINDS = ("document", "decision", "memory", "report", "comment")
SUPERSEDED = 1 << 48  # the rowid bit of a superseded item (_rowid)
SEARCH_MAX = 50
_COLUMNS = sql.COLUMNS

# search_text's weights with this table's filter columns `state` and `scope` (weight 0:
# they never rank) after project.
BM25_WEIGHTS = (*search_text.BM25_WEIGHTS[:3], 0.0, 0.0, *search_text.BM25_WEIGHTS[3:])

PREFIXES = sql.PREFIXES  # the clause marks this layout (ensure_table)

_fts: bool | None = None  # None: not checked yet in this process
caches.register(
    "memory.search._fts",
    key="none: whether this SQLite has FTS5",
    bound="one value",
    invalidation="never: looked up once per process",
    reset="`search.forget()` (the session fixture)",
)


@dataclass(frozen=True)
class Hit:
    kind: str
    ref: str
    project: str  # the project's slug; "" for global notes, "role:<name>" for role notes
    title: str
    line: str  # the line holding the most query words
    state: str


# --- the table -------------------------------------------------------------------------------


def has_fts() -> bool:
    """Whether search_index is an FTS5 table (creating it if needed)."""
    ensure_table()
    return bool(_fts)


def ensure_table() -> None:
    """Learn (once per process) whether search_index is FTS5, creating it if missing: FTS5
    when SQLite has it, else a plain table (§11: the service makes it at start, not a
    migration — `relaybay serve` calls rebuild_if_needed before it listens). After the first
    call this costs nothing on the write path. A table of an older layout is replaced: the
    previous one (no prefix indexes, superseded rows among the current ones) moves
    over with its stems; one without the scope column is dropped and built again."""
    global _fts
    if _fts is not None:
        return
    with connection.cursor() as cursor:
        found = _table_sql(cursor)
        if found is not None and _is_current(found):
            _fts = "fts5" in found.lower()
            return
        if found is not None and " scope" in found and "fts5" in found.lower():
            _move_from_previous(cursor)
            _fts = True
            return
        if found is not None:  # an older layout: its rows come back in the rebuild below
            log.info("search index: replacing an older layout")
            cursor.execute(sql.DROP.text)
        try:
            cursor.execute(sql.CREATE_FTS.text)
            _fts = True
        except OperationalError as error:
            made = _table_sql(cursor)
            if made is not None:  # made between the look and the create: use it as it is
                log.warning("search index: %s; using the table that is there", error)
                _fts = "fts5" in made.lower()
                return
            if "no such module" not in str(error):  # not a missing FTS5: say what failed
                raise
            log.warning("SQLite has no FTS5: memory search falls back to LIKE matching")
            cursor.execute(sql.CREATE_PLAIN.text)
            _fts = False
    if found is not None:
        rebuild()


def _is_current(sql: str) -> bool:
    """Whether search_index's CREATE statement is this layout's (the plain table of the
    LIKE fallback has no prefix indexes to miss)."""
    return " scope" in sql and ("fts5" not in sql.lower() or PREFIXES in sql)


def _move_from_previous(cursor: Any) -> None:
    """Replace the previous layout's FTS5 table, which had every column, by this one in one
    transaction: each row under its rowid with the superseded bit (_rowid), indexed again
    by SQLite in C — a rebuild would stem every item in Python (19 s at 50,000 items; this,
    ~5 s once, at the first start after the upgrade)."""
    log.info("search index: moving to the layout with prefix indexes")
    with transaction.atomic():
        cursor.execute(sql.RENAME_TO_PREVIOUS.text)
        cursor.execute(sql.CREATE_FTS.text)
        cursor.execute(sql.MOVE_FROM_PREVIOUS.text, [SUPERSEDED])
        cursor.execute(sql.DROP_PREVIOUS.text)


def _table_sql(cursor: Any) -> str | None:
    """search_index's CREATE statement from sqlite_master, or None when there is none."""
    cursor.execute(sql.TABLE_SQL.text, [TABLE])
    found = cursor.fetchone()
    return None if found is None else (found[0] or "")


def forget() -> None:
    """Check the table again on next use (tests that drop it, a changed database)."""
    global _fts
    _fts = None


def rebuild_if_needed() -> bool:
    """At start: rebuild the index when its row count differs from what it covers."""
    ensure_table()
    with connection.cursor() as cursor:  # FTS5's _docsize rows (sql.indexed_count)
        cursor.execute(sql.indexed_count(bool(_fts)))
        indexed = cursor.fetchone()[0]
    if indexed == _covered_count():
        return False
    rebuild()
    return True


def rebuild() -> None:
    """Index every covered item again, in one transaction."""
    ensure_table()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql.DELETE_ALL.text)
        for row in _all_rows():
            _insert(cursor, row)


def _covered_count() -> int:
    from memory.models import Document, MemoryNote

    models: Iterable[Any] = (Document, Decision, MemoryNote, Report, Comment)
    return sum(model.objects.count() for model in models)


def _all_rows() -> Iterable[tuple[Any, ...]]:
    from memory.models import Document, MemoryNote

    for doc in Document.objects.select_related("project"):
        yield _document_row(doc)
    for decision in Decision.objects.select_related("project"):
        yield _decision_row(decision)
    for note in MemoryNote.objects.select_related("project"):
        yield _note_row(note)
    for report in Report.objects.select_related("task__project"):
        yield _report_row(report)
    for comment in Comment.objects.select_related("task__project"):
        yield _comment_row(comment)


# --- keeping it in step ------------------------------------------------------------------------


# New items only: one whose row a stop left unwritten changes the count the start checks.
_LATER = frozenset({"report.added", "comment.added"})


def observe(event: Event) -> None:
    """tasks.events observer: replace the rows of the items the event names — now, or after
    an on-loop write's answer."""
    rows = _ROWS_OF.get(event.kind)
    if rows is None:
        return
    if event.kind in _LATER and _left_events.leave(event):
        return
    for row in rows(event):
        _replace(row)


def _rows_written(events: list[Event]) -> None:
    for event in events:
        for row in _ROWS_OF[event.kind](event):
            _replace(row)


# New rows an on-loop write left for after its answer (core/on_loop.py); after a stop, the
# start's count check (rebuild_if_needed) is the recovery.
_left_events: on_loop.Left[Event] = on_loop.Left(_rows_written, recover=None)


def _document_rows(event: Event) -> Iterable[tuple[Any, ...]]:
    from memory.models import Document

    docs = Document.objects.filter(project_id=event.project_id, name=event.payload.get("name"))
    return [_document_row(doc) for doc in docs.select_related("project")]


def _note_rows(event: Event) -> Iterable[tuple[Any, ...]]:
    from memory.models import MemoryNote

    ids = [event.payload.get("note"), event.payload.get("supersedes")]
    notes = MemoryNote.objects.select_related("project").filter(id__in=[i for i in ids if i])
    return [_note_row(note) for note in notes]


def _decision_rows(event: Event) -> Iterable[tuple[Any, ...]]:
    ids = [event.payload.get("decision_id"), event.payload.get("supersedes")]
    found = Decision.objects.select_related("project").filter(id__in=[i for i in ids if i])
    return [_decision_row(d) for d in found]


def _report_rows(event: Event) -> Iterable[tuple[Any, ...]]:
    return _item_rows("report", sql.REPORT_ITEM.text, event.payload.get("report_id"))


def _comment_rows(event: Event) -> Iterable[tuple[Any, ...]]:
    return _item_rows("comment", sql.COMMENT_ITEM.text, event.payload.get("comment_id"))


def _item_rows(kind: str, statement: str, item_id: object) -> list[tuple[Any, ...]]:
    """A report's or comment's row as _report_row / _comment_row make it, read in one
    statement written once (every report_add and comment takes this step)."""
    found = fetch_one(statement, [item_id]) if item_id else None
    if found is None:
        return []
    item = sql.ItemRow(*found)
    return [(kind, str(item.id), item.project, "current", item.title, item.body, item.id)]


_ROWS_OF = {
    "document.updated": _document_rows,
    "memory.added": _note_rows,
    "memory.updated": _note_rows,
    "decision.added": _decision_rows,
    "report.added": _report_rows,
    "comment.added": _comment_rows,
}


def _replace(row: tuple[Any, ...]) -> None:
    """Delete and insert by rowid: FTS5 has no index on its unindexed columns, so a
    DELETE … WHERE kind AND ref would read every row (48 ms at 50,000 items)."""
    ensure_table()
    current = _rowid(row) & ~SUPERSEDED  # the item's row, whichever state it had
    with connection.cursor() as cursor:
        cursor.execute(sql.DELETE_ITEM.text, [current, current | SUPERSEDED])
        _insert(cursor, row)


def _rowid(row: tuple[Any, ...]) -> int:
    """One row per item: the kind in the high bits, the item's own id below, and a
    superseded item above every current one — so "current only" is a rowid range, which FTS5
    reads as such, where a `NOT state : "superseded"` term made bm25 walk that term's whole
    doclist for its weight."""
    superseded = SUPERSEDED if row[3] == "superseded" else 0
    return superseded | (KINDS.index(row[0]) + 1) << 40 | int(row[6])


def _insert(cursor: Any, row: tuple[Any, ...]) -> None:
    kind, ref, project, state, title, body, _ = row
    stems = search_text.stemmed_text(title, body)
    cursor.execute(
        sql.INSERT_ITEM.text,
        [_rowid(row), kind, ref, project, state, scope_token(project), title, body, stems],
    )


def scope_token(project: str) -> str:
    """The scope column's one token: a project's slug hex-encoded (unicode61 would split a
    slug at its dashes, and "acme" must not match "acme-shop"), else global or role."""
    if not project:
        return "global"
    if project.startswith("role:"):
        return "role"
    return "p" + project.encode().hex()


def _document_row(doc: Any) -> tuple[Any, ...]:
    version = doc.versions.order_by("-version").first()
    body = version.body if version is not None else ""
    return ("document", doc.name, doc.project.slug, "current", doc.title, body, doc.id)


def _decision_row(d: Decision) -> tuple[Any, ...]:
    state = "superseded" if d.superseded_at else "current"
    body = "\n".join(p for p in (d.text, d.source_text) if p)
    title = d.text.splitlines()[0][:200]
    return ("decision", str(d.id), d.project.slug, state, title, body, d.id)


def _note_row(note: Any) -> tuple[Any, ...]:
    where = note.project.slug if note.project_id else (f"role:{note.role}" if note.role else "")
    state = "superseded" if note.superseded_at else "current"
    body = "\n".join(p for p in (note.body, note.tags) if p)
    return ("memory", str(note.id), where, state, note.title, body, note.id)


def _report_row(r: Report) -> tuple[Any, ...]:
    return ("report", str(r.id), r.task.project.slug, "current", r.summary, r.body, r.id)


def _comment_row(c: Comment) -> tuple[Any, ...]:
    return ("comment", str(c.id), c.task.project.slug, "current", "", c.body, c.id)


# --- searching ----------------------------------------------------------------------------------


def search(
    query: str,
    *,
    project: str | None = None,
    kinds: Iterable[str] = (),
    include_superseded: bool = False,
    limit: int = 20,
) -> list[Hit]:
    """Every query word required; bm25 with the title weighing most (FTS5) or LIKE (§8).

    With a project: its items plus global and role notes.
    """
    ensure_table()
    limit = max(1, min(limit, SEARCH_MAX))
    if _fts:
        where, params = _filters(None, kinds, True)
        expression = search_text.fts_query(query)
        if expression is None:
            return []
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        # Rank on rowids alone, then read the few winners' text: selecting title and body
        # in the ranked query made SQLite carry every match's text through the sort
        # (21 ms for 5,000 matches at 50,000 items; bench/search.py). The project filter is
        # a term of the MATCH: as a column filter after it, it read every match's row (14
        # ms). "Current only" is a rowid range (_rowid).
        if project:
            places = " OR ".join(f'"{t}"' for t in (scope_token(project), "global", "role"))
            expression = f"({expression}) AND scope : ({places})"
        if not include_superseded:
            where, params = f"{where} AND rowid < %s", [*params, SUPERSEDED]
        with connection.cursor() as cursor:
            cursor.execute(sql.ranked(where, weights), [expression, *params, limit])
            order = [row[0] for row in cursor.fetchall()]
        if not order:
            return []
        with connection.cursor() as cursor:
            cursor.execute(sql.shown(len(order)), order)
            found = {row[0]: row[1:] for row in cursor.fetchall()}
        return [_hit(found[rowid], query) for rowid in order if rowid in found]
    where, params = _filters(project, kinds, include_superseded)
    terms = search_text.like_terms(query)
    if not terms:
        return []
    for word, stem in terms:
        params = [*params, f"%{word}%", f"%{word}%", f"%{stem}%"]
    params = [*params, limit]
    with connection.cursor() as cursor:
        cursor.execute(sql.like_search(where, len(terms)), params)
        rows = cursor.fetchall()
    return [_hit(row, query) for row in rows]


def _hit(row: tuple[Any, ...], query: str) -> Hit:
    kind, ref, project, state, title, body = row
    return Hit(kind, ref, project, title, search_text.hit_line(f"{title}\n{body}", query), state)


def _filters(
    project: str | None, kinds: Iterable[str], include_superseded: bool
) -> tuple[str, list[Any]]:
    return sql.filters(project, tuple(k for k in kinds if k in KINDS), include_superseded)
