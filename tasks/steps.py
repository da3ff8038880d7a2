"""Ordered step lists as tools send them: the plan (plans) and the Owner check (reviews).

Both accept the same shapes — plain titles or {title, details} objects — and refuse the
same mistakes with the same words, so the value rules live here once.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import InvalidField
from tasks.fields import nearest, refuse_controls, shown_value


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
        unknown = [key for key in item if key not in ("title", "details")]
        if unknown:  # not repeated: an unknown key may be a value pasted in the wrong place
            near = {m for key in unknown if (m := nearest(key, ("title", "details")))}
            hint = f" Did you mean {', '.join(sorted(near))}?" if near else ""
            raise InvalidField(
                "steps",
                f"Step {n} has {len(unknown)} unknown key{'s' if len(unknown) > 1 else ''}: "
                f"a step takes title and details.{hint}",
            )
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
