"""No hostile or slow pattern reaches the guard (§7 Validation): the refusal corpus, the
accepted corpus, and the run-time limit that fails closed and logs once a minute."""

from __future__ import annotations

import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policy import safe_regex
from policy.safe_regex import MAX_INPUT, fullmatch, problem, search

REFUSED = [
    ("nested quantifier", r"(a+)+$", "repeats a group that holds a quantifier"),
    ("alternation repeated", r"(a|aa)*", "repeats a group that holds an alternation"),
    ("star of a star", r"(a*)*b", "repeats a group that holds a quantifier"),
    ("non-capturing alternation", r"(?:x|y)+z", "repeats a group that holds an alternation"),
    ("deeper nesting", r"((ab)+c)*", "repeats a group that holds a quantifier"),
    ("optional inside a repeat", r"(\d+\s?)+$", "repeats a group that holds a quantifier"),
    ("optional repeated twice or more", r"(a?){2,}", "repeats a group that holds a quantifier"),
    ("atomic group repeated", r"(?>a+)+", "repeats a group that holds a quantifier"),
    ("numbered back-reference", r"(a)\1", r"uses a back-reference (\1)"),
    ("named back-reference", r"(?P<x>a)(?P=x)", "uses a back-reference ((?P=x))"),
    ("\\g back-reference", r"(a)\g<1>", r"uses a back-reference (\g<1>)"),
    ("\\k back-reference", r"(?<n>a)\k<n>", r"\k"),
    ("201 characters", "a" * 201, "is 201 characters long (at most 200)"),
    ("three unbounded quantifiers", r"a*b+c{2,}", "has 3 unbounded quantifiers (at most 2)"),
    ("lazy ones count too", r"a*?b+?c*", "has 3 unbounded quantifiers (at most 2)"),
    ("conflicting flags", r"(?u)(?a)x", "does not compile: ASCII, LOCALE and UNICODE flags"),
    ("version 1 flag", r"(?V1)a", "does not compile: VERSION0 and VERSION1"),
    ("unclosed class", "[unclosed", "does not compile: unterminated character set"),
    # Catastrophic but legal: every static check passes, the probes catch them.
    ("adjacent overlapping repeats", r"\s*\s*$", "is too slow on a hostile 4 KB input"),
    ("bounded but huge overlap", r"\w{1,1000}\w{1,1000}$", "is too slow on a hostile 4 KB input"),
    ("quadratic group", r"(ab)+c", "is too slow on a hostile 4 KB input"),
]


@pytest.mark.parametrize(
    ("pattern", "words"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_the_hostile_corpus_is_refused_with_the_right_words(pattern: str, words: str) -> None:
    found = problem(pattern)
    assert found is not None
    assert words in found
    assert pattern[:60] not in found or len(pattern) < 20  # a long pattern is not repeated


ACCEPTED = [
    r"kubectl\s+apply",
    r"kubectl\s+(apply|delete)",
    r"(https?://)?prod\.",
    r"^git\s+push\b",
    r"[a|b]+",
    r"\(a+\)+",
    r"AKIA[0-9A-Z]{16}",
    r"test-[a-z0-9]{8,}",
    r"(?i:deploy)\s+--prod",
    r"(?:ab)+",
    r"\bDROP\s+TABLE\b",
    r"curl\s.*-X\s*(POST|PUT|DELETE)",
]


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_ordinary_patterns_pass(pattern: str) -> None:
    assert problem(pattern) is None


def test_patterns_match_case_insensitively() -> None:
    assert search(r"drop\s+table", "DROP TABLE users", pattern_id="p", on_timeout=True)
    assert not search(r"drop\s+table", "select 1", pattern_id="p", on_timeout=True)


def test_only_the_first_8_kb_are_read() -> None:
    late = "x" * MAX_INPUT + "secret"
    assert not search("secret", late, pattern_id="p", on_timeout=True)
    assert search("secret", late[1:], pattern_id="p", on_timeout=True) is False
    assert search("secret", "x" * (MAX_INPUT - 6) + "secret", pattern_id="p", on_timeout=False)


def test_fullmatch_needs_the_whole_value() -> None:
    assert fullmatch(r"test-[a-z]+", "TEST-abc", pattern_id="allow", on_timeout=False)
    assert not fullmatch(r"test-[a-z]+", "test-abc and more", pattern_id="allow", on_timeout=False)


# Refused by validation; a stored layer that skipped validation still cannot hang the hook
# (the regex engine shortcuts (a+)+$, not this one: it runs for seconds on 61 characters).
SLOW = r"(a|aa)+$"
SLOW_TEXT = "a" * 60 + "!"


@pytest.mark.parametrize("on_timeout", [True, False])
def test_a_slow_pattern_at_run_time_fails_closed(on_timeout: bool) -> None:
    assert (
        search(SLOW, SLOW_TEXT, pattern_id=f"slow-{on_timeout}", on_timeout=on_timeout)
        is on_timeout
    )
    assert (
        fullmatch(SLOW, SLOW_TEXT, pattern_id=f"slow-{on_timeout}", on_timeout=on_timeout)
        is on_timeout
    )


def test_a_timeout_is_logged_once_a_minute_and_the_pattern_stays_on(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [10_000.0]
    monkeypatch.setattr(safe_regex.time, "monotonic", lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="relaybay.policy"):
        for _ in range(3):
            assert search(SLOW, SLOW_TEXT, pattern_id="slowpoke", on_timeout=True)
        now[0] += 61
        assert search(SLOW, SLOW_TEXT, pattern_id="slowpoke", on_timeout=True)
        assert search(SLOW, "aaa", pattern_id="slowpoke", on_timeout=False)  # still runs
    lines = [r.getMessage() for r in caplog.records if "slowpoke" in r.getMessage()]
    assert lines == ["policy pattern slowpoke took over 20 ms and counts as matched"] * 2


def test_a_pattern_that_does_not_compile_is_skipped_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="relaybay.policy"):
        assert not search("(?u)(?a)x", "x", pattern_id="broken-one", on_timeout=True)
        assert not fullmatch("(?u)(?a)x", "x", pattern_id="broken-one", on_timeout=False)
    lines = [r.getMessage() for r in caplog.records if "broken-one" in r.getMessage()]
    assert lines == ["policy pattern broken-one does not compile and is skipped"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60))
def test_any_pattern_text_gets_an_answer_and_never_an_exception(pattern: str) -> None:
    result = problem(pattern)
    assert result is None or isinstance(result, str)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(alphabet="ab()|*+?{},1-9\\sdw.[]^$", max_size=20),
    st.text(alphabet="ab -!x\n", min_size=0, max_size=4096),
)
def test_an_accepted_pattern_runs_on_any_4_kb_text(pattern: str, text: str) -> None:
    if problem(pattern) is not None:
        return
    assert search(pattern, text, pattern_id="prop", on_timeout=True) in (True, False)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300), st.booleans())
def test_search_never_raises_and_answers_a_bool(text: str, on_timeout: bool) -> None:
    assert search(r"kubectl\s+apply", text, pattern_id="k", on_timeout=on_timeout) in (True, False)
