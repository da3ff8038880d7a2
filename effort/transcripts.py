"""Transcript lines → counts: the neutral records every agent's transcript parser yields.

Each agent package's transcripts.py (registered with effort.readers) turns its own lines
into these. What comes out are numbers, a model name that passed a strict pattern, a
timestamp and a dedupe key that is hashed before it is stored — never text from the
transcript. Unknown line types and keys are skipped, as are lines whose numbers are not
numbers. The helpers below are the parsers' shared rules for those values.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import regex

_MODEL = regex.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+/\-\[\]]{0,99}")
UNKNOWN_MODEL = "unknown"
_MAX_TOKENS = 10**12  # more than any response: a number past it is not a count


@dataclass(frozen=True)
class Response:
    """One model response's token counts (normalised: `input` excludes cached tokens)."""

    key: int  # a 63-bit digest of the agent's response id
    at: datetime
    model: str
    input: int = 0
    output: int = 0
    cache_write: int = 0
    cache_read: int = 0
    reasoning: int = 0  # a part of output, told apart
    # A line the agent wrote itself, not a model's response (Claude Code's "<synthetic>"
    # line after an API error): never counted.
    synthetic: bool = False


@dataclass(frozen=True)
class TurnModel:
    """The model of the turn from here on, for an agent that names it once per turn (the
    reader keeps it in its cursor, across steps)."""

    name: str


@dataclass(frozen=True)
class ProcessTotal:
    """The agent's own cost of one process so far (Claude Code's `cost-state` line)."""

    started: int
    total_usd: float


def digest(agent: str, response_id: str) -> int:
    """63 bits of blake2b: the key of a response, stored instead of its id."""
    raw = hashlib.blake2b(f"{agent}\0{response_id}".encode(), digest_size=8).digest()
    return int.from_bytes(raw, "big") >> 1


def model_name(value: object) -> str:
    """The model as stored: a plain model name, else "unknown"."""
    if isinstance(value, str) and _MODEL.fullmatch(value):
        return value
    return UNKNOWN_MODEL


def timestamp(value: object) -> datetime | None:
    """An ISO timestamp as an aware UTC datetime; None when it is not one."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        found = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return found.astimezone(UTC) if found.tzinfo else found.replace(tzinfo=UTC)


def count(value: object) -> int:
    """A token count: a non-negative integer, anything else 0."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < _MAX_TOKENS:
        return 0
    return value


def mapping(value: object) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}
