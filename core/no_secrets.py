"""The database's last line against a secret at rest (§9.9: no secrets at rest).

Every service hands what it stores to the write door first (environments/secret_door.py),
which names the field and follows the policy. This is the line behind it, for the field a
service forgot: every INSERT, UPDATE or REPLACE the database runs (`core/sqlite/base.py`)
has its text values read by the token scan the detectors' app registers, and a value
holding a token shape that no door let through refuses the write — the transaction rolls
back and nothing is stored. Token shapes only (a GitHub key, a JWT …): they cannot be
prose, so no stored text can hold one by accident.

A finding the policy lets through (secrets.disable, secrets.allow, a test secret on a test
stand) is told to this module by the door (`let_through`) for the rest of that transaction:
the connection forgets it when the transaction commits or rolls back (`forget_allowed`,
called by core/sqlite/base.py), so a token allowed for one write is not allowed for the
next. core imports no app: the scan is registered.

This is a net, not a trap: what relaybay observes (hook payloads, transcripts) is masked
before it is stored (environments.secrets.safe_text), so a refusal here inside a hook's
bookkeeping is a bug, which the hook logs while its answer still goes out.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from core.errors import SecretRefused

# (detector id, the token found) for every token shape in a text
Scan = Callable[[str], Iterable[tuple[str, str]]]

_scans: list[Scan] = []
_LET_THROUGH_MAX = 256  # tokens a thread remembers (oldest forgotten first)
_local = threading.local()
_WRITES = ("INSERT", "UPDATE", "REPLACE")
_INSERT_COLUMNS = re.compile(r'^\s*(?:INSERT|REPLACE)[^(]*?"(\w+)"\s*\(([^)]*)\)', re.I)
_UPDATE_TABLE = re.compile(r'^\s*UPDATE\s+"?(\w+)"?\s+SET\s', re.I)
_SET_COLUMN = re.compile(r'"(\w+)"\s*=\s*(?:%s|\?)')


def register_scan(scan: Scan) -> None:
    """The detectors' app plugs its token scan in (idempotent)."""
    if scan not in _scans:
        _scans.append(scan)


def let_through(tokens: Iterable[str]) -> None:
    """Tokens the door's policy allows in this thread's writes (case-insensitive)."""
    kept: OrderedDict[str, None] = _kept()
    for token in tokens:
        kept[token.lower()] = None
        kept.move_to_end(token.lower())
    while len(kept) > _LET_THROUGH_MAX:
        kept.popitem(last=False)


def forget_allowed() -> None:
    """The transaction ended: what the door let through was for it alone."""
    kept = getattr(_local, "kept", None)
    if kept:
        kept.clear()


def check_write(sql: str, params: Sequence[Any] | Any) -> None:
    """Refuse a writing statement whose text values hold a token shape; reads pass."""
    if not _scans or not params or not sql.lstrip()[:7].upper().startswith(_WRITES):
        return
    values = params.values() if isinstance(params, dict) else params
    for index, value in enumerate(values):
        if type(value) is not str or not value:
            continue
        for detector, token in _tokens(value):
            if token.lower() not in _kept():
                raise SecretRefused(
                    "value",
                    f"Refused: {_column(sql, index)} looks like it contains a secret value "
                    f"({detector}). Nothing was written: keep the secret where it lives and "
                    "write where to find it (a vault path, an environment variable name).",
                    token,
                )


def kept_typed(exc: Exception | None, typed: str) -> str:
    """What a refused form shows again of a typed text: all of it, with the refused secret
    and every token shape masked, whatever the refusal was about (a one-line title, broken
    JSON): a page never says a secret back."""
    return masked(exc.hide(typed) if isinstance(exc, SecretRefused) else typed)


def holds_token(text: str) -> bool:
    """Whether the text has a token shape the database would refuse: a caller that may drop
    a value (a path seen in a hook) leaves it out instead of failing the write."""
    return next(iter(_tokens(text)), None) is not None


def masked(text: str) -> str:
    """The text with every token shape replaced by ***: what a refusal may say back."""
    for token in sorted({t for _, t in _tokens(text)}, key=len, reverse=True):
        text = text.replace(token, "***")
    return text


def _tokens(value: str) -> Iterator[tuple[str, str]]:
    for scan in _scans:
        yield from scan(value)


def _kept() -> OrderedDict[str, None]:
    kept = getattr(_local, "kept", None)
    if kept is None:
        kept = _local.kept = OrderedDict()
    return kept


def _column(sql: str, index: int) -> str:
    """A readable name of the column a value goes to ("task title"), else "a value"."""
    if match := _INSERT_COLUMNS.match(sql):
        columns = [c.strip().strip('"') for c in match.group(2).split(",")]
        return _readable(match.group(1), columns[index % len(columns)] if columns else "")
    if match := _UPDATE_TABLE.match(sql):
        columns = _SET_COLUMN.findall(sql)
        if index < len(columns):
            return _readable(match.group(1), columns[index])
    return "a value"


def _readable(table: str, column: str) -> str:
    """agent_sessions_session + title → "session title"."""
    name = table.rsplit("_", 1)[-1] if "_" in table else table
    return f"{name} {column}".strip()
