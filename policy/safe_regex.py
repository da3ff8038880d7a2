"""The one place a policy's own regular expressions are checked and run (§7 Validation).

Guard patterns (`command`, `change`) and secret allow-patterns (`secrets.allow`) are
written by the owner or proposed by an agent, and they run inside the PreToolUse hook of
every tool call. So validation refuses any pattern that could backtrack for long, and
every run-time call has a hard time limit that fails closed. The guard, the secret checks
and validation all call this module, so the limit lives once.
"""

from __future__ import annotations

import functools
import logging
import time

import regex

MAX_LENGTH = 200  # characters
MAX_UNBOUNDED = 2  # *, +, {n,} (a lazy or possessive suffix does not count again)
PROBE_BUDGET = 0.050  # seconds for all hostile probes of one pattern together
RUN_LIMIT = 0.020  # seconds per call at run time
MAX_INPUT = 8192  # characters a run-time call sees
FLAGS = regex.IGNORECASE | regex.VERSION0
PROBE_SIZE = 4096

log = logging.getLogger("relaybay.policy")


def problem(pattern: str) -> str | None:
    """None when the pattern is safe to store; else what is wrong, as a sentence fragment
    the caller prefixes with the layer, the path and the pattern id."""
    return static_problem(pattern) or _probe_problem(pattern)


def static_problem(pattern: str) -> str | None:
    """The checks that need no timing: length, compiling, structure."""
    if len(pattern) > MAX_LENGTH:
        return f"is {len(pattern)} characters long (at most {MAX_LENGTH})"
    try:
        regex.compile(pattern, FLAGS)
    except (regex.error, ValueError, OverflowError) as exc:
        return f"does not compile: {exc}"
    try:
        shape = _scan(pattern)
    except _Unsafe as exc:
        return str(exc)
    if shape.unbounded > MAX_UNBOUNDED:
        return f"has {shape.unbounded} unbounded quantifiers (at most {MAX_UNBOUNDED})"
    return None


@functools.lru_cache(maxsize=512)
def compiled(pattern: str) -> regex.Pattern[str] | None:
    """Cached compile with FLAGS; None when it does not compile."""
    try:
        return regex.compile(pattern, FLAGS)
    except (regex.error, ValueError, OverflowError):
        return None


def search(pattern: str, text: str, *, pattern_id: str, on_timeout: bool) -> bool:
    """Does the pattern occur in the first MAX_INPUT characters of text?

    A call over RUN_LIMIT returns on_timeout — fail closed: the guard passes True (the
    call looks like a change), an allow check False (nothing is allowed) — and is logged
    at most once a minute per pattern; the pattern stays on for the next call. A pattern
    that does not compile (a stored layer that skipped validation) is skipped: False.
    """
    return _run(pattern, text, pattern_id=pattern_id, on_timeout=on_timeout, whole=False)


def fullmatch(pattern: str, text: str, *, pattern_id: str, on_timeout: bool) -> bool:
    """Like search, but the pattern must match the whole text (allow patterns)."""
    return _run(pattern, text, pattern_id=pattern_id, on_timeout=on_timeout, whole=True)


# --- run time ---------------------------------------------------------------------------------

_last_logged: dict[tuple[str, str], float] = {}


def _run(pattern: str, text: str, *, pattern_id: str, on_timeout: bool, whole: bool) -> bool:
    compiled_pattern = compiled(pattern)
    if compiled_pattern is None:
        _log_once(pattern_id, "does not compile and is skipped")
        return False
    find = compiled_pattern.fullmatch if whole else compiled_pattern.search
    try:
        return find(text[:MAX_INPUT], timeout=RUN_LIMIT) is not None
    except TimeoutError:
        outcome = "counts as matched" if on_timeout else "does not allow"
        _log_once(pattern_id, f"took over {RUN_LIMIT * 1000:.0f} ms and {outcome}")
        return on_timeout


def _log_once(pattern_id: str, what: str) -> None:
    now = time.monotonic()
    key = (pattern_id, what)
    last = _last_logged.get(key)
    if last is not None and now - last < 60:
        return
    if len(_last_logged) > 1000:
        for old in [k for k, t in _last_logged.items() if now - t >= 60]:
            del _last_logged[old]
    _last_logged[key] = now
    log.warning("policy pattern %s %s", pattern_id, what)


# --- the hostile probes -------------------------------------------------------------------------


def _probe_problem(pattern: str) -> str | None:
    compiled_pattern = compiled(pattern)
    if compiled_pattern is None:  # static_problem ran first; kept for direct callers
        return "does not compile"
    deadline = time.perf_counter() + PROBE_BUDGET
    for probe in _probes(pattern):
        left = deadline - time.perf_counter()
        try:
            if left <= 0:
                raise TimeoutError
            compiled_pattern.search(probe, timeout=left)
        except TimeoutError:
            budget = PROBE_BUDGET * 1000
            return (
                f"is too slow on a hostile 4 KB input (over {budget:.0f} ms for the probes); "
                "simplify it"
            )
    return None


def _probes(pattern: str) -> list[str]:
    """4 KB inputs that make backtracking patterns slow: long runs of one character the
    pattern may match, ended by one that breaks the match, and a few mixes."""
    singles = dict.fromkeys(c for c in pattern.lower() if c.isalnum() or c in " -_./:=@")
    singles.update(dict.fromkeys("a0 -/.x"))
    probes = []
    for char in list(singles)[:24]:
        probes.append(char * (PROBE_SIZE - 1) + "!")
        probes.append(char * (PROBE_SIZE - 1) + "\x00")
    probes += [
        "ab" * (PROBE_SIZE // 2),
        "a " * (PROBE_SIZE // 2),
        "a=" * (PROBE_SIZE // 2),
        "-a" * (PROBE_SIZE // 2),
        ("x" * 63 + "\n") * (PROBE_SIZE // 64),
    ]
    return probes


# --- the structure scan -------------------------------------------------------------------------


class _Unsafe(Exception):
    """A structure validation refuses; the message is the sentence fragment."""


class _Shape:
    def __init__(self) -> None:
        self.unbounded = 0


class _Group:
    def __init__(self) -> None:
        self.quantified = False  # holds a quantifier at any depth
        self.alternation = False  # holds a | at any depth


_BACKREF_DIGIT = regex.compile(r"\\([1-9][0-9]?)")


def _scan(pattern: str) -> _Shape:
    """Walk the pattern once: escapes and classes are atoms, groups nest, quantifiers are
    counted and checked against the group they repeat."""
    shape = _Shape()
    stack: list[_Group] = [_Group()]
    i, n = 0, len(pattern)
    last_atom_group: _Group | None = None  # the group that just closed, if the atom is one
    while i < n:
        c = pattern[i]
        if c == "\\":
            i = _escape(pattern, i)
            last_atom_group = None
        elif c == "[":
            i = _class_end(pattern, i)
            last_atom_group = None
        elif c == "(":
            i = _group_open(pattern, i)
            stack.append(_Group())
            last_atom_group = None
        elif c == ")":
            closed = stack.pop() if len(stack) > 1 else _Group()
            parent = stack[-1]
            parent.quantified |= closed.quantified
            parent.alternation |= closed.alternation
            last_atom_group = closed
            i += 1
        elif c == "|":
            stack[-1].alternation = True
            last_atom_group = None
            i += 1
        elif c in "*+?{" and (quantifier := _quantifier(pattern, i)) is not None:
            end, repeats, unbounded = quantifier
            shape.unbounded += unbounded
            if repeats and last_atom_group is not None:
                _check_repeated(last_atom_group)
            stack[-1].quantified = True
            last_atom_group = None
            i = end
        else:  # a literal, including a { that is not a quantifier
            last_atom_group = None
            i += 1
    return shape


def _check_repeated(group: _Group) -> None:
    if group.quantified:
        raise _Unsafe("repeats a group that holds a quantifier, as (a+)+ does")
    if group.alternation:
        raise _Unsafe("repeats a group that holds an alternation, as (a|aa)* does")


def _escape(pattern: str, i: int) -> int:
    """The end of the escape at i; refuses back-references (\\1, \\g<…>, \\k<…>)."""
    nxt = pattern[i + 1 : i + 2]
    if match := _BACKREF_DIGIT.match(pattern, i):
        raise _Unsafe(f"uses a back-reference ({match.group(0)})")
    if nxt in ("g", "k") and pattern[i + 2 : i + 3] in ("<", "{", "'"):
        close = {"<": ">", "{": "}", "'": "'"}[pattern[i + 2]]
        end = pattern.find(close, i + 3)
        ref = pattern[i : end + 1 if end != -1 else len(pattern)]
        raise _Unsafe(f"uses a back-reference ({ref})")
    if nxt in ("p", "P", "x", "N", "u", "U") and pattern[i + 2 : i + 3] == "{":
        end = pattern.find("}", i + 3)
        return end + 1 if end != -1 else len(pattern)
    return i + 2


def _class_end(pattern: str, i: int) -> int:
    """The index after the character class starting at i ([]a], [^]a], [[:alpha:]])."""
    j = i + 1
    if pattern[j : j + 1] == "^":
        j += 1
    if pattern[j : j + 1] == "]":
        j += 1
    depth = 1
    while j < len(pattern):
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if c == "[" and pattern[j + 1 : j + 2] == ":":
            end = pattern.find(":]", j + 2)
            if end != -1:
                j = end + 2
                continue
        if c == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(pattern)


def _group_open(pattern: str, i: int) -> int:
    """The index after a group's opening: (, (?:, (?i:, (?P<n>, lookarounds, (?P=n)."""
    if pattern.startswith("(?P=", i):
        end = pattern.find(")", i)
        raise _Unsafe(f"uses a back-reference ({pattern[i : end + 1]})")
    if pattern.startswith("(?#", i):  # a comment: skip it whole, as a group that holds nothing
        end = pattern.find(")", i)
        return end if end != -1 else len(pattern)
    if not pattern.startswith("(?", i):
        return i + 1
    match = _GROUP_HEAD.match(pattern, i)
    return match.end() if match else i + 2


# What follows "(?" before a group's content: a name, a lookaround, or inline flags.
_GROUP_HEAD = regex.compile(r"\(\?(?:P?<[^>=!]*>|<[=!]|[=!:>|]|[a-zA-Z0-9\-^]*:?)")


def _quantifier(pattern: str, i: int) -> tuple[int, bool, bool] | None:
    """(end, repeats more than once, unbounded) of the quantifier at i, or None."""
    c = pattern[i]
    if c == "{":
        match = regex.match(r"\{(\d*)(,?)(\d*)\}", pattern[i:])
        if match is None or (not match.group(1) and not match.group(3)):
            return None
        low, comma, high = match.groups()
        end = i + match.end()
        unbounded = bool(comma) and not high
        repeats = unbounded or (int(high or low or 0) >= 2)
    else:
        end = i + 1
        unbounded = c in "*+"
        repeats = unbounded
    if pattern[end : end + 1] in ("?", "+"):  # lazy or possessive: the same quantifier
        end += 1
    return end, repeats, unbounded
