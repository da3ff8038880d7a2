"""The memory's search index (§8 Search) against the real SQLite: stems in English and
Russian, prefix terms, title weighting, the hit's line, the project filter, the LIKE
fallback with FTS5 unavailable, and the rebuild at start."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import OperationalError, connection

from memory import search, sql
from tasks import services
from tests.tasks.factories import ACTOR, add_report, make_project, make_task

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["fts5", "like"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Every test runs twice: with FTS5 and with the LIKE fallback (FTS5 unavailable)."""
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {search.TABLE}")
    search.forget()
    if request.param == "like":
        missing = "CREATE VIRTUAL TABLE search_index USING no_such_module(x)"
        monkeypatch.setattr(sql, "CREATE_FTS", sql.CREATE_FTS._replace(text=missing))
    search.ensure_table()
    assert search.has_fts() is (request.param == "fts5")
    yield request.param
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {search.TABLE}")
    search.forget()


def decide(project: str, text: str, **kw: object) -> int:
    return services.decision_add(project=project, text=text, actor=ACTOR, **kw).obj.id  # type: ignore[arg-type]


def refs(hits: list[search.Hit]) -> list[tuple[str, str]]:
    return [(h.kind, h.ref) for h in hits]


def test_english_stems_find_other_forms(engine: str) -> None:
    make_project("acme")
    number = decide("acme", "Deployment runs from CI only")
    assert refs(search.search("deploying", project="acme")) == [("decision", str(number))]


def test_russian_stems_find_other_forms(engine: str) -> None:
    make_project("acme")
    number = decide("acme", "Развёртывание только из CI")
    assert refs(search.search("развёртывания", project="acme")) == [("decision", str(number))]


def test_every_word_is_required_and_words_are_prefixes(engine: str) -> None:
    make_project("acme")
    number = decide("acme", "Cache carts in Redis")
    assert refs(search.search("redi cach", project="acme")) == [("decision", str(number))]
    assert search.search("redis postgres", project="acme") == []


def test_reports_and_comments_are_indexed_in_their_write(engine: str) -> None:
    project = make_project("acme")
    task = make_task(project, title="Gift cards")
    report = add_report(
        task, body="changed · M · gift card balance checks\n\nThe ledger sync was slow."
    )
    services.owner_comment_add(key=task.key, body="Please look at the ledger too", actor=ACTOR)
    hits = search.search("ledger", project="acme")
    assert {h.kind for h in hits} == {"report", "comment"}
    line = next(h.line for h in hits if h.kind == "report")
    assert line == "The ledger sync was slow."
    assert ("report", str(report.id)) in refs(hits)


def test_a_write_indexes_the_rows_a_rebuild_indexes(engine: str) -> None:
    """A report's and a comment's rows, read by their write's statements (sql.REPORT_ITEM,
    sql.COMMENT_ITEM), are the rows a rebuild makes from the ORM."""
    task = make_task(make_project("acme"), title="Gift cards")
    add_report(task, body="changed · M · gift card balance\n\nThe ledger «sync» was slow.")
    services.owner_comment_add(key=task.key, body="Look at the ledger too", actor=ACTOR)
    columns = f"rowid, {sql.COLUMNS}"

    def indexed() -> list[tuple[object, ...]]:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {columns} FROM {search.TABLE} ORDER BY rowid")
            return cursor.fetchall()

    written = indexed()
    search.rebuild()

    assert {row[1] for row in written} == {"report", "comment"}
    assert written == indexed()


def test_superseded_decisions_are_left_out_unless_asked(engine: str) -> None:
    make_project("acme")
    old = decide("acme", "Deploy on Fridays")
    new = decide("acme", "Deploy on Tuesdays", supersedes=old)
    assert refs(search.search("deploy", project="acme")) == [("decision", str(new))]
    everything = search.search("deploy", project="acme", include_superseded=True)
    assert sorted(refs(everything)) == sorted([("decision", str(old)), ("decision", str(new))])


def test_a_project_search_stays_in_its_project(engine: str) -> None:
    make_project("acme")
    make_project("beta")
    decide("beta", "Deploy beta nightly")
    assert search.search("deploy", project="acme") == []


def test_the_title_weighs_most(engine: str) -> None:
    if engine == "like":
        pytest.skip("the LIKE fallback has no ranking (§8: bm25 is FTS5's)")
    project = make_project("acme")
    task = make_task(project)
    add_report(task, body="changed · S · unrelated summary\n\nwe talked about invoices")
    report = add_report(task, body="changed · S · invoices exported\n\nall good")
    hits = search.search("invoices", project="acme")
    assert hits[0].ref == str(report.id)


def test_hostile_queries_never_fail(engine: str) -> None:
    make_project("acme")
    decide("acme", "Something")
    for query in ['"', "*", "NEAR(", "a AND", "-x", "(", "title:", "🙂", "x" * 5000, ""]:
        assert isinstance(search.search(query, project="acme"), list)


def test_the_index_is_rebuilt_when_its_count_differs(engine: str) -> None:
    make_project("acme")
    decide("acme", "Use SQLite")
    decide("acme", "Use WAL")
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {search.TABLE}")  # an older install had no index rows
    assert search.rebuild_if_needed() is True
    assert len(search.search("use", project="acme")) == 2
    assert search.rebuild_if_needed() is False


def test_an_index_of_the_older_layout_is_replaced_and_rebuilt(engine: str) -> None:
    """An install from before the scope column: its table is dropped, made again and
    filled at first use, and the project filter works on the new column."""
    make_project("acme")
    make_project("acme-shop")
    decide("acme", "Use SQLite")
    decide("acme-shop", "Use WAL")
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {search.TABLE}")
        cursor.execute(
            f"CREATE TABLE {search.TABLE} (kind TEXT, ref TEXT, project TEXT, state TEXT, "
            "title TEXT, body TEXT, stems TEXT)"
        )
    search.forget()
    assert [h.title for h in search.search("use", project="acme")] == ["Use SQLite"]
    assert [h.title for h in search.search("use", project="acme-shop")] == ["Use WAL"]
    assert search.rebuild_if_needed() is False


# The FTS5 table of the layout before issue 33: no prefix indexes, superseded items among
# the current ones (their rowids without search.SUPERSEDED).
PREVIOUS_FTS_SQL = (
    "CREATE VIRTUAL TABLE search_index USING fts5(kind UNINDEXED, ref UNINDEXED, "
    "project UNINDEXED, state, scope, title, body, stems, "
    "tokenize='unicode61 remove_diacritics 2')"
)


def test_an_index_of_the_previous_layout_moves_over_without_a_rebuild(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An install from before issue 33: its rows move to the table with prefix indexes
    under their new rowids by SQLite alone, and "current only" still leaves out what was
    superseded there."""
    search.forget()
    search.ensure_table()
    with connection.cursor() as cursor:
        # rows a transactional test of this worker left behind (a flush empties the models'
        # tables, not the index's) would move over too and make the counts differ
        cursor.execute(f"DELETE FROM {search.TABLE}")
    make_project("acme")
    old = decide("acme", "Deploy on Fridays")
    new = decide("acme", "Deploy on Tuesdays", supersedes=old)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT rowid, {search._COLUMNS} FROM {search.TABLE}")
        rows = [(rowid & ~search.SUPERSEDED, *rest) for rowid, *rest in cursor.fetchall()]
        cursor.execute(f"DROP TABLE {search.TABLE}")
        cursor.execute(PREVIOUS_FTS_SQL)
        for row in rows:
            cursor.execute(
                f"INSERT INTO {search.TABLE} (rowid, {search._COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                row,
            )
    search.forget()
    monkeypatch.setattr(search, "rebuild", lambda: pytest.fail("rebuilt instead of moved"))

    assert refs(search.search("deploy", project="acme")) == [("decision", str(new))]
    with connection.cursor() as cursor:
        assert search.PREFIXES in search._table_sql(cursor)
        cursor.execute("SELECT name FROM sqlite_master WHERE name LIKE 'search_index_previous%'")
        assert cursor.fetchall() == []
    everything = search.search("deploy", project="acme", include_superseded=True)
    assert sorted(refs(everything)) == sorted([("decision", str(old)), ("decision", str(new))])
    assert search.rebuild_if_needed() is False


def test_a_table_made_between_the_look_and_the_create_is_used(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen once in a test worker: sqlite_master said there was no index, then the create
    said "already exists" and the plain table's create failed the same way. The table that
    is there is used, whatever the engine."""
    looks = iter([None])
    real = search._table_sql
    monkeypatch.setattr(search, "_table_sql", lambda cursor: next(looks, None) or real(cursor))
    search.forget()
    search.ensure_table()
    assert search.has_fts() is (engine == "fts5")


def test_a_create_that_fails_for_another_reason_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a missing FTS5 falls back to LIKE; any other failure is raised, not hidden."""
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {search.TABLE}")
    broken = sql.CREATE_FTS._replace(text="CREATE VIRTUAL TABLE search_index USING")
    monkeypatch.setattr(sql, "CREATE_FTS", broken)
    search.forget()
    try:
        with pytest.raises(OperationalError, match="incomplete input"):
            search.ensure_table()
    finally:
        search.forget()


def test_scope_tokens_keep_projects_apart() -> None:
    assert search.scope_token("acme") != search.scope_token("acme-shop")
    assert search.scope_token("acme-shop").isalnum()
    assert (search.scope_token(""), search.scope_token("role:coordinator")) == ("global", "role")


def test_documents_and_notes_are_indexed_by_their_writes(engine: str) -> None:
    from memory import services as memory_services

    make_project("acme")
    memory_services.doc_update(
        project="acme",
        name="runbook",
        title="Runbook",
        text="# Deploy\n\nDeployment steps",
        base_version=0,
        actor=ACTOR,
    )
    hits = search.search("deploying", project="acme")
    assert ("document", "runbook") in refs(hits)
    memory_services.memory_add(
        scope="global",
        title="Redis eviction policy",
        body="Use allkeys-lru",
        kind="reference",
        actor=ACTOR,
    )
    found = search.search("eviction", project="acme")  # a project search covers global notes
    assert [h.kind for h in found] == ["memory"]
