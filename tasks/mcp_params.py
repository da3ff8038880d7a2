"""The parameter vocabulary every app's MCP tools share (§3): annotations, the caller
parameters, task keys, and the step lists of plans and the Owner check.

One place, so a description the model reads is written once and reads the same in every
tool, and the forgiving parsing of what models send (a JSON string for a list, "#2" for a
step number) behaves the same everywhere.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from mcp.types import ToolAnnotations
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from tasks.fields import (
    CALLER_NAME_MAX,
    CALLER_TITLE_MAX,
    EDITABLE_FIELD_NAMES,
    FIELDS_BY_NAME,
    HOOK_SESSION_MAX,
    PROJECT_SLUG_MAX,
)


def chars(limit: int) -> dict[str, Any]:
    """A text parameter's limit, written into its schema for the model to see.

    core.mcp's call_tool refuses a longer value before the tool runs (one check for every
    tool); a parameter without one gets core.mcp.TEXT_PARAM_MAX. Limits of stored values
    come from the app's value rules (fields.py, models), so forms and tools agree.
    """
    return {"maxLength": limit}


READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

# A task key is the project slug, a dash and a number.
TASK_KEY_MAX = PROJECT_SLUG_MAX + 12
TaskKey = Annotated[
    str,
    Field(
        description="Task key <slug>-<n>, e.g. acme-shop-12.", json_schema_extra=chars(TASK_KEY_MAX)
    ),
]
Session = Annotated[
    str,
    Field(
        description="Who you are: your Claude desktop session id (local_…) together with "
        "session_title, else a short readable name. Shown as the author of the write.",
        json_schema_extra=chars(CALLER_NAME_MAX),
    ),
]
SessionTitle = Annotated[
    str,
    Field(
        description="Title of your desktop session, when session is a local_ id.",
        json_schema_extra=chars(CALLER_TITLE_MAX),
    ),
]
HookSession = Annotated[
    str,
    Field(
        description="The Claude Code session id your session start gave you, if any.",
        json_schema_extra=chars(HOOK_SESSION_MAX),
    ),
]


# --- the tasks tools' own parameters ------------------------------------------------------

Project = Annotated[
    str,
    Field(
        description="Project slug, e.g. acme-shop (project_list).",
        json_schema_extra=chars(PROJECT_SLUG_MAX),
    ),
]
ExpectedVersion = Annotated[
    int,
    # A model may send null or "" for "not given"; the schema stays a plain integer.
    BeforeValidator(lambda v: 0 if v is None or v == "" else v),
    Field(
        description="The task version you last read (task_get shows it). The write fails "
        "instead of overwriting a newer version. 0 or omitted: do not check."
    ),
]


def text_param(description: str, limit: int | None = None) -> Any:
    extra = chars(limit) if limit else None
    return Annotated[
        str | None,
        Field(description=f'{description} "-" or "" clears it.', json_schema_extra=extra),
    ]


def field_param(name: str) -> Any:
    """An editable task field as a tool parameter; its description and limit from fields.py."""
    spec = FIELDS_BY_NAME[name]
    text = spec.description
    if spec.max_length:
        text += f" At most {spec.max_length} characters."
    if spec.type == "bool":
        return Annotated[bool | None, Field(description=text)]
    if spec.clearable:
        text += ' "-" or "" clears it.'
    extra = chars(spec.max_length) if spec.max_length else None
    return Annotated[str | None, Field(description=text, json_schema_extra=extra)]


def editable(values: dict[str, Any], *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The editable fields a tool call gave (not None), from the tool's locals()."""
    return {
        n: values[n] for n in EDITABLE_FIELD_NAMES if n not in skip and values.get(n) is not None
    }


def version_or_none(expected_version: int | None) -> int | None:
    return expected_version if expected_version and expected_version > 0 else None


def optional(description: str, limit: int | None = None) -> Any:
    """An optional text parameter: left out (null) changes nothing."""
    extra = chars(limit) if limit else None
    return Annotated[str | None, Field(description=description, json_schema_extra=extra)]


def step_list(value: Any) -> Any:
    """Steps as a model may send them: a list, that list as a JSON string, or lines."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                return json.loads(text)
            except ValueError:
                return value
        return [] if text in ("", "-") else [line for line in text.splitlines() if line.strip()]
    return value


def step_number(value: Any) -> Any:
    """A step number as a model may send it: 2, "2" or "#2"."""
    return value.strip().lstrip("#") if isinstance(value, str) else value


class StepObject(BaseModel):
    """The base of a step list's objects (plans, the Owner check). Unknown keys are kept, not
    dropped, so the service refuses them by name (tasks.steps) like any other caller's; the
    schema says a step takes only its own keys."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"additionalProperties": False})


def steps_param(item: type, description: str) -> Any:
    """A whole ordered step list: objects of `item`, plain titles, or that list as JSON."""
    return Annotated[list[item | str], BeforeValidator(step_list), Field(description=description)]


def step_number_param(read_tool: str) -> Any:
    """One step by its number, as the read tool shows it."""
    return Annotated[
        int,
        BeforeValidator(step_number),
        Field(description=f"The step's number as {read_tool} shows it (1, 2, …)."),
    ]


def json_text_object(value: Any) -> Any:
    """A BeforeValidator for object parameters: models sometimes send the object as a JSON
    string; read it as the object it spells (anything else goes on to the type check)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
