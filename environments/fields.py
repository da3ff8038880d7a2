"""The value rules of environments and access entries (§7), once, for services and forms.

Forms and tools only parse; these functions decide what a value may be and say what to do
when it may not (InvalidField names the field). A refusal names the allowed values and never
repeats an unknown name or a long value: it may be a secret typed into the wrong place
(tasks.fields.shown_value).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from core.errors import InvalidField
from environments.models import ACCESS_KINDS, NAME_MAX
from policy.catalog import CAPABILITIES, KINDS, LEVELS
from tasks.fields import did_you_mean, refuse_controls

NAME_RE = re.compile(r"[A-Za-z0-9 ._-]+")
TEXT_MAX = 1000
NOTES_MAX = 4000
FIELD_VALUE_MAX = 500
FIELDS_MAX = 30
TEST_SECRETS_MAX = 20
FIELD_NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,39}")

# The fields of each kind of access entry; `other` takes any lowercase field names.
ACCESS_FIELDS: dict[str, tuple[str, ...] | None] = {
    "ssh": ("alias", "host", "port", "user", "key_path_ref"),
    "kubectl": ("context", "namespace"),
    "db": ("type", "host", "port", "port_forward", "database", "user", "password_ref"),
    "gitops": ("repo", "path", "branch"),
    "logs": ("url",),
    "monitoring": ("url",),
    "other": None,
}
URL_FIELDS = frozenset({("logs", "url"), ("monitoring", "url")})


def clean_name(value: Any) -> str:
    text = _text("name", value, NAME_MAX)
    if not text or not NAME_RE.fullmatch(text):
        raise InvalidField(
            "name",
            "name must be 1-80 letters, digits, spaces, dots, dashes or underscores "
            "(e.g. live, staging-2).",
        )
    return " ".join(text.split())


def clean_kind(value: Any) -> str:
    text = _choice(value)
    if text is None or text not in KINDS:
        near = did_you_mean(text, KINDS)
        raise InvalidField("kind", f"kind must be one of {', '.join(KINDS)}.{near}")
    return text


def clean_base_url(value: Any) -> str:
    text = _text("base_url", value, 2000, one_line=True)
    if text and not _is_http_url(text):
        raise InvalidField(
            "base_url", "base_url must start with http:// or https:// and name a host."
        )
    return text


def clean_level(value: Any, name: str = "level") -> str:
    """A level, or "" for "from the policy" (default, "-" or empty)."""
    text = "" if value is None else _choice(value)
    if text in ("", "-", "default"):
        return ""
    if text is None or text not in LEVELS:
        near = did_you_mean(text, (*LEVELS, "default"))
        raise InvalidField(name, f"{name} must be one of {', '.join(LEVELS)} or default.{near}")
    return text


def clean_overrides(value: Any, current: dict[str, str] | None = None) -> dict[str, str]:
    """{capability: level} merged into `current`; a level of "default" removes one."""
    if not isinstance(value, dict):
        raise InvalidField("overrides", 'overrides must be an object such as {"db": "ask"}.')
    result = dict(current or {})
    for capability, level in value.items():
        if capability not in CAPABILITIES:
            raise InvalidField(
                "overrides",
                "overrides names an unknown capability; the capabilities are "
                f"{', '.join(CAPABILITIES)}.{did_you_mean(capability, CAPABILITIES)}",
            )
        cleaned = clean_level(level, f"overrides.{capability}")
        if cleaned:
            result[capability] = cleaned
        else:
            result.pop(capability, None)
    return result


def clean_text(name: str, value: Any, limit: int = TEXT_MAX, *, one_line: bool = False) -> str:
    return _text(name, value, limit, one_line=one_line)


def clean_access_kind(value: Any) -> str:
    text = _choice(value)
    if text is None or text not in ACCESS_KINDS:
        near = did_you_mean(text, ACCESS_KINDS)
        raise InvalidField("kind", f"kind must be one of {', '.join(ACCESS_KINDS)}.{near}")
    return text


def clean_access_fields(kind: str, fields: Any) -> dict[str, str]:
    """The text fields of an access entry: known names for the kind, one line each."""
    if not isinstance(fields, dict):
        raise InvalidField("fields", 'fields must be an object such as {"host": "db.internal"}.')
    if len(fields) > FIELDS_MAX:
        raise InvalidField("fields", f"an access entry has at most {FIELDS_MAX} fields.")
    allowed = ACCESS_FIELDS[kind]
    result = {}
    for raw_name, raw_value in fields.items():
        name = clean_field_name(raw_name)
        if allowed is not None and name not in allowed:
            raise InvalidField(
                "fields",
                f"fields names a field that {kind} entries do not have; their fields are "
                f"{', '.join(allowed)}.{did_you_mean(name, allowed)}",
            )
        value = _text(f"fields.{name}", raw_value, FIELD_VALUE_MAX)
        if "\n" in value or "\r" in value:
            raise InvalidField(f"fields.{name}", f"{name} must be one line.")
        refuse_controls(f"fields.{name}", value, one_line=True)
        if (kind, name) in URL_FIELDS and value and not _is_http_url(value):
            raise InvalidField(f"fields.{name}", f"{name} must start with http:// or https://.")
        if value:
            result[name] = value
    return result


def clean_field_name(value: Any) -> str:
    name = str(value).strip().lower()
    if not FIELD_NAME_RE.fullmatch(name):
        raise InvalidField(
            "fields",
            "a field name must be 1-40 lowercase letters, digits and _ (starting with a "
            "letter); one is not.",
        )
    return name


def parse_lines(text: str, *, field: str = "fields") -> dict[str, str]:
    """The board's `name: value` lines as a dict (blank lines skipped, a value may hold ':').

    Names stay as typed: the service lowercases them only after the write door has read
    them, since a token pasted as a name loses its shape in lowercase (AKIA…)."""
    result: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise InvalidField(field, f"line {number}: write it as name: value.")
        clean_field_name(name)  # a malformed name is refused here, never repeated
        result[name.strip()] = value.strip()
    return result


def _choice(value: Any) -> str | None:
    """A one-word choice as typed, lowercased; None for anything but text (never allowed)."""
    return value.strip().lower() if isinstance(value, str) else None


def _text(name: str, value: Any, limit: int, *, one_line: bool = False) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidField(name, f"{name} must be text.")
    text = refuse_controls(name, value.strip(), one_line=one_line)
    if text == "-":
        return ""
    if len(text) > limit:
        raise InvalidField(name, f"{name} is {len(text)} characters long; at most {limit}.")
    return text


def _is_http_url(text: str) -> bool:
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)
