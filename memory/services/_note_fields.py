"""The value rules of memory notes (§8 Memory notes): each argument of memory_add and
memory_update cleaned into NoteFields, and the checks every written note passes (the secret
door, a source of the note's own project). Private to memory.services: the notes' services
call these inside their transaction, or before it for what needs no database."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from core.errors import InvalidField
from environments import secret_door
from memory import notes as rules
from memory.models import NOTE_KINDS, NOTE_SCOPES, TITLE_MAX
from tasks import fields as F_
from tasks.models import Project
from tasks.services.decisions import SOURCE_TEXT_MAX, check_source, parse_source

BODY_MAX = 20_000
ROLE_MAX = 60
TAGS_MAX = 500
OPS = ("add", "update", "supersede", "noop")
_ROLE = re.compile(r"[a-z0-9][a-z0-9_-]*")


@dataclass(frozen=True)
class NoteFields:
    """A note's texts after the value rules, as they are stored."""

    title: str
    body: str
    kind: str
    tags: str
    source_kind: str
    source_ref: str
    source_text: str
    review_at: datetime | None


def check_fields(
    fields: NoteFields, project: Project | None, source: str | None, tags: Any, **given: Any
) -> None:
    """The write door (§8 Secret scan, §9.9): the first secret refused with its field and
    detector, never the value. Tags, role and kind are read as given, before lowercasing
    hides a case-sensitive key (AKIA…)."""
    secret_door.refuse(
        project,
        values={
            "title": fields.title,
            "body": fields.body,
            "tags": fields.tags if tags is None else tags,
            "source": (source or "").strip(),
            "source_text": fields.source_text,
            **given,
        },
    )


def check_note_source(project: Project | None, fields: NoteFields) -> None:
    """A project note cites its own project's rows; a global or role note only a message."""
    if project is not None:
        check_source(project, fields.source_kind, fields.source_ref)
    elif fields.source_kind not in ("", "message"):
        raise InvalidField(
            "source",
            f"{fields.source_kind}:<id> belongs to a project: a global or role note takes "
            "message:<id> or source_text alone.",
        )


def clean_op(op: str | None) -> str | None:
    """None when left out: memory_add then checks for similar notes before it writes."""
    text = (op or "").strip().lower()
    if not text:
        return None
    if text not in OPS:
        raise InvalidField("op", "op is add, update, supersede or noop; leave it out to check.")
    return text


def clean_scope(scope: str, project: str | None, role: str | None) -> tuple[str, str]:
    """(scope, role): a place names its project or role, and only the one its scope needs."""
    text = (scope or "").strip().lower() if isinstance(scope, str) else ""
    if text not in NOTE_SCOPES:
        raise InvalidField("scope", "scope is global, role (with role) or project (with project).")
    has_project = bool((project or "").strip())
    given_role = (role or "").strip().lower()
    if text == "project" and not has_project:
        raise InvalidField("project", "scope=project needs project: the project's slug.")
    if text == "role" and not given_role:
        raise InvalidField("role", "scope=role needs role: a role name such as coordinator.")
    if text != "project" and has_project:
        raise InvalidField("project", f"A {text} note has no project; use scope=project.")
    if text != "role" and given_role:
        raise InvalidField("role", f"A {text} note has no role; use scope=role.")
    if given_role and (len(given_role) > ROLE_MAX or not _ROLE.fullmatch(given_role)):
        raise InvalidField(
            "role",
            f"role is one word of letters, digits, - and _ (≤ {ROLE_MAX}), e.g. coordinator.",
        )
    return text, given_role


def clean_fields(
    *,
    title: Any,
    body: Any,
    kind: Any,
    tags: Any,
    source: Any,
    source_text: Any,
    review_at: Any,
) -> NoteFields:
    """Every text of a new note through its rule, the first refusal naming its field."""
    source_kind, source_ref = parse_source(source)
    return NoteFields(
        title=clean_title(title),
        body=clean_body(body),
        kind=clean_kind(kind),
        tags=clean_tags(tags),
        source_kind=source_kind,
        source_ref=source_ref,
        source_text=F_.clean_text("source_text", source_text or "", SOURCE_TEXT_MAX, one_line=True),
        review_at=clean_review_at(review_at),
    )


def clean_title(value: Any) -> str:
    """One line, not empty: the title is what similar notes are found by."""
    text = F_.clean_text("title", value if value is not None else "", TITLE_MAX, one_line=True)
    if not text:
        raise InvalidField("title", "title is empty: name the fact in a few words.")
    return text


def clean_body(value: Any) -> str:
    """The fact itself, not empty, at most BODY_MAX characters."""
    text = F_.clean_text("body", value if value is not None else "", BODY_MAX)
    if not text:
        raise InvalidField("body", "body is empty: write the fact, why, and how to apply it.")
    return text


def clean_kind(value: Any) -> str:
    """One of NOTE_KINDS, in any case."""
    text = value.strip().lower() if isinstance(value, str) else ""
    if text not in NOTE_KINDS:
        raise InvalidField("kind", "kind is user, feedback, project or reference.")
    return text


def clean_tags(value: Any) -> str:
    """Tags as stored ("a, b"); "-" clears them."""
    if isinstance(value, str) and value.strip() in F_.CLEAR:
        return ""
    try:
        text = rules.tags_text(rules.clean_tags(value))
    except ValueError as exc:
        raise InvalidField("tags", f"tags: {exc}.") from None
    if len(text) > TAGS_MAX:
        raise InvalidField("tags", f"tags are at most {TAGS_MAX} characters together.")
    return text


def clean_review_at(value: Any) -> datetime | None:
    """A date or ISO date-time, made aware; "-" clears it."""
    if value is None or (isinstance(value, str) and value.strip() in F_.CLEAR):
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time())
    elif isinstance(value, str):
        text = value.strip()
        moment = parse_datetime(text)  # type: ignore[assignment]
        if moment is None:
            day = parse_date(text) if len(text) == 10 else None
            if day is None:
                raise InvalidField(
                    "review_at", "review_at is a date (2026-09-01) or an ISO date-time."
                )
            moment = datetime.combine(day, time())
    else:
        raise InvalidField("review_at", "review_at is a date (2026-09-01) or an ISO date-time.")
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


def clean_number(name: str, value: Any) -> int:
    """A note number or version as agents write it ("#12", "12", 12), never negative."""
    if isinstance(value, bool):
        raise InvalidField(name, f"{name} must be a whole number.")
    if isinstance(value, str):
        value = value.strip().lstrip("#")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise InvalidField(name, f"{name} must be a whole number.") from None
    if number < 0:
        raise InvalidField(name, f"{name} must not be negative.")
    return number
