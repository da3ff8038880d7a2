"""Ordered step lists as tools send them: the plan (plans) and the Owner check (reviews).

Both accept the same shapes — plain titles or {title, details} objects — and refuse the
same mistakes with the same words, so the value rules live here once.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import InvalidField
from tasks.fields import nearest, quotable, refuse_controls, shown_value

STEP_KEYS = ("title", "details")  # the keys of a step object


@dataclass(frozen=True)
class StepIn:
    """One step as a *_set tool received it; details None = not given."""

    title: str
    details: str | None = None


def checked_text(name: str, value: object, limit: int, *, one_line: bool = False) -> str:
    """Text stripped, within `limit`, without NUL (and, one line, without C0 controls)."""
    if not isinstance(value, str):
        raise InvalidField(name, f"{name} must be text.")
    text = refuse_controls(name, value.strip(), one_line=one_line)
    if len(text) > limit:
        raise InvalidField(name, f"{name} is {len(text)} characters; at most {limit} are kept.")
    return text


def clean_details(name: str, value: object, limit: int) -> str | None:
    """None = not given (a kept step keeps its details); "-" clears them."""
    if value is None:
        return None
    text = checked_text(name, value, limit)
    return "" if text == "-" else text


def clean_steps(
    steps: object, *, what: str, max_steps: int, title_max: int, details_max: int
) -> list[StepIn]:
    """A list of {title, details?} or plain titles; `what` names the list ("A plan")."""
    if not isinstance(steps, list | tuple):
        raise InvalidField(
            "steps", 'steps must be a list: ["Title", …] or [{"title": …, "details": …}, …].'
        )
    if len(steps) > max_steps:
        raise InvalidField("steps", f"{what} has at most {max_steps} steps; got {len(steps)}.")
    cleaned = []
    for n, raw in enumerate(steps, 1):
        item = {"title": raw} if isinstance(raw, str) else raw
        if not isinstance(item, dict):
            raise InvalidField("steps", f"Step {n} must be a title or {{title, details}}.")
        unknown = [key for key in item if key not in STEP_KEYS]
        if unknown:
            raise InvalidField("steps", _unknown_keys(n, unknown))
        title = " ".join(
            checked_text(
                f"title of step {n}", item.get("title") or "", title_max, one_line=True
            ).split()
        )
        if not title:
            raise InvalidField("steps", f"Step {n} has no title: every step needs one.")
        details = clean_details(f"details of step {n}", item.get("details"), details_max)
        cleaned.append(StepIn(title=title, details=details))
    return cleaned


def _unknown_keys(n: int, unknown: list[object]) -> str:
    """The refusal of a step's unknown keys, each named when a refusal may repeat it
    (tasks.fields.quotable); any other is counted, never shown: it may be a value (a
    password, a token) pasted where a key goes."""
    named = [key for key in unknown if isinstance(key, str) and quotable(key)]
    hidden = len(unknown) - len(named)
    plural = "s" if len(unknown) > 1 else ""
    if not named:
        looks = "it looks like a value" if hidden == 1 else "they look like values"
        listed = f"Step {n} has {len(unknown)} unknown key{plural}, not shown ({looks})"
    else:
        extra = f" and {hidden} not shown (it looks like a value)" if hidden else ""
        listed = f"Step {n} has {len(unknown)} unknown key{plural}: {', '.join(named)}{extra}"
    near = {m for key in unknown if (m := nearest(key, STEP_KEYS))}
    hint = f" Did you mean {', '.join(sorted(near))}?" if near else ""
    return f"{listed}; a step takes only {' and '.join(STEP_KEYS)}.{hint}"


def step_number(step: object, shown_by: str) -> int:
    """The step a tool or form names by its number (1, "2", "#3"); an error that says where
    the numbers are shown (`shown_by`: plan_get, task_get …) for anything else."""
    text = str(step).strip().lstrip("#") if isinstance(step, int | str) else ""
    if isinstance(step, bool) or not text.isdigit():
        raise InvalidField(
            "step",
            f"step is the step's number (1, 2, …) as {shown_by} shows it, not {shown_value(step)}.",
        )
    return int(text)
