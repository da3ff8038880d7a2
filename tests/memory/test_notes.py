"""The pure rules of memory notes (§8): title words, stems, similarity and tags."""

from __future__ import annotations

import pytest

from memory import notes


def test_title_words_leave_out_stop_words_and_words_of_one_or_two_letters() -> None:
    assert notes.title_words("Use the SQLite WAL mode in CI") == ["sqlite", "wal", "mode"]
    assert notes.title_words("Не используй это для БД миграций") == ["используй", "миграций"]
    assert notes.title_words("a to of") == []


def test_similarity_is_jaccard_of_stemmed_title_words() -> None:
    assert notes.similarity("Running tests", "run the test") == 1.0
    assert notes.similarity("SQLite WAL mode", "WAL mode for SQLite databases") == 0.75
    assert notes.similarity("Deploy on Fridays", "Review screenshots") == 0.0
    assert notes.similarity("the", "SQLite") == 0.0


def test_russian_words_are_stemmed_in_russian() -> None:
    assert notes.similarity("Миграции базы", "миграция базы данных") == pytest.approx(2 / 3)


def test_a_strong_match_is_at_least_0_6() -> None:
    assert notes.is_strong(0.6)
    assert not notes.is_strong(0.59)
    assert notes.shares_a_word("Deploy staging", "staging database")
    assert not notes.shares_a_word("Deploy staging", "the and for")


def test_tags_are_lowercased_each_once_in_order() -> None:
    assert notes.clean_tags("SQLite, ci ,sqlite,, Test  Data") == ("sqlite", "ci", "test data")
    assert notes.clean_tags(["A", "b", "a"]) == ("a", "b")
    assert notes.clean_tags(None) == ()
    assert notes.tags_text(("a", "b")) == "a,b"


def test_a_tag_with_a_comma_in_a_list_or_too_long_is_refused() -> None:
    with pytest.raises(ValueError, match="comma"):
        notes.clean_tags(["a,b"])
    with pytest.raises(ValueError, match="41 characters long; at most 40"):
        notes.clean_tags("x" * 41)
