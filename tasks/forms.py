"""The task edit form of the dialog and the task page: parsing only (docs/architecture.md §3).

The fields, their limits and their validation come from tasks.fields.EDITABLE_FIELDS (the
one list); the services validate again and decide. This module only turns a POST into the
values the owner actually edited, and describes the widgets to render.

"Edited" is measured against the values the form was rendered with, not against the task
as it is now: every field carries a digest of its original value (`orig_<name>`), so a
field the owner left alone is never sent, even when an agent changed it meanwhile. That is
what lets the board confirm a next step only when its text was edited (§1 Progress, next
step), keeps an unchanged tracker_logged from blocking the automatic unlog, and makes
"save my edits over the agent's version" write just the owner's fields.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core import no_secrets
from core.errors import InvalidField
from tasks.fields import EDITABLE_FIELDS, Field, clean_field
from tasks.models import Task

# Display order of the form; a field added to EDITABLE_FIELDS later still shows (at the end).
ORDER = (
    "title",
    "stage",
    "size",
    "priority",
    "stage_note",
    "waiting_on",
    "branch",
    "next_step",
    "description",
    "progress",
    "tracker_name",
    "tracker_ref",
    "tracker_url",
    "tracker_logged",
    "document_path",
)
LABELS = {
    "stage_note": "Stage note",
    "waiting_on": "Waiting on",
    "next_step": "Next step",
    "document_path": "Document path",
    "tracker_ref": "Tracker issue",
    "tracker_name": "Tracker",
    "tracker_url": "Tracker link",
    "tracker_logged": "Work logged in the tracker",
}
ROWS = {"description": 8, "progress": 6, "stage_note": 2, "next_step": 2}
PLACEHOLDERS = {
    "waiting_on": "owner, a session, a person",
    "branch": "feature/…",
    "priority": "high, P1, after release",
    "tracker_name": "Jira, GitHub …",
    "tracker_ref": "ABC-123",
    "tracker_url": "https://…",
}
# The fields a stage move may carry: a write of only these goes through task_set_stage.
MOVE_FIELDS = frozenset({"stage", "stage_note", "next_step", "waiting_on"})
VERSION_ERROR = "The form lost the task's version: reload the task and edit again."


def normalize(value: str) -> str:
    """Browsers send text area line breaks as CRLF; the task keeps LF."""
    return value.replace("\r\n", "\n").replace("\r", "\n")


def digest(value: object) -> str:
    """A short fingerprint of a field's value, as the form would send it back."""
    if isinstance(value, bool):
        text = "1" if value else "0"
    else:
        text = normalize(str(value or "")).strip()
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _posted(spec: Field, data: Mapping[str, Any]) -> str | bool | None:
    """The posted value of a field; None when the form did not carry it."""
    if spec.type == "bool":
        if spec.name not in data and f"orig_{spec.name}" not in data:
            return None
        return data.get(spec.name) in ("1", "on", "true")
    if spec.name not in data:
        return None
    return normalize(str(data.get(spec.name)))


def _version(text: object) -> int | None:
    try:
        number = int(str(text).strip())
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


@dataclass(frozen=True)
class TaskEdit:
    """One submitted edit form."""

    expected_version: int | None  # the version the form was rendered from (or the override)
    rendered_version: int | None  # the form's own version, kept across a conflict
    values: dict[str, Any]  # the fields the owner edited → their posted values
    posted: dict[str, Any]  # every posted field, to show the draft again
    digests: dict[str, str]  # the original digests, to keep "edited" exact across retries
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def is_move_only(self) -> bool:
        return "stage" in self.values and set(self.values) <= MOVE_FIELDS


def parse_task_edit(data: Mapping[str, Any], task: Task) -> TaskEdit:
    """The fields the owner edited, each checked by tasks.fields (all errors at once).

    A field counts as edited when its posted value differs from the one it was rendered
    with (its `orig_<name>` digest); without a digest it is compared with `task`.
    `overwrite_version` (the conflict's "save my edits anyway") replaces expected_version.
    """
    rendered = _version(data.get("expected_version"))
    override = _version(data.get("overwrite_version"))
    errors: dict[str, str] = {}
    if rendered is None:
        errors["expected_version"] = VERSION_ERROR
    values: dict[str, Any] = {}
    posted: dict[str, Any] = {}
    digests: dict[str, str] = {}
    for spec in EDITABLE_FIELDS:
        value = _posted(spec, data)
        if value is None:
            continue
        posted[spec.name] = value
        original = data.get(f"orig_{spec.name}")
        if isinstance(original, str) and original:
            digests[spec.name] = original
        else:
            original = digest(getattr(task, spec.name))
        if digest(value) == original:
            continue
        try:
            clean_field(spec.name, value)
        except InvalidField as exc:
            errors[exc.field] = str(exc)
        values[spec.name] = value
    return TaskEdit(
        expected_version=override or rendered,
        rendered_version=rendered,
        values=values,
        posted=posted,
        digests=digests,
        errors=errors,
    )


# --- rendering -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    selected: bool


@dataclass(frozen=True)
class FormField:
    """One widget of the edit form, ready for the template."""

    name: str
    label: str
    widget: str  # input | url | textarea | select | checkbox
    value: str
    checked: bool
    choices: tuple[Choice, ...]
    max_length: int | None
    rows: int
    help: str
    placeholder: str
    digest: str
    error: str
    stale: bool  # next_step only: written before the last stage change

    @property
    def dom_id(self) -> str:
        return f"tf-{self.name.replace('_', '-')}"


def _widget(spec: Field) -> str:
    if spec.type == "bool":
        return "checkbox"
    if spec.type == "choice":
        return "select"
    if spec.type == "url":
        return "url"
    return "textarea" if spec.type == "text" else "input"


def _choices(spec: Field, value: str, labels: Mapping[str, str]) -> tuple[Choice, ...]:
    options = [
        (c, labels.get(c) or (c.capitalize() if spec.name == "stage" else c)) for c in spec.choices
    ]
    if spec.clearable:
        options.insert(0, ("", "–"))
    if value not in {v for v, _ in options}:  # a draft with an unknown value stays visible
        options.append((value, value))
    return tuple(Choice(v, label, v == value) for v, label in options)


def ordered_fields() -> list[Field]:
    rank = {name: i for i, name in enumerate(ORDER)}
    return sorted(EDITABLE_FIELDS, key=lambda f: rank.get(f.name, len(ORDER)))


def form_fields(
    task: Task,
    *,
    stage_labels: Mapping[str, str],
    next_step_stale: bool = False,
    draft: TaskEdit | None = None,
    errors: Mapping[str, str] | None = None,
) -> list[FormField]:
    """The widgets with the task's values, or with a draft's posted values and errors."""
    errors = errors or {}
    rows = []
    for spec in ordered_fields():
        current = getattr(task, spec.name)
        value = draft.posted.get(spec.name, current) if draft else current
        original = draft.digests.get(spec.name) if draft else None
        widget = _widget(spec)
        text = "" if isinstance(value, bool) else str(value or "")
        if draft:  # what was typed comes back, never a token shape in it (§9.9)
            text = no_secrets.masked(text)
        rows.append(
            FormField(
                name=spec.name,
                label=LABELS.get(spec.name, spec.name.replace("_", " ").capitalize()),
                widget=widget,
                value=text,
                checked=bool(value) if widget == "checkbox" else False,
                choices=_choices(spec, text, stage_labels) if widget == "select" else (),
                max_length=spec.max_length,
                rows=ROWS.get(spec.name, 3),
                help=spec.description,
                placeholder=PLACEHOLDERS.get(spec.name, ""),
                digest=original or digest(current),
                error=errors.get(spec.name, ""),
                stale=spec.name == "next_step" and next_step_stale,
            )
        )
    return rows
