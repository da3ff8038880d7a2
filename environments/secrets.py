"""The secret checks of relaybay's writes, its memory and its journal (§7 Access map).

relaybay never stores a secret, only where it lives. One table of detectors
(environments/secret_spots.py, under the ids of policy/catalog.py) serves three callers:

- check_fields — the writes of environments, access entries and proposals: a field whose
  name says it holds a secret must hold a reference, a user or login field must not hold
  user:password, and every field is scanned like free text;
- scan_text — the memory's secret scan of notes, documents and titles: the value detectors;
- mask — the guard's journal: every spot of the table masked, whatever the policy switches
  off, and every stored test secret value, whatever its length.

The checks follow the policy (secrets.disable switches a detector off; a value, or a
detected secret, that a secrets.allow pattern matches whole passes; a reference as a whole
always passes). A refusal names the field and the detector, never the value. These are
pattern checks: a secret in an unusual shape, such as plain prose, can pass.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import regex

from environments.secret_spots import SECRET_SPOTS, WINDOW, is_reference, points_elsewhere
from policy import safe_regex
from policy.catalog import SECRET_DETECTOR_IDS, TOKEN_DETECTOR_IDS

if TYPE_CHECKING:
    from policy.merge import Merged

__all__ = [
    "Finding",
    "SecretsPolicy",
    "check_fields",
    "find",
    "is_reference",
    "mask",
    "mask_findings",
    "names_secret",
    "names_user",
    "safe_text",
    "scan_text",
    "user_password_masked",
]

MASK = "***"
# Everything but the token shapes: what a text-only check leaves out.
NOT_TOKENS = frozenset(SECRET_DETECTOR_IDS) - frozenset(TOKEN_DETECTOR_IDS)
JOURNAL_LIMIT = 200  # characters of a command the journal keeps (§7 Journal)
_OVERLAP = 4096  # long texts are scanned in windows this much apart, so a boundary hides nothing
_ALLOW_BUDGET = 0.25  # seconds the allow patterns of one call may take together

# The field-name rules (§7): what a field's name says it holds.
_SECRET_NAME = regex.compile(r"(?i)pass|pwd|token|secret|key|credential|private")
_USER_NAME = regex.compile(r"(?i)user|login")
_USER_PASSWORD = regex.compile(
    r"""(?<![^\s'"])(?P<user>[^\s:/'"]++):(?P<secret>[^\s/'"][^\s'"]*+)"""
)


@dataclass(frozen=True)
class SecretsPolicy:
    """The policy's say over the checks (never over mask)."""

    disabled: frozenset[str] = frozenset()  # detector ids switched off (secrets.disable)
    allow: tuple[str, ...] = ()  # regexes; a value matched WHOLE passes (secrets.allow)

    @classmethod
    def of(cls, merged: Merged) -> SecretsPolicy:
        """From an effective policy: secrets.disable and secrets.allow."""
        disabled = merged.get("secrets.disable")
        allow = merged.get("secrets.allow")
        return cls(
            disabled=frozenset(d for d in disabled or () if isinstance(d, str)),
            allow=tuple(p for p in allow or () if isinstance(p, str)),
        )


@dataclass(frozen=True)
class Finding:
    """A secret found in one field: the detector and where its value sits."""

    field: str  # the field name ("notes", "password", "text" …)
    detector: str  # an id of policy.catalog.SECRET_DETECTOR_IDS
    start: int  # span of the secret value inside the field's text (what masking replaces)
    end: int

    def message(self) -> str:
        """The refusal: the field and the detector, never the value."""
        if self.detector == "secret-field":
            return (
                f"{self.field} must be a reference — a path, an environment variable name "
                "or a vault path — not the value (secret-field)"
            )
        if self.detector == "user-password":
            return f"{self.field} holds user:password (user-password)"
        return f"{self.field} looks like it contains a secret value ({self.detector})"


def check_fields(
    fields: Mapping[str, str], policy: SecretsPolicy = SecretsPolicy()
) -> list[Finding]:
    """Field-name rules + every value detector on every field (writes of environments,
    access entries, proposals). Empty when the write may go ahead."""
    allowed = _Allowed(policy.allow)
    findings: list[Finding] = []
    for name, value in fields.items():
        findings += _find(value, name, name, policy.disabled, allowed)
    return findings


def has_name_rules(name: str) -> bool:
    """Does a field's name make the field-name rules apply (a secret or a user field)?"""
    return bool(_SECRET_NAME.search(name) or _USER_NAME.search(name))


def names_user(name: str) -> bool:
    """Does a field's name say it holds a user or login (which must hold no user:password)?"""
    return _USER_NAME.search(name) is not None


def user_password_masked(value: str) -> str:
    """A user or login value with the password of every user:password in it masked, the
    user kept (admin:***): what the journal shows of a value under such a key."""

    def masked(match: regex.Match[str]) -> str:
        if points_elsewhere(match.group("secret")):
            return match.group(0)
        return f"{match.group('user')}:{MASK}"

    return _USER_PASSWORD.sub(masked, value)


def names_secret(name: str) -> bool:
    """Does a field's name say its value is a secret (password, api_key, token …), so that
    the value must be a reference (the secret-field rule)?"""
    return _SECRET_NAME.search(name) is not None


def scan_text(
    text: str, *, field: str = "text", policy: SecretsPolicy = SecretsPolicy()
) -> list[Finding]:
    """Value detectors only (the memory's notes, documents, titles …)."""
    return _find(text, field, None, policy.disabled, _Allowed(policy.allow))


def find(
    text: str,
    *,
    field: str,
    policy: SecretsPolicy = SecretsPolicy(),
    name: str | None = None,
    tokens_only: bool = False,
) -> list[Finding]:
    """One text as the write door sees it: `name` is the key it is stored under (its
    field-name rules apply), `tokens_only` keeps to the shapes that cannot be prose — which
    are secrets inside a path too, so a reference as a whole passes only the other checks."""
    allowed = _Allowed(policy.allow)
    if not tokens_only:
        return _find(text, field, name, policy.disabled, allowed)
    if not text or allowed(text.strip()):
        return []
    return _scan(text, field, policy.disabled | NOT_TOKENS, allowed)


def mask(command: str, *, test_values: Iterable[str] = ()) -> str:
    """The journal's copy of a command (§7 Journal): every test value masked whatever its
    length, whitespace collapsed, every spot of every detector masked with *** (quoted
    values whole, the quotes kept: PGPASSWORD='***', mysql -p'***', sshpass -p ***,
    curl -u admin:***), cut at 200 characters. Ignores the policy."""
    values = {v for v in test_values if v}
    text = " ".join(_mask_values(command, values).split())
    if len(text) > WINDOW:  # only the start is kept; drop the word the cut may have split
        text = text[:WINDOW].rsplit(" ", 1)[0]
    collapsed = {" ".join(v.split()) for v in values} - values - {""}
    return _mask_spots(_mask_values(text, collapsed))[:JOURNAL_LIMIT]


def safe_text(text: str, *, test_values: Iterable[str] = ()) -> str:
    """What relaybay may keep of a text it observed (a hook's cwd, a session id, a message,
    a todo subject, a touched path …): every test value and every spot of every detector
    masked with ***, exactly as the journal masks (keys and name=value assignments
    included), the rest kept as it was. Observations are masked, never refused, so storing
    one can never fail and never stop a hook's answer (docs/policy.md). Ignores the policy.

    Most observations hold nothing any detector could find: one search for the characters
    and words every spot needs answers those."""
    if not text:
        return text
    values = {v for v in test_values if v}
    if values:
        text = _mask_values(text, values)
    if not _may_hold_secret(text):
        return text
    return _mask_spots(text)


# Whatever any spot of the table needs to find something: a token's first letters, an
# assignment's = or a prose name's :, a URL's @, an option's dash, a scheme word. A text
# without any of them holds no secret the table can find (tests/sessions/test_observed.py
# holds this against the token corpus).
_MAY_HOLD_SECRET = re.compile(
    r"[=:@]|--|(?<![\w\-])-[upa]|-----BEGIN|gh[pousr]_|github_pat_|gl[a-z]{2,4}-|xox[a-z]-"
    r"|xapp-|sk[-_]|[rp]k_|AKIA|ASIA|A3T|ABIA|ACCA|eyJ|AIza"
)
# The scheme words, in any case: looked for in the text lowercased (a case-insensitive part
# in the search above made it four times slower).
_MAY_HOLD_WORD = re.compile(r"bearer|basic|token|digest|sshpass|authorization")


def _may_hold_secret(text: str) -> bool:
    return bool(_MAY_HOLD_SECRET.search(text) or _MAY_HOLD_WORD.search(text.lower()))


def _mask_spots(text: str) -> str:
    """Every spot of every detector in the text replaced by ***."""
    return _mask_spans(text, ((start, end) for _, start, end in _hits(text, frozenset())))


def mask_findings(text: str, findings: Iterable[Finding]) -> str:
    """The text with every finding's secret replaced by ***, overlapping ones as one: what a
    refusal or a log line may say back of a text the checks found secrets in."""
    return _mask_spans(text, ((f.start, f.end) for f in findings))


def _mask_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    merged = _merged(spans)
    pieces, at = [], 0
    for start, end in merged:
        pieces += [text[at:start], MASK]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


# --- the steps ------------------------------------------------------------------------------


class _Allowed:
    """secrets.allow for one call: a pattern must match a value whole within safe_regex's
    time limit (a slow pattern does not allow: fail closed), and all of them together
    within _ALLOW_BUDGET, so a hostile text with thousands of candidates stays fast."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.patterns = patterns
        self.seen: dict[str, bool] = {}
        self.deadline = time.monotonic() + _ALLOW_BUDGET

    def __call__(self, value: str) -> bool:
        # safe_regex cuts its input at MAX_INPUT: a longer value could match by its start.
        if not self.patterns or not value or len(value) > safe_regex.MAX_INPUT:
            return False
        if value not in self.seen:
            self.seen[value] = any(
                time.monotonic() < self.deadline
                and safe_regex.fullmatch(
                    pattern, value, pattern_id=f"secrets.allow[{i}]", on_timeout=False
                )
                for i, pattern in enumerate(self.patterns)
            )
        return self.seen[value]


def _find(
    value: str, field: str, name: str | None, disabled: frozenset[str], allowed: _Allowed
) -> list[Finding]:
    if not value or _passes_whole(value, allowed):
        return []
    found = list(_field_rules(field, name, value, disabled, allowed)) if name is not None else []
    return found + _scan(value, field, disabled, allowed)


def _passes_whole(value: str, allowed: _Allowed) -> bool:
    """A reference as a whole, or a value an allow pattern matches whole, always passes."""
    stripped = value.strip()
    return not stripped or is_reference(stripped) or allowed(stripped)


def _field_rules(
    field: str, name: str, value: str, disabled: frozenset[str], allowed: _Allowed
) -> Iterator[Finding]:
    """What the field's name says: a secret field holds a reference (the caller passed only
    values that are none), a user field holds no user:password."""
    if "secret-field" not in disabled and _SECRET_NAME.search(name):
        start = len(value) - len(value.lstrip())
        yield Finding(field, "secret-field", start, len(value.rstrip()))
    if "user-password" not in disabled and _USER_NAME.search(name):
        for match in _USER_PASSWORD.finditer(value[:WINDOW]):
            secret = match.group("secret")
            if not points_elsewhere(secret) and not allowed(secret):
                yield Finding(field, "user-password", *match.span("secret"))


def _scan(text: str, field: str, disabled: frozenset[str], allowed: _Allowed) -> list[Finding]:
    return [
        Finding(field, detector, start, end)
        for detector, start, end in _distinct(_hits(text, disabled))
        if not allowed(text[start:end])
    ]


def _hits(text: str, disabled: frozenset[str]) -> Iterator[tuple[str, int, int]]:
    """(detector, start, end) of every secret value the table finds in the text."""
    windows = [
        (offset, text[offset : offset + WINDOW])
        for offset in range(0, max(len(text) - _OVERLAP, 1), WINDOW - _OVERLAP)
    ]
    for spot in SECRET_SPOTS:
        if spot.detector in disabled:
            continue
        if spot.context is not None and not any(spot.context.search(w) for _, w in windows):
            continue
        for offset, window in windows:
            for match in spot.pattern.finditer(window):
                span = _secret_span(match)
                if span is None:
                    continue
                if spot.place and points_elsewhere(window[span[0] : span[1]]):
                    continue
                if spot.accept is not None and not spot.accept(match):
                    continue
                yield spot.detector, offset + span[0], offset + span[1]


def _secret_span(match: regex.Match[str]) -> tuple[int, int] | None:
    """The group `secret` without the white space around it; None when it is empty."""
    start, end = match.span("secret")
    if start < 0:
        return None
    value = match.group("secret")
    start += len(value) - len(value.lstrip())
    end -= len(value) - len(value.rstrip())
    return (start, end) if start < end else None


def _distinct(hits: Iterable[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """One finding per secret and detector, in text order: windows overlap, and several
    spots of one detector can find the same value (Authorization: Bearer …)."""
    kept: list[tuple[str, int, int]] = []
    reach: dict[str, int] = {}
    for detector, start, end in sorted(hits, key=lambda h: (h[0], h[1], -h[2])):
        if reach.get(detector, -1) >= end:
            continue
        kept.append((detector, start, end))
        reach[detector] = end
    return sorted(kept, key=lambda h: (h[1], h[2], h[0]))


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching spans as one, so each secret becomes one ***."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _mask_values(text: str, values: Iterable[str]) -> str:
    """Every occurrence of every value, longest first, in one pass (so a mask is never
    masked again)."""
    ordered = sorted(values, key=len, reverse=True)
    if not ordered:
        return text
    return regex.sub("|".join(regex.escape(v) for v in ordered), MASK, text)
