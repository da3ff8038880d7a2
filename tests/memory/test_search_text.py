"""memory.search_text (§8 Search) against a real in-memory SQLite FTS5 table built as the
spec says, and against a plain table for the LIKE fallback."""

import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.search_text import (
    BM25_WEIGHTS,
    MAX_HIT_LINE,
    fts_query,
    hit_line,
    like_terms,
    stem,
    stemmed_text,
    words,
)

DOCS = [
    ("Deployment notes", "How the app goes out."),
    ("Инструкция", "Развёртывание сервиса на стенде."),
    ("Weekly report", "Nothing about shipping here; see the deployment page."),
    ("Backups", "Nightly at two."),
]


def fts_connection() -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:")
    connection.execute(
        "CREATE VIRTUAL TABLE search_index USING fts5(kind UNINDEXED, ref UNINDEXED, "
        "project UNINDEXED, title, body, stems, tokenize='unicode61 remove_diacritics 2')"
    )
    for title, body in DOCS:
        connection.execute(
            "INSERT INTO search_index(kind, ref, project, title, body, stems) "
            "VALUES ('doc', ?, 'p', ?, ?, ?)",
            (title, title, body, stemmed_text(title, body)),
        )
    return connection


@pytest.fixture(scope="module")
def fts():
    connection = fts_connection()
    yield connection
    connection.close()


def search(connection: sqlite3.Connection, query: str) -> list[str]:
    """Titles of the hits, best first, as the services will rank them."""
    expression = fts_query(query)
    if expression is None:
        return []
    rows = connection.execute(
        "SELECT title FROM search_index WHERE search_index MATCH ? "
        "ORDER BY bm25(search_index, ?, ?, ?, ?, ?, ?)",
        (expression, *BM25_WEIGHTS),
    )
    return [title for (title,) in rows]


@pytest.fixture(scope="module")
def plain():
    """The table the LIKE fallback reads when FTS5 is missing: same columns, no index."""
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE search_index (title TEXT, body TEXT, stems TEXT)")
    for title, body in DOCS:
        connection.execute(
            "INSERT INTO search_index VALUES (?, ?, ?)", (title, body, stemmed_text(title, body))
        )
    yield connection
    connection.close()


def like_search(connection: sqlite3.Connection, query: str) -> list[str]:
    """The fallback as a caller builds it: every word required, word or stem anywhere."""
    clauses, params = [], []
    for word, word_stem in like_terms(query):
        clauses.append(
            "(" + " OR ".join(f"{column} LIKE ?" for column in ("title", "body", "stems") * 2) + ")"
        )
        params += [f"%{word}%"] * 3 + [f"%{word_stem}%"] * 3
    if not clauses:
        return []
    sql = "SELECT title FROM search_index WHERE " + " AND ".join(clauses) + " ORDER BY rowid"
    return [title for (title,) in connection.execute(sql, params)]


def test_words_split_like_unicode61_and_fold_diacritics():
    assert words("Café-naïve  l'ÉTÉ_2024") == ["cafe", "naive", "l", "ete", "2024"]
    assert words("Ёлка, развёртывание; й") == ["елка", "развертывание", "й"]
    assert words("e\u0301te\u0301 уда\u0301рение") == ["ete", "ударение"]
    assert words("😀 — ... ") == []


def test_stem_picks_the_language_by_script():
    assert stem("deploying") == stem("deployment") == "deploy"
    assert stem("развертывания") == stem("развертывание") == "развертыван"
    assert stem("x" * 500) == "x" * 500


def test_stemmed_text_is_the_stems_of_title_and_body():
    assert stemmed_text("Deployment notes", "Развёртывание") == "deploy note развертыван"


def test_english_word_finds_its_stem(fts):
    assert search(fts, "deploying")[0] == "Deployment notes"


def test_russian_word_finds_another_form(fts):
    assert search(fts, "развёртывания") == ["Инструкция"]
    assert search(fts, "развертывания") == ["Инструкция"]


def test_prefix_terms(fts):
    assert "Deployment notes" in search(fts, "depl")


def test_all_words_are_required(fts):
    assert search(fts, "deployment page") == ["Weekly report"]
    assert search(fts, "deployment nightly") == []


def test_a_title_hit_ranks_above_a_body_hit(fts):
    assert search(fts, "deployment") == ["Deployment notes", "Weekly report"]


def test_the_expression_quotes_every_word():
    assert fts_query("Deploying ёлка") == (
        '({title body} : "deploying"* OR stems : "deploy"*) AND '
        '({title body} : "ёлка"* OR {title body} : "елка"* OR stems : "елк"*)'
    )


@pytest.mark.parametrize(
    "query",
    ['"', "*", "NEAR(", "a AND", "-x", "(", "title:", "stems:x", "😀", "a" * 20_000, "x " * 5000],
)
def test_hostile_queries_never_raise(fts, query):
    expression = fts_query(query)
    assert expression is None or expression.count('"') % 2 == 0
    search(fts, query)


def test_a_query_without_words_is_none():
    assert fts_query(' "*()- :: 😀 ') is None
    assert like_terms("...") == []


def test_like_fallback_finds_the_same_rows(fts, plain):
    for query in ("deploying", "развёртывания", "deployment page", "deployment nightly", "depl"):
        assert like_search(plain, query) == sorted(search(fts, query), key=titles_order), query


def titles_order(title: str) -> int:
    return [t for t, _ in DOCS].index(title)


def test_hit_line_names_the_line_with_most_query_words():
    text = "Intro\n\n  Deploy the app to staging.  \nDeploying to production needs a yes.\n"
    assert hit_line(text, "deployment production") == "Deploying to production needs a yes."
    assert hit_line(text, "deployment") == "Deploy the app to staging."
    assert hit_line(text, "nothing") == "Intro"
    assert hit_line("\n\nfirst\nsecond", "") == "first"
    assert hit_line("Развёртывание сервиса", "развертывания") == "Развёртывание сервиса"
    long_line = hit_line("word " * 100, "word")
    assert len(long_line) == MAX_HIT_LINE
    assert long_line.endswith("…")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_no_text_makes_fts5_raise(query):
    connection = fts_connection()
    try:
        search(connection, query)
    finally:
        connection.close()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                '"',
                "*",
                "NEAR",
                "AND",
                "OR",
                "NOT",
                "-",
                "(",
                ")",
                ":",
                "title",
                "stems",
                "{",
                "}",
                "^",
                "+",
                "deploy",
                "ёлка",
                " ",
            ]
        )
    )
)
def test_no_fts5_syntax_makes_fts5_raise(fts, pieces):
    search(fts, "".join(pieces))
