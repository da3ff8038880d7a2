"""policy.safe_regex (§7): what validation refuses, and how a run-time call fails closed."""

import itertools
import logging
import time

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from policy import safe_regex
from policy.safe_regex import MAX_INPUT, fullmatch, problem, search

# A pattern that backtracks exponentially; search() does not re-validate, so it stands for
# one that reached a stored layer without validation. It times out on this input.
SLOW = r"(a+)+$"
SLOW_INPUT = "a" * 4000 + "!"


@pytest.fixture(autouse=True)
def fresh_log_memory():
    safe_regex._last_logged.clear()
    yield
    safe_regex._last_logged.clear()


@pytest.fixture
def clock(monkeypatch):
    """time.monotonic as the module sees it, moved by hand."""
    now = [1000.0]
    monkeypatch.setattr(safe_regex.time, "monotonic", lambda: now[0])
    return now


def warnings_about(caplog, pattern_id):
    return [
        r
        for r in caplog.records
        if r.name == "relaybay.policy" and r.levelno == logging.WARNING and pattern_id in r.message
    ]


REFUSED = [
    pytest.param(r"(a+)+$", "repeats a group that holds a quantifier", id="nested-plus"),
    pytest.param(r"(a|aa)*", "repeats a group that holds an alternation", id="alternation-star"),
    pytest.param(r"(a*)*b", "repeats a group that holds a quantifier", id="nested-star"),
    pytest.param(r"(?:x|y)+z", "repeats a group that holds an alternation", id="non-capturing"),
    pytest.param(r"((ab)+c)*", "repeats a group that holds a quantifier", id="nested-groups"),
    pytest.param(r"(\d+\s?)+$", "repeats a group that holds a quantifier", id="digits-spaces"),
    pytest.param(r"(a?){2,}", "repeats a group that holds a quantifier", id="optional-inside"),
    pytest.param(r"(a)\1", r"uses a back-reference (\1)", id="backref-number"),
    pytest.param(r"x(a)(b)\2", r"uses a back-reference (\2)", id="backref-after-text"),
    pytest.param(r"(?P<x>a)(?P=x)", "uses a back-reference ((?P=x))", id="backref-python-name"),
    pytest.param(r"(a)\g<1>", r"uses a back-reference (\g<1>)", id="backref-g-number"),
    pytest.param(r"(?<n>a)\g<n>", r"uses a back-reference (\g<n>)", id="backref-g-name"),
    # regex has no \k<name>: the pattern is refused one check earlier, as not compiling.
    pytest.param(r"(?<n>a)\k<n>", r"does not compile: bad escape \k", id="backref-k-name"),
    pytest.param("a" * 201, "is 201 characters long (at most 200)", id="too-long"),
    pytest.param(r"a*b+c{2,}", "has 3 unbounded quantifiers (at most 2)", id="three-unbounded"),
    pytest.param(r"a*?b++c{,}", "has 3 unbounded quantifiers (at most 2)", id="suffixes-and-{,}"),
    pytest.param(r"(?u)(?a)x", "does not compile: ASCII, LOCALE and UNICODE", id="ascii-unicode"),
    pytest.param(r"(?V1)a", "does not compile: VERSION0 and VERSION1", id="version-1"),
    pytest.param(r"[unclosed", "does not compile: unterminated character set", id="unclosed-set"),
    # What only the scanner's reading of regex's syntax catches:
    pytest.param(r"(a+)(?i)+", "holds a quantifier", id="inline-flag-is-no-atom"),
    pytest.param(r"(a+)(?#note)+", "holds a quantifier", id="comment-is-no-atom"),
    pytest.param("(?x)(a+) +", "holds a quantifier", id="verbose-space"),
    pytest.param("(?x)(a+)# note\n+", "holds a quantifier", id="verbose-comment"),
    pytest.param("(?x)(a+){ 2 , }", "holds a quantifier", id="verbose-braces"),
    pytest.param(r"(?|a(?x)|b)(c+) *", "holds a quantifier", id="flag-leaves-branch-reset"),
    pytest.param(r"[]a](x|y)*", "holds an alternation", id="set-leading-bracket"),
    pytest.param(r"[[:alpha:]](x|y)*", "holds an alternation", id="set-posix-class"),
    pytest.param(r"(a)(?(1)b)+", "holds an alternation", id="conditional"),
    pytest.param(r"(a+)(?1)+$", "uses a group call ((?1))", id="group-call"),
    pytest.param(r"(?:foo){e<=2}", "uses fuzzy matching ({e<=2})", id="fuzzy"),
    pytest.param(r"(a+){e<=0}+", "uses fuzzy matching", id="fuzzy-that-vanishes"),
    # Catastrophic but legal: every static check passes, the hostile probes do not.
    pytest.param(r"\s+\s+$", "is too slow on a hostile 4 KB input", id="slow-adjacent-spaces"),
    pytest.param(r"[a-z]+[a-z]+\d", "is too slow on a hostile 4 KB input", id="slow-adjacent"),
    pytest.param(r"\w{1,1000}\w{1,1000}$", "is too slow on a hostile 4 KB", id="slow-bounded"),
    pytest.param(r"a{1,100}a{1,100}a{1,100}b", "is too slow on a hostile 4 KB", id="slow-three"),
]


@pytest.mark.parametrize(("pattern", "words"), REFUSED)
def test_a_hostile_or_broken_pattern_is_refused_with_the_reason(pattern, words):
    message = problem(pattern)

    assert message is not None
    assert words in message


def test_a_too_slow_pattern_is_told_to_simplify():
    assert problem(r"\s+\s+$") == (
        "is too slow on a hostile 4 KB input (over 50 ms for the probes); simplify it"
    )


def test_the_probes_stop_at_their_budget():
    started = time.perf_counter()
    problem(r"\w{1,1000}\w{1,1000}$")  # about 5 s per probe without the budget

    assert time.perf_counter() - started < 0.5


def test_a_message_never_repeats_more_than_40_characters_of_the_pattern():
    pattern = r"(?P<" + "n" * 60 + r">a)(?P=" + "n" * 60 + ")"

    message = problem(pattern)

    assert message is not None
    assert message.startswith("uses a back-reference")
    assert "n" * 41 not in message


@pytest.mark.parametrize(
    "pattern",
    [
        r"kubectl\s+apply",
        r"(https?://)?prod\.",
        r"^git\s+push\b",
        r"[a|b]+",
        r"\(a+\)+",
        r"AKIA[0-9A-Z]{16}",
        r"test-[a-z0-9]{8,}",
        r"rm\s+-rf\s+/",
        r"git.*push.*--force",
        r"-----BEGIN [A-Z ]+PRIVATE KEY-----",
        r"(?:ab){1}",
        r"(a)\111",  # three octal digits are a character, not a back-reference
        r"\g{1}",  # no "<": a literal g repeated once
        "(?x) a +  # a comment",
    ],
)
def test_an_ordinary_pattern_is_accepted(pattern):
    assert problem(pattern) is None


def test_a_pattern_matches_case_insensitively():
    assert search("kubectl apply", "KUBECTL Apply -f x.yaml", pattern_id="k", on_timeout=True)


def test_only_the_first_8_kb_of_the_text_is_searched():
    late = "x" * MAX_INPUT + "needle"
    just_in = "x" * (MAX_INPUT - len("needle")) + "needle"

    assert not search("needle", late, pattern_id="late", on_timeout=True)
    assert search("needle", just_in, pattern_id="in", on_timeout=False)


def test_fullmatch_needs_the_whole_value_and_search_does_not():
    allow = r"test-[a-z0-9]{8,}"

    assert fullmatch(allow, "TEST-abcd1234", pattern_id="a", on_timeout=False)
    assert not fullmatch(allow, "test-abcd1234!", pattern_id="a", on_timeout=False)
    assert not fullmatch(allow, "xtest-abcd1234", pattern_id="a", on_timeout=False)
    assert search(allow, "xtest-abcd1234!", pattern_id="a", on_timeout=False)


@pytest.mark.parametrize("on_timeout", [True, False])
def test_fullmatch_of_a_value_over_8_kb_fails_closed(on_timeout):
    value = "a" * (MAX_INPUT + 1)

    assert fullmatch("a+", value, pattern_id="long", on_timeout=on_timeout) is on_timeout


@pytest.mark.parametrize("on_timeout", [True, False])
def test_a_call_over_the_time_limit_fails_closed(on_timeout):
    started = time.perf_counter()

    assert search(SLOW, SLOW_INPUT, pattern_id="slow", on_timeout=on_timeout) is on_timeout
    assert fullmatch(SLOW, SLOW_INPUT, pattern_id="slow", on_timeout=on_timeout) is on_timeout
    assert time.perf_counter() - started < 1.0  # 20 ms each, with room for a busy machine


def test_a_timeout_is_logged_once_a_minute_per_pattern_id(caplog, clock):
    caplog.set_level(logging.WARNING, logger="relaybay.policy")

    for _ in range(3):
        search(SLOW, SLOW_INPUT, pattern_id="no-prod", on_timeout=True)
    search(SLOW, SLOW_INPUT, pattern_id="other", on_timeout=True)
    assert len(warnings_about(caplog, "no-prod")) == 1
    assert "treated as matched (fail closed)" in warnings_about(caplog, "no-prod")[0].message
    assert len(warnings_about(caplog, "other")) == 1

    clock[0] += 59
    search(SLOW, SLOW_INPUT, pattern_id="no-prod", on_timeout=True)
    assert len(warnings_about(caplog, "no-prod")) == 1

    clock[0] += 2
    search(SLOW, SLOW_INPUT, pattern_id="no-prod", on_timeout=True)
    assert len(warnings_about(caplog, "no-prod")) == 2


# A validated pattern that is slow on the real engine: a possessive loop tried at every
# start position. `regex` may let such a call run past its timeout and answer "no match".
POSSESSIVE = "a++b"
POSSESSIVE_INPUT = "a" * 4000


@pytest.fixture
def fast_cpu_clock(monkeypatch):
    """This thread's real CPU time, seen through a clock running 1000× fast: the engine's
    real work on POSSESSIVE_INPUT is over RUN_LIMIT on it, on a fast machine as on a slow
    one, while the engine's own timeout (RUN_LIMIT of real time) leaves it alone."""
    monkeypatch.setattr(safe_regex, "cpu_clock", lambda: time.thread_time() * 1000)


def test_the_possessive_pattern_passes_validation():
    assert problem(POSSESSIVE) is None


def test_a_call_the_engine_lets_run_past_the_limit_counts_as_matched_logged_once(
    caplog, fast_cpu_clock
):
    caplog.set_level(logging.WARNING, logger="relaybay.policy")

    for _ in range(2):  # two calls within a minute; the pattern stays on between them
        assert search(POSSESSIVE, POSSESSIVE_INPUT, pattern_id="slow-guard", on_timeout=True)
    (warning,) = warnings_about(caplog, "slow-guard")
    assert "took over 20 ms; treated as matched (fail closed), it stays on" in warning.message


def test_an_allow_pattern_past_the_limit_allows_nothing_even_when_it_matched(caplog, monkeypatch):
    caplog.set_level(logging.WARNING, logger="relaybay.policy")
    ticks = itertools.count(0.0, safe_regex.RUN_LIMIT * 1.5)  # each call "takes" 30 ms
    monkeypatch.setattr(safe_regex, "cpu_clock", lambda: next(ticks))

    assert fullmatch("a++", "a" * 10, pattern_id="slow-allow", on_timeout=False) is False
    (warning,) = warnings_about(caplog, "slow-allow")
    assert "treated as not matched (fail closed)" in warning.message


def test_search_outcome_says_whether_the_answer_is_the_fail_closed_one(monkeypatch):
    outcome = safe_regex.search_outcome
    assert outcome("b", "abc", pattern_id="x", on_timeout=True) == (True, False)
    assert outcome("x", "abc", pattern_id="x", on_timeout=True) == (False, False)
    monkeypatch.setattr(safe_regex, "cpu_clock", lambda: time.thread_time() * 1000)
    assert outcome(POSSESSIVE, POSSESSIVE_INPUT, pattern_id="x", on_timeout=True) == (True, True)


def test_a_pattern_that_timed_out_stays_on_for_the_next_call():
    assert search(SLOW, SLOW_INPUT, pattern_id="on", on_timeout=True) is True

    assert search(SLOW, "aaa", pattern_id="on", on_timeout=False) is True
    assert search(SLOW, "bbb", pattern_id="on", on_timeout=True) is False


def test_an_uncompilable_pattern_at_run_time_is_skipped_and_logged_once_a_minute(caplog, clock):
    caplog.set_level(logging.WARNING, logger="relaybay.policy")

    assert search("(unclosed", "(unclosed", pattern_id="broken", on_timeout=True) is False
    assert fullmatch("(?V1)a", "a", pattern_id="broken", on_timeout=True) is False
    assert len(warnings_about(caplog, "broken")) == 1
    assert "does not compile" in warnings_about(caplog, "broken")[0].message

    clock[0] += 61
    search("(unclosed", "x", pattern_id="broken", on_timeout=False)
    assert len(warnings_about(caplog, "broken")) == 2


def test_the_log_memory_stays_bounded(caplog, clock):
    caplog.set_level(logging.WARNING, logger="relaybay.policy")

    for number in range(safe_regex.LOG_MEMORY + 200):
        clock[0] += 0.1
        search("(unclosed", "x", pattern_id=f"id-{number}", on_timeout=True)

    assert len(safe_regex._last_logged) <= safe_regex.LOG_MEMORY


def test_compiled_caches_and_returns_none_for_a_broken_pattern():
    assert safe_regex.compiled("abc") is safe_regex.compiled("abc")
    assert safe_regex.compiled("(") is None


# Properties. No fixtures in these: hypothesis runs many examples in one test call.

PATTERN_TOKENS = st.sampled_from(
    [
        "a",
        "b",
        "x",
        "-",
        " ",
        ".",
        r"\d",
        r"\w",
        r"\s",
        r"\b",
        "[a-z]",
        "[^/]",
        "^",
        "$",
        "(",
        "(?:",
        ")",
        "|",
        "*",
        "+",
        "?",
        "{2}",
        "{1,3}",
        "{2,}",
    ]
)
PATTERNS = st.lists(PATTERN_TOKENS, min_size=1, max_size=12).map("".join)
# Long texts are short ones repeated: cheap to generate, and repetition is what backtracks.
TEXTS = st.text(max_size=300) | st.builds(
    lambda unit, length: (unit * length)[:length],
    st.text(min_size=1, max_size=8),
    st.integers(min_value=MAX_INPUT - 100, max_value=2 * MAX_INPUT),
)
HOSTILE_4_KB = st.text(alphabet="ab- x0/.!\n", min_size=1, max_size=12).map(
    lambda unit: (unit * 4096)[:4096]
)


@settings(max_examples=100, deadline=None)
@given(TEXTS)
def test_search_never_raises_on_any_text(text):
    for pattern in (r"kubectl\s+apply", r"[a-z]+\d", "(unclosed", SLOW):
        assert search(pattern, text, pattern_id="p", on_timeout=True) in (True, False)
        assert fullmatch(pattern, text, pattern_id="p", on_timeout=False) in (True, False)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60))
def test_problem_never_raises_and_never_repeats_the_pattern(pattern):
    message = problem(pattern)

    assert message is None or isinstance(message, str)
    if message is not None and len(pattern) > 40:
        assert all(pattern[i : i + 41] not in message for i in range(len(pattern) - 40))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(PATTERNS, HOSTILE_4_KB)
def test_a_pattern_problem_accepts_finishes_on_any_4_kb_text(pattern, text):
    assume(problem(pattern) is None)
    started = time.perf_counter()

    assert search(pattern, text, pattern_id="p", on_timeout=True) in (True, False)
    assert fullmatch(pattern, text, pattern_id="p", on_timeout=False) in (True, False)
    assert time.perf_counter() - started < 1.0
