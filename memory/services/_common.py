"""Steps the memory services share: value rules, the secret scan (§8 Secret scan), the
conflict text and the versioned write. Private: each runs inside the calling service's
transaction."""

from __future__ import annotations

import re
from typing import Any

from django.db.models import Model

from core.errors import InvalidField, VersionConflict
from core.rows import StaleRow, update_if
from environments import secret_door
from tasks.fields import refuse_controls, shown_value
from tasks.models import Project

_SLUG = re.compile(r"[a-z0-9][a-z0-9_-]*")


def clean_slug(value: str | None, *, field: str, max_length: int, lists: str) -> str:
    """A name or label: lowercase letters, digits, - and _, at most max_length."""
    text = (value or "").strip().lower()
    if not text or len(text) > max_length or not _SLUG.fullmatch(text):
        raise InvalidField(
            field,
            f"{field} must be 1-{max_length} lowercase letters, digits, - or _ "
            f"(e.g. release-runbook), starting with a letter or digit; {lists} shows the "
            f"existing ones. Got {shown_value(value or '')}.",
        )
    return text


def clean_line(value: str | None, *, field: str, max_length: int) -> str:
    """One line of text at most max_length characters ("" when None)."""
    text = (value or "").strip()
    if "\n" in text or "\r" in text:
        raise InvalidField(field, f"{field} is one line; put longer text into the body.")
    refuse_controls(field, text, one_line=True)
    if len(text) > max_length:
        raise InvalidField(
            field, f"{field} has {len(text)} characters; the limit is {max_length}. Shorten it."
        )
    return text


def refuse_secrets(project: Project | str | None, **fields: object) -> None:
    """The write door with every value detector (§8 Secret scan): each string of each field,
    at any depth, under the effective policy of the project (a slug is looked up only when
    a detector found something; the global policy for global rows). The first secret
    refuses the write with the field and the detector, never the value."""
    secret_door.refuse(project, values=fields)


def quoted(text: str) -> str:
    """Text in a fence no line of it can close (for conflict messages)."""
    longest = max((len(m) for m in re.findall(r"~+", text)), default=0)
    fence = "~" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}markdown\n{body}{fence}"


def write_versioned(
    model: type[Model], pk: int, values: dict[str, Any], *, base_version: int, what: str, read: str
) -> None:
    """The conditional UPDATE of a document or block at the version it was read
    (core.rows.update_if); a lost race is a VersionConflict naming `read`, the tool that
    reads `what` again."""
    try:
        update_if(model, pk, values, when={"version": base_version})
    except StaleRow:  # pragma: no cover - IMMEDIATE transactions serialise writers
        raise VersionConflict(
            f"Another write changed {what} at the same moment. Read it again ({read}) and "
            "write again.",
            current_version=base_version,
        ) from None
