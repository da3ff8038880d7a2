"""Reading an agent's hook input: small readers every adapter uses, so each adapter module
holds only what its agent means (its keys, names and quirks), not how JSON is read. No
agent's keys or tool names live here (agents/<agent>/)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def text(payload: Mapping[str, Any], key: str) -> str:
    """A string field, or "" when it is missing or not a string."""
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def mapping(payload: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """An object field, or {} when it is missing or not an object."""
    value = payload.get(key)
    return value if isinstance(value, Mapping) else {}


def first_line(value: str) -> str:
    """The first non-empty line, without a markdown heading's #."""
    for line in value.splitlines():
        if line := line.strip().lstrip("#").strip():
            return line
    return ""
