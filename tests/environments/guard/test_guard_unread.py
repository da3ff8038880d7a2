"""What an agent can hide behind (§7 Guard): scripts nested in shells to any depth, text past
the 200-segment cap, and a custom pattern the regex engine lets run past its time limit.
What the guard cannot read whole fails closed instead of passing unread."""

from __future__ import annotations

import logging
import shlex
import time
from collections.abc import Callable

import pytest

from environments.guard import Verdict
from environments.guard.commands import MAX_DEPTH
from environments.guard.shell import MAX_SEGMENTS, read_segments
from policy import safe_regex
from tests.environments.guard.stands import bash, live

CHANGE = "ssh prod-alias rm -rf /x"
PAST_THE_CAP = "true;" * 250 + CHANGE
TOO_LONG = (
    "relaybay guard: this command has more than 200 command segments, so the guard could not "
    "read all of it, and it names acme-shop live (live) (matched 'prod-alias'); the owner "
    "decides. Split it into shorter commands to have it checked."
)


def double_quoted(script: str) -> str:
    """The script as one double-quoted shell word: \\, ", $ and ` escaped."""
    for char in '\\"$`':
        script = script.replace(char, "\\" + char)
    return f'"{script}"'


def single_quoted(script: str) -> str:
    return shlex.quote(script)


WRAPPERS = ("bash -c", "sh -c", "zsh -c", "sudo bash -c", "bash -lc", "dash -c")


def nested(levels: int, quote: Callable[[str], str]) -> str:
    """CHANGE wrapped in `levels` shells, each quoting the one inside it."""
    command = CHANGE
    for level in range(levels):
        command = f"{WRAPPERS[level % len(WRAPPERS)]} {quote(command)}"
    return command


# --- nested scripts ---------------------------------------------------------------------------


@pytest.mark.parametrize("quote", [double_quoted, single_quoted], ids=["double", "single"])
@pytest.mark.parametrize("levels", [1, 2, 3, 4, 5])
def test_a_change_nested_in_shells_is_found_at_any_depth(
    levels: int, quote: Callable[[str], str]
) -> None:
    command = nested(levels, quote)
    inner = command
    for _ in range(levels):  # quoted as a shell would read it: each level unwraps one
        inner = shlex.split(inner)[-1]
    assert inner == CHANGE
    verdict = bash(command, live("block"))
    assert (verdict.decision, verdict.touches[0].rule) == ("deny", "ssh-remote-change")


def test_a_long_chain_of_evals_is_read_to_its_end() -> None:
    verdict = bash("eval " * 40 + CHANGE, live("block"))
    assert (verdict.decision, verdict.touches[0].rule) == ("deny", "ssh-remote-change")


def test_scripts_nested_deeper_than_the_guard_reads_ask_the_owner() -> None:
    verdict = bash("eval " * (MAX_DEPTH + 5) + CHANGE, live("block"))
    assert verdict.decision == "ask"
    assert "nests more scripts (bash -c, eval, ssh, $( … )) than the guard reads" in (
        verdict.reason
    )


def test_a_nested_script_past_the_nested_segments_budget_asks_the_owner() -> None:
    command = "bash -c " + double_quoted("true;" * 300 + CHANGE)
    verdict = bash(command, live("warn"))
    assert verdict.decision == "ask"
    assert verdict.reason.startswith("relaybay guard: this command nests more scripts")


# --- the 200-segment cap ----------------------------------------------------------------------


def test_read_segments_says_when_a_text_goes_past_the_cap() -> None:
    exactly = "; ".join(f"c{n}" for n in range(MAX_SEGMENTS))
    assert read_segments(exactly) == (exactly.split("; "), True)
    over = read_segments(exactly + "; c200")
    assert (len(over.segments), over.complete) == (MAX_SEGMENTS, False)
    assert over.segments[-1] == "c199; c200"
    heredoc = read_segments("cat <<EOF\nx\nEOF\n" + "true;" * 250)
    assert (len(heredoc.segments), heredoc.complete) == (MAX_SEGMENTS, False)


@pytest.mark.parametrize("mode", ["block", "warn"])
def test_a_change_after_segment_200_asks_the_owner(mode: str) -> None:
    verdict = bash(PAST_THE_CAP, live(mode))
    assert (verdict.decision, verdict.reason) == ("ask", TOO_LONG)
    (touch,) = verdict.touches
    assert (touch.decision, touch.level, touch.rule, touch.identifier) == (
        "ask",
        "read",
        "",
        "prod-alias",
    )


def test_past_the_cap_log_mode_logs_and_the_guard_off_does_nothing() -> None:
    logged = bash(PAST_THE_CAP, live("log"))
    assert (logged.decision, logged.reason, logged.touches[0].decision) == ("log", "", "log")
    assert bash(PAST_THE_CAP, live("off")) == Verdict((), "allow", "", PAST_THE_CAP)


def test_past_the_cap_only_stands_the_call_mentions_and_does_not_give_full_are_asked() -> None:
    assert bash("true;" * 250 + "ls -la", live("block")).decision == "allow"
    assert bash(PAST_THE_CAP, live("block", "full")).decision == "allow"
    ssh_full = live("block", levels={"default": "read", "ssh": "full", "kubectl": "read"})
    assert bash(PAST_THE_CAP, ssh_full).decision == "allow"  # ssh rules meet only ssh: full


def test_past_the_cap_a_change_read_before_it_still_denies() -> None:
    verdict = bash(CHANGE + ";" + "true;" * 250, live("block"))
    assert (verdict.decision, verdict.touches[0].rule) == ("deny", "ssh-remote-change")


def test_calls_under_the_cap_are_decided_as_before() -> None:
    under = "true;" * (MAX_SEGMENTS - 1) + CHANGE  # exactly 200 segments
    verdict = bash(under, live("block"))
    assert (verdict.decision, verdict.touches[0].rule) == ("deny", "ssh-remote-change")
    assert bash("true;" * 100 + "ssh prod-alias uptime", live("block")).decision == "allow"


# --- a custom pattern the engine lets run past the time limit ----------------------------------


def test_a_slow_validated_pattern_counts_as_matched_and_is_logged_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """a++b on 4000 a's: possessive, validated, and milliseconds of real work at every start
    position. A clock 1000× fast puts that work over the 20 ms limit on any machine; the
    engine's own timeout (20 ms of real time) leaves the call alone and answers no match."""
    assert safe_regex.problem("a++b") is None
    safe_regex._last_logged.clear()
    monkeypatch.setattr(safe_regex, "cpu_clock", lambda: time.thread_time() * 1000)
    stand = live("block", patterns=({"id": "possessive", "change": "a++b"},))
    with caplog.at_level(logging.WARNING, logger="relaybay.policy"):
        verdicts = [bash("ssh prod-alias cat " + "a" * 4000, stand) for _ in range(2)]
    for verdict in verdicts:
        assert (verdict.decision, verdict.touches[0].rule) == ("deny", "possessive")
    logged = [r for r in caplog.records if "possessive" in r.getMessage()]
    assert len(logged) == 1
    assert "treated as matched (fail closed)" in logged[0].getMessage()
    safe_regex._last_logged.clear()
