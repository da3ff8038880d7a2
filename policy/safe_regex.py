"""The one place every policy regular expression goes through (§7).

Guard patterns (`command`, `change`) and secret allow-patterns (`secrets.allow`) come from
the owner or from an AI agent, and they run inside the latency-critical hook. So nothing
else in relaybay compiles or runs them: validation asks `problem()` before a pattern is
stored, and the guard and the secret checks call `search()` / `fullmatch()`, which hold
the time limit, the input cut, the fail-closed answer and the rate-limited log in one
place.

`problem()` refuses what is known to backtrack badly (a repeated group that holds a
quantifier or an alternation, back-references, too many unbounded quantifiers) with a
small scanner that reads the pattern the way the `regex` package does (regex_shape.py), then times
hostile 4 KB probes. Run time cannot trust that: a stored layer may skip validation and a
probe can miss a slow input, so every run-time call has a hard time limit as well. Nor is
the engine's own timeout a promise: `regex` checks it at some steps of a match only (a
possessive loop has been seen running past it to an ordinary "no match"), so _run()
measures each call itself and treats one that took over RUN_LIMIT as timed out, whatever
the engine answered.
"""

from __future__ import annotations

import functools
import itertools
import logging
import threading
import time
from typing import NamedTuple

import regex

from core import caches
from core.caches import kept
from policy.regex_shape import scan

MAX_LENGTH = 200  # characters
MAX_UNBOUNDED = 2  # *, +, {n,} (a lazy/possessive suffix does not count again)
PROBE_BUDGET = 0.050  # seconds for all hostile probes of one pattern together
RUN_LIMIT = 0.020  # seconds per call at run time
MAX_INPUT = 8192  # characters a run-time call sees (the rest is cut off)
FLAGS = regex.IGNORECASE | regex.VERSION0
# What a run-time call's time is measured in: this thread's CPU time, as the probes'. On a
# busy machine the wall clock also counts the time the thread waits for a CPU, and would
# fail a harmless pattern closed whenever another process runs (~0.6 µs a reading).
cpu_clock = time.thread_time

log = logging.getLogger("relaybay.policy")

LOG_EVERY = 60.0  # seconds: one warning per pattern id and reason at most this often
LOG_MEMORY = 1000  # remembered (pattern id, reason) pairs before old ones are forgotten


def problem(pattern: str) -> str | None:
    """None when the pattern is safe to store; else one short sentence fragment saying
    what is wrong (the caller prefixes the layer, the path and the pattern id). Checks in
    this order, first problem wins: length, compiles, back-references (and group calls
    and fuzzy matching, which hide work from the other checks the same way), a repeated
    group holding a quantifier or an alternation, too many unbounded quantifiers, and
    last the timed hostile probes."""
    if len(pattern) > MAX_LENGTH:
        return f"is {len(pattern)} characters long (at most {MAX_LENGTH})"
    try:
        pattern_object = regex.compile(pattern, FLAGS)
    except Exception as exc:  # regex.error, ValueError for conflicting flags, or worse
        return f"does not compile: {exc}"
    shape = scan(pattern)
    if shape.reference:
        return shape.reference
    if shape.repeated:
        return f"repeats a group that holds {shape.repeated}"
    if shape.unbounded > MAX_UNBOUNDED:
        return f"has {shape.unbounded} unbounded quantifiers (at most {MAX_UNBOUNDED})"
    if not _probes_pass(pattern_object, _probes(pattern)):
        return (
            "is too slow on a hostile 4 KB input (over "
            f"{PROBE_BUDGET * 1000:.0f} ms for the probes); simplify it"
        )
    return None


@kept("a pattern's text")
@functools.lru_cache(maxsize=512)
def compiled(pattern: str) -> regex.Pattern | None:
    """The pattern compiled with FLAGS, cached; None when it does not compile."""
    try:
        return regex.compile(pattern, FLAGS)
    except Exception:  # the run-time side never raises; validation reports the reason
        return None


class Outcome(NamedTuple):
    """One run-time call: its answer, and whether that answer is the fail-closed one."""

    found: bool
    timed_out: bool  # over RUN_LIMIT (or failed): `found` is on_timeout


# The four answers, made once: the guard asks for one on every pattern of every call.
_ANSWERS = {(f, t): Outcome(f, t) for f in (True, False) for t in (True, False)}


def search(pattern: str, text: str, *, pattern_id: str, on_timeout: bool) -> bool:
    """Does the pattern occur in text[:MAX_INPUT]? A call over RUN_LIMIT of CPU time —
    stopped by the engine or not — returns on_timeout (fail closed: the guard passes True,
    an allow check passes False) and logs a warning naming pattern_id at most once a minute
    per pattern_id; the pattern stays on for the next call. A pattern that does not compile
    returns False (skipped) and logs at most once a minute per pattern_id. Never raises."""
    return _run("search", pattern, text, pattern_id, on_timeout).found


def search_outcome(pattern: str, text: str, *, pattern_id: str, on_timeout: bool) -> Outcome:
    """search(), saying whether the call timed out: the guard counts a slow pattern as
    matched once per call instead of paying the time limit again for every segment."""
    return _run("search", pattern, text, pattern_id, on_timeout)


def fullmatch(pattern: str, text: str, *, pattern_id: str, on_timeout: bool) -> bool:
    """Same as search(), but the pattern must match the whole text (allow patterns match a
    value whole). A text over MAX_INPUT cannot be checked whole within the limits, so it
    gets on_timeout too: cutting it would let an allow pattern pass a value whose tail it
    never saw."""
    return _run("fullmatch", pattern, text, pattern_id, on_timeout).found


def _run(how: str, pattern: str, text: str, pattern_id: str, on_timeout: bool) -> Outcome:
    pattern_object = compiled(pattern) if isinstance(pattern, str) else None
    if pattern_object is None:
        _warn(pattern_id, "compile", "policy pattern %r does not compile; skipped", pattern_id)
        return _ANSWERS[False, False]
    closed = _ANSWERS[bool(on_timeout), True]
    try:
        if how == "fullmatch" and len(text) > MAX_INPUT:
            _warn(
                pattern_id,
                "long",
                "policy pattern %r: a value over %d characters cannot be matched whole; "
                "treated as %s (fail closed)",
                pattern_id,
                MAX_INPUT,
                _verdict(on_timeout),
            )
            return closed
        run = pattern_object.fullmatch if how == "fullmatch" else pattern_object.search
        began = cpu_clock()
        found = run(text[:MAX_INPUT], timeout=RUN_LIMIT) is not None
        if cpu_clock() - began <= RUN_LIMIT:
            return _ANSWERS[found, False]
        raise TimeoutError  # the engine ran past its limit: the same answer as if it stopped
    except TimeoutError:
        _warn(
            pattern_id,
            "timeout",
            "policy pattern %r took over %d ms; treated as %s (fail closed), it stays on",
            pattern_id,
            round(RUN_LIMIT * 1000),
            _verdict(on_timeout),
        )
    except Exception:  # a bug here must not break the hook: fail closed and say so
        _warn(
            pattern_id,
            "error",
            "policy pattern %r failed; treated as %s (fail closed)",
            pattern_id,
            _verdict(on_timeout),
            exc_info=True,
        )
    return closed


def _verdict(on_timeout: bool) -> str:
    return "matched" if on_timeout else "not matched"


# --- the once-a-minute log --------------------------------------------------------------

_last_logged: dict[tuple[str, str], float] = {}
_log_lock = threading.Lock()
caches.register(
    "policy.safe_regex._last_logged",
    key="(pattern id, reason) → when last logged",
    bound=LOG_MEMORY,
    invalidation="older than LOG_EVERY (60 s) when full; all when every one is recent",
    reset="none needed",
)


def _warn(
    pattern_id: str, reason: str, message: str, *args: object, exc_info: bool = False
) -> None:
    """log.warning, at most once per LOG_EVERY for each (pattern id, reason)."""
    now = time.monotonic()
    key = (str(pattern_id), reason)
    with _log_lock:
        last = _last_logged.get(key)
        if last is not None and now - last < LOG_EVERY:
            return
        if len(_last_logged) >= LOG_MEMORY:
            for old in [k for k, at in _last_logged.items() if now - at >= LOG_EVERY]:
                del _last_logged[old]
            if len(_last_logged) >= LOG_MEMORY:  # that many live ids: start afresh
                _last_logged.clear()
        _last_logged[key] = now
    log.warning(message, *args, exc_info=exc_info)


# --- the hostile probes -------------------------------------------------------------------

PROBE_LENGTH = 4096
PROBE_CHARS = "a0 -/.x"  # always tried, besides the pattern's own characters
BREAKERS = ("!", "\x00")  # appended so that an anchored or greedy match has to give up
ESCAPE_SAMPLES = {"d": "0", "w": "a_", "s": " \t\n", "D": "a", "W": "!", "S": "a", "h": " "}
MAX_PROBE_CHARS = 40
META = frozenset("\\()[]{}|*+?^$")


def _probes(pattern: str) -> list[str]:
    """4 KB inputs built to make a pattern backtrack: each of its characters repeated then
    broken, pairs of them alternating, and its literal text over and over."""
    chars = _probe_chars(pattern)
    body = PROBE_LENGTH - 1
    probes = [char * body + breaker for char in chars for breaker in BREAKERS]
    probes += [(a + b) * (body // 2) + "!" for a, b in itertools.pairwise(chars)]
    probes.append("ab" * (body // 2) + "!")
    literal = "".join(char for char in pattern if char not in META) or "a"
    probes.append((literal * (body // len(literal) + 1))[:body] + "!")
    probes.append(("a" * 64 + " ") * (body // 65) + "!")
    return probes


def _probe_chars(pattern: str) -> list[str]:
    """The pattern's literal characters and samples of its escapes (\\d, \\s, ...), then
    PROBE_CHARS; lower case, since the patterns run case-insensitively."""
    chars: dict[str, None] = {}
    escaped = False
    for char in pattern:
        if escaped:
            chars.update(dict.fromkeys(ESCAPE_SAMPLES.get(char, char)))
            escaped = False
        elif char == "\\":
            escaped = True
        elif char not in META:
            lower = char.lower()
            chars[lower if len(lower) == 1 else char] = None  # "İ".lower() is two
    own = list(chars)[:MAX_PROBE_CHARS]
    return own + [char for char in PROBE_CHARS if char not in own]


def _probes_pass(pattern_object: regex.Pattern, probes: list[str]) -> bool:
    """All probes, with search and with fullmatch, inside PROBE_BUDGET together.

    The budget is this thread's CPU time, not the wall clock: the engine's own timeout
    counts CPU time (the process's), and a wall clock would refuse an innocent pattern
    whenever the machine is busy. A negative timeout would mean no limit, so stop at zero.
    """
    deadline = time.thread_time() + PROBE_BUDGET
    for probe in probes:
        for run in (pattern_object.search, pattern_object.fullmatch):
            remaining = deadline - time.thread_time()
            if remaining <= 0:
                return False
            try:
                run(probe, timeout=remaining)
            except TimeoutError:
                return False
    return time.thread_time() <= deadline
