"""The editable task fields (§1 Task): the one list that drives write validation, the
relaybay://schema/task resource and the "Editable fields" line of task_get.

Pure Python on purpose: tasks.rules imports this module while the config loader runs, before
Django is set up, so nothing here may import models or settings.

Conventions every adapter follows (§3):
- "-" or "" clears an optional text field (models cannot always send an empty string);
- None means "not given" and leaves the field alone;
- surrounding whitespace is dropped; one-line fields refuse line breaks;
- no text takes NUL, and a one-line value takes no other C0 control character but the tab
  (refuse_controls): a NUL was stored in a title, and a stray escape or backspace in a name
  shows up garbled on the board and in every answer that quotes it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from core.display import STAGES
from core.errors import InvalidField

# A task's size (§1): S tasks may go without an accepted plan.
SIZES = ("S", "M", "L")

CLEAR = ("-", "")

# Limits of values that are not task fields, kept here so forms and tools share them.
REPORT_BODY_MAX = 50_000
REPORT_SUMMARY_MAX = 200
DECISION_TEXT_MAX = 2_000
DECIDED_BY_MAX = 200
PROJECT_SLUG_MAX = 64
PROJECT_NAME_MAX = 200
PROJECT_REPO_PATH_MAX = 1_000
PROJECT_DESCRIPTION_MAX = 5_000
# Who calls: every write tool's session / session_title / hook_session (sessions keeps them).
CALLER_NAME_MAX = 100
CALLER_TITLE_MAX = 200
HOOK_SESSION_MAX = 100
QUERY_MAX = 200  # a search text (board, task_list, decision_list): longer finds nothing more


@dataclass(frozen=True)
class Field:
    """One editable task field: what it holds, its limit and how to clear it."""

    name: str
    type: str  # "text" (markdown), "line" (one line), "choice", "url", "bool"
    description: str
    max_length: int | None = None
    choices: tuple[str, ...] = ()
    clearable: bool = True

    @property
    def how_to_clear(self) -> str:
        if not self.clearable:
            return "cannot be cleared"
        if self.type == "bool":
            return "false"
        return '"-" or ""'


EDITABLE_FIELDS: tuple[Field, ...] = (
    Field("title", "line", "Short name of the task.", 300, clearable=False),
    Field(
        "stage",
        "choice",
        "Where the task is; a change is a stage move, checked against the working rules.",
        choices=STAGES,
        clearable=False,
    ),
    Field(
        "stage_note", "text", "A note on the current stage (why it is here, what holds it).", 2000
    ),
    Field("waiting_on", "line", "Who acts next (owner, a session, a person).", 200),
    Field(
        "next_step",
        "text",
        "What happens next; stale once the stage changes until written again.",
        1_000,
    ),
    Field("branch", "line", "Git branch of the work.", 300),
    Field("document_path", "line", "Path of the task's design or spec document.", 1_000),
    Field("description", "text", "What to do and why (markdown).", 20_000),
    Field(
        "progress",
        "text",
        "Running summary of everything done so far; rewrite it, do not append.",
        10_000,
    ),
    Field("priority", "line", "Free text, short (e.g. high, P1, after release).", 40),
    Field("size", "choice", "S, M or L; S tasks may go without an accepted plan.", choices=SIZES),
    Field(
        "tracker_ref", "line", "Issue key in the external tracker; a new one starts unlogged.", 100
    ),
    Field("tracker_name", "line", "Name of the external tracker.", 100),
    Field("tracker_url", "url", "Link to the issue (http:// or https:// only).", 2_000),
    Field(
        "tracker_logged",
        "bool",
        "The work log is entered in the external tracker; new work clears it.",
    ),
)

EDITABLE_FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in EDITABLE_FIELDS)
FIELDS_BY_NAME: dict[str, Field] = {f.name: f for f in EDITABLE_FIELDS}

_TRUE = ("true", "yes", "1", "on")
_FALSE = ("false", "no", "0", "off", "-", "")


def editable_fields_line() -> str:
    """The "Editable fields" line of task_get."""
    return "Editable fields: " + ", ".join(EDITABLE_FIELD_NAMES)


def schema_table_md() -> str:
    """The relaybay://schema/task resource: one markdown table row per editable field."""
    lines = [
        "# Task fields",
        "",
        'Write them with task_update or task_patch(task, fields={...}). "-" or "" clears an '
        "optional text field.",
        "",
        "| Field | Type | Max | Description | Clear with |",
        "| --- | --- | --- | --- | --- |",
    ]
    for f in EDITABLE_FIELDS:
        kind = f"{f.type}: {' / '.join(f.choices)}" if f.choices else f.type
        limit = str(f.max_length) if f.max_length else ""
        lines.append(f"| {f.name} | {kind} | {limit} | {f.description} | {f.how_to_clear} |")
    return "\n".join(lines) + "\n"


def field_spec(name: str) -> Field:
    """The spec of an editable field; InvalidField naming the fields for any other name."""
    spec = FIELDS_BY_NAME.get(name)
    if spec is None:  # the name is not repeated: it may be a value pasted as a name
        names = ", ".join(EDITABLE_FIELD_NAMES)
        near = did_you_mean(name, EDITABLE_FIELD_NAMES)
        raise InvalidField("fields", f"Unknown task field.{near} Editable fields: {names}.")
    return spec


# How a refusal names what it refused: a refusal names the parameter and the
# allowed values, never an unknown name, and quotes a refused value only when it is short
# and plain — it may be a secret pasted into the wrong place.
SHOWN_MAX = 20
_PLAIN = re.compile(r"[A-Za-z0-9 _.-]*")  # no ':' or '@': user:password is not plain
# A credential's shape: a known token prefix, or a word of six or more characters with a digit.
_TOKEN_PREFIX = re.compile(
    r"(?i)(?:^|[^a-z0-9])(gh[pousr]_|github_pat_|glpat-|xox[abprs]-|sk-|akia|asia|eyj)"
)
_DIGIT_WORD = re.compile(r"[A-Za-z0-9]*\d[A-Za-z0-9]*")


def shown_value(value: object) -> str:
    """A refused value as a refusal may show it: quoted ('loud') when it is at most 20
    characters of letters, digits, spaces and ._- with no secret-shaped word (a token
    prefix, or six or more characters holding a digit); else its type and length."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    if isinstance(value, int | float):
        text = str(value)
        return text if len(text) < 6 else f"a number of {len(text)} characters"
    if isinstance(value, str):
        if quotable(value):
            return f"'{value}'"
        return f"a text of {len(value)} character{'' if len(value) == 1 else 's'}"
    if isinstance(value, list | tuple):
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, dict):
        return f"an object of {len(value)} key{'' if len(value) == 1 else 's'}"
    return f"a value of type {type(value).__name__}"


def quotable(text: str) -> bool:
    """Whether a refusal may repeat `text` as it is (shown_value's rule)."""
    if len(text) > SHOWN_MAX or not _PLAIN.fullmatch(text) or _TOKEN_PREFIX.search(text):
        return False
    return all(len(word) < 6 for word in _DIGIT_WORD.findall(text))


def nearest(name: object, valid: Iterable[str]) -> str | None:
    """The valid name closest to a refused one (difflib), or None: a refusal may offer it
    because it is one of the valid names, never the refused one."""
    if not isinstance(name, str):
        return None
    by_lower = {v.lower(): v for v in valid}  # names compare case-insensitively
    found = difflib.get_close_matches(name.strip().lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[found[0]] if found else None


def did_you_mean(name: object, valid: Iterable[str]) -> str:
    """ " Did you mean <nearest>?" or "" — for the end of a refusal's sentence."""
    near = nearest(name, valid)
    return f" Did you mean {near}?" if near else ""


_NUL = re.compile("\x00")
# C0 but tab, line feed and carriage return: line breaks are each field's own rule (a
# one-line field refuses them with its own sentence, a step title folds them into spaces).
_LINE_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def refuse_controls(name: str, text: str, *, one_line: bool = False) -> str:
    """`text` unchanged, or InvalidField naming the field and the control character found:
    NUL anywhere; in a one-line value any C0 control but tab and line breaks."""
    found = (_LINE_CONTROLS if one_line else _NUL).search(text)
    if found is None:
        return text
    code = f"U+{ord(found.group()):04X}"
    if not one_line:
        raise InvalidField(name, f"{name} contains a NUL character ({code}); remove it.")
    raise InvalidField(
        name,
        f"{name} contains the control character {code}; a one-line value takes no control "
        "characters but the tab. Remove it.",
    )


def check_length(name: str, value: str, limit: int) -> str:
    """`value` within `limit` characters and free of NUL (any text field's two rules)."""
    refuse_controls(name, value)
    if len(value) > limit:
        raise InvalidField(
            name, f"{name} is {len(value)} characters long; the limit is {limit}. Shorten it."
        )
    return value


def clean_text(name: str, value: object, limit: int, *, one_line: bool = False) -> str:
    """A text value: stripped, "-" → "", within the limit, one line when asked."""
    if not isinstance(value, str):
        raise InvalidField(name, f"{name} must be text, got {type(value).__name__}.")
    text = value.strip()
    if text == "-":
        return ""
    if one_line and ("\n" in text or "\r" in text):
        raise InvalidField(name, f"{name} must be one line; remove the line breaks.")
    if one_line:
        refuse_controls(name, text, one_line=True)
    return check_length(name, text, limit)


def _clean_bool(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
        return value.strip().lower() in _TRUE
    raise InvalidField(name, f"{name} must be true or false, got {shown_value(value)}.")


def _clean_choice(spec: Field, value: object) -> str:
    if not isinstance(value, str):
        raise InvalidField(spec.name, f"{spec.name} must be text, got {type(value).__name__}.")
    text = value.strip()
    if spec.clearable and text in CLEAR:
        return ""
    for choice in spec.choices:
        if text.lower() == choice.lower():
            return choice
    options = ", ".join(spec.choices)
    clear = ", or - to clear" if spec.clearable else ""
    got = shown_value(text)
    if spec.name == "stage":
        got = got if got.startswith("'") else f"({got})"
        raise InvalidField(spec.name, f"Unknown stage {got}. Stages: {options}.")
    raise InvalidField(spec.name, f"{spec.name} must be one of {options}{clear}; got {got}.")


def _clean_url(name: str, value: object, limit: int) -> str:
    text = clean_text(name, value, limit, one_line=True)
    if not text:
        return ""
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise InvalidField(
            name,
            f"{name} must be an http:// or https:// link, got {shown_value(text)}; - clears it.",
        )
    return text


def clean_field(name: str, value: object) -> Any:
    """Validate and normalise one editable field's value; raise InvalidField naming it."""
    spec = field_spec(name)
    if spec.type == "bool":
        return _clean_bool(name, value)
    if spec.type == "choice":
        return _clean_choice(spec, value)
    if spec.type == "url":
        return _clean_url(name, value, spec.max_length or 2_000)
    text = clean_text(name, value, spec.max_length or 10_000, one_line=spec.type == "line")
    if not text and not spec.clearable:
        raise InvalidField(name, f"{name} cannot be cleared or empty; give the task a {name}.")
    return text


def clean_fields(values: dict[str, object]) -> dict[str, Any]:
    """Every given (not None) field of a write, validated; unknown names raise InvalidField."""
    return {name: clean_field(name, v) for name, v in values.items() if v is not None}
