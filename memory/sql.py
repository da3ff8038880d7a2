"""Every statement the memory writes by hand, in one ledger (docs/architecture.md §6).

The search index is an FTS5 virtual table (or its plain fallback) that no model maps, so
memory/search.py keeps it with these statements: the table's layouts, keeping a row in step,
and the search. Each names what its rows hold and the test that holds its result. Table and
column names are constants and values are parameters (hence the S608 waivers).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from core.rows import Statement, shape
from tasks.models import Comment, Project, Report, Task

SEARCH = "tests/memory/test_search.py::"
TABLE = "search_index"
PREVIOUS = f"{TABLE}_previous"  # the previous layout's table while it moves over
COLUMNS = "kind, ref, project, state, scope, title, body, stems"
SHOWN = "kind, ref, project, state, title, body"  # what a hit shows

# Prefix indexes for query words and stems of 2 to 8 letters: a prefix term ("deploy"*) is
# one doclist instead of the merge of every word it begins, which bm25 walks again for each
# term's weight — searches at 50,000 items took half the time, for ~1.3 KB more per item
# (bench/README.md, "Memory search"). The clause also marks this layout (search.ensure_table).
PREFIXES = "prefix='2 3 4 5 6 7 8'"


class TableSql(NamedTuple):
    sql: str | None  # the table's CREATE statement


class Count(NamedTuple):
    count: int


class RowId(NamedTuple):
    rowid: int


class Shown(NamedTuple):
    kind: str
    ref: str
    project: str
    state: str
    title: str
    body: str


class ItemRow(NamedTuple):
    """A report or a comment as the index keeps it: its id, its project's slug, its title
    (a report's summary, a comment's nothing) and its body."""

    id: int
    project: str
    title: str
    body: str


class ShownById(NamedTuple):
    rowid: int
    kind: str
    ref: str
    project: str
    state: str
    title: str
    body: str


# --- the table ---------------------------------------------------------------------------------

LAYOUT_TWIN = SEARCH + "test_an_index_of_the_older_layout_is_replaced_and_rebuilt"
MOVE_TWIN = SEARCH + "test_an_index_of_the_previous_layout_moves_over_without_a_rebuild"
CREATE_FTS = Statement(
    f"CREATE VIRTUAL TABLE {TABLE} USING fts5(kind UNINDEXED, ref UNINDEXED, "
    "project UNINDEXED, state, scope, title, body, stems, "
    f"tokenize='unicode61 remove_diacritics 2', {PREFIXES})",
    row=None,
    twin=LAYOUT_TWIN,
)
CREATE_PLAIN = Statement(
    f"CREATE TABLE {TABLE} (kind TEXT, ref TEXT, project TEXT, state TEXT, scope TEXT, "
    "title TEXT, body TEXT, stems TEXT)",
    row=None,
    twin=SEARCH + "test_a_create_that_fails_for_another_reason_says_so",
)
TABLE_SQL = Statement(
    "SELECT sql FROM sqlite_master WHERE name = %s", row=TableSql, twin=LAYOUT_TWIN
)
DROP = Statement(f"DROP TABLE {TABLE}", row=None, twin=LAYOUT_TWIN)
RENAME_TO_PREVIOUS = Statement(
    f"ALTER TABLE {TABLE} RENAME TO {PREVIOUS}", row=None, twin=MOVE_TWIN
)
# Each row of the previous layout under its rowid with the superseded bit (a parameter).
MOVE_FROM_PREVIOUS = Statement(
    f"INSERT INTO {TABLE} (rowid, {COLUMNS}) "  # noqa: S608
    f"SELECT rowid | CASE WHEN state = 'superseded' THEN %s ELSE 0 END, {COLUMNS} "
    f"FROM {PREVIOUS}",
    row=None,
    twin=MOVE_TWIN,
)
DROP_PREVIOUS = Statement(f"DROP TABLE {PREVIOUS}", row=None, twin=MOVE_TWIN)


@shape(row=Count, twin=SEARCH + "test_the_index_is_rebuilt_when_its_count_differs")
def indexed_count(fts: bool) -> str:
    """The index's row count. FTS5 keeps one small row per indexed item in its _docsize
    table: counting those is a millisecond at 75,000 items, where count(*) of the index read
    its content (50–140 ms of every start)."""
    counted = f"{TABLE}_docsize" if fts else TABLE
    return f"SELECT count(*) FROM {counted}"  # noqa: S608


DELETE_ALL = Statement(
    f"DELETE FROM {TABLE}",  # noqa: S608
    row=None,
    twin=SEARCH + "test_the_index_is_rebuilt_when_its_count_differs",
)

# --- keeping it in step ------------------------------------------------------------------------

STEP_TWIN = SEARCH + "test_documents_and_notes_are_indexed_by_their_writes"
# By rowid, current and superseded: FTS5 has no index on its unindexed columns, so a
# DELETE … WHERE kind AND ref would read every row (48 ms at 50,000 items).
DELETE_ITEM = Statement(
    f"DELETE FROM {TABLE} WHERE rowid IN (%s, %s)",  # noqa: S608
    row=None,
    twin=STEP_TWIN,
)
INSERT_ITEM = Statement(
    f"INSERT INTO {TABLE} (rowid, {COLUMNS}) "  # noqa: S608
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
    row=None,
    twin=STEP_TWIN,
)

# A report's or a comment's row, read for its write's event: the queryset with its task and
# project joined cost more to compile than the whole index step (bench/README.md, "Writes as
# fast as a bare tool").
ITEM_TWIN = SEARCH + "test_a_write_indexes_the_rows_a_rebuild_indexes"
_REPORT, _COMMENT, _TASK, _PROJECT = (m._meta.db_table for m in (Report, Comment, Task, Project))
REPORT_ITEM = Statement(
    f'SELECT r.id, p.slug, r.summary, r.body FROM "{_REPORT}" r '  # noqa: S608
    f'JOIN "{_TASK}" t ON t.id = r.task_id JOIN "{_PROJECT}" p ON p.id = t.project_id '
    "WHERE r.id = %s",
    row=ItemRow,
    twin=ITEM_TWIN,
)
COMMENT_ITEM = Statement(
    f"SELECT c.id, p.slug, '', c.body FROM \"{_COMMENT}\" c "  # noqa: S608
    f'JOIN "{_TASK}" t ON t.id = c.task_id JOIN "{_PROJECT}" p ON p.id = t.project_id '
    "WHERE c.id = %s",
    row=ItemRow,
    twin=ITEM_TWIN,
)

# --- searching ---------------------------------------------------------------------------------


def filters(
    project: str | None, kinds: tuple[str, ...], include_superseded: bool
) -> tuple[str, list[Any]]:
    """The search's conditions after its MATCH (or `1 = 1`): a project's items with global
    and role notes, the kinds asked, current items only; and their parameters."""
    where, params = "", []
    if project:
        where += (
            " AND (project = %s OR (kind = 'memory' AND (project = '' OR project LIKE 'role:%%')))"
        )
        params.append(project)
    if kinds:
        where += f" AND kind IN ({', '.join(['%s'] * len(kinds))})"
        params += kinds
    if not include_superseded:
        where += " AND state = 'current'"
    return where, params


@shape(row=RowId, twin=SEARCH + "test_the_title_weighs_most", kept=64)
def ranked(where: str, weights: str) -> str:
    """FTS5's winners on rowids alone, best first: selecting title and body in the ranked
    query made SQLite carry every match's text through the sort (21 ms for 5,000 matches at
    50,000 items; bench/search.py)."""
    return (
        f"SELECT rowid FROM {TABLE} WHERE {TABLE} MATCH %s{where} "  # noqa: S608
        f"ORDER BY bm25({TABLE}, {weights}) LIMIT %s"
    )


@shape(row=ShownById, twin=SEARCH + "test_the_title_weighs_most", kept=64)
def shown(count: int) -> str:
    """What the `count` winners show."""
    marks = ", ".join(["%s"] * count)
    return f"SELECT rowid, {SHOWN} FROM {TABLE} WHERE rowid IN ({marks})"  # noqa: S608


@shape(row=Shown, twin=SEARCH + "test_every_word_is_required_and_words_are_prefixes", kept=64)
def like_search(where: str, terms: int) -> str:
    """The LIKE fallback's search without FTS5: every word or its stem, newest first."""
    like = "(lower(title) LIKE %s OR lower(body) LIKE %s OR stems LIKE %s)"
    likes = " AND ".join([like] * terms)
    return (
        f"SELECT {SHOWN} FROM {TABLE} "  # noqa: S608
        f"WHERE 1 = 1{where} AND {likes} ORDER BY rowid DESC LIMIT %s"
    )
