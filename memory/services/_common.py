"""Steps the memory services share: value rules, the secret scan (§8 Secret scan) and the
conflict text. Private: each runs inside the calling service's transaction."""

from __future__ import annotations

import re

from core.errors import InvalidField
from environments.secrets import SecretsPolicy, scan_text
from policy import selectors as policy_selectors
from tasks.fields import refuse_controls
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
            f"existing ones. Got {(value or '')[:100]!r}.",
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


def refuse_secrets(project: Project | None, **fields: str | None) -> None:
    """The first secret value found in any field refuses the write: field and detector, never
    the value. The effective policy of the project (the global one for global rows)."""
    merged = policy_selectors.effective_for(project).merged
    policy = SecretsPolicy.of(merged)
    for field, text in fields.items():
        if not text:
            continue
        findings = scan_text(text, field=field, policy=policy)
        if findings:
            raise InvalidField(
                field,
                f"Refused: {findings[0].message()}. Nothing was written: keep the secret "
                "where it lives and write where to find it (a vault path, an environment "
                "variable name) instead of the value.",
            )


def quoted(text: str) -> str:
    """Text in a fence no line of it can close (for conflict messages)."""
    longest = max((len(m) for m in re.findall(r"~+", text)), default=0)
    fence = "~" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}markdown\n{body}{fence}"
