"""Value rules of the plan (§1 Plan and checkpoints): steps, conformance, outcome, link.

Used by plans.services (the one write path); the tool adapters take their limits from here.
"""

from __future__ import annotations

import re

from core.errors import InvalidField
from plans.models import (
    CONFORMANCE_MAX,
    DETAILS_MAX,
    LINK_MAX,
    OUTCOME_MAX,
    REASON_MAX,
    STEP_STATUSES,
    TITLE_MAX,
)
from tasks import steps as step_rules
from tasks.models import Report, Task
from tasks.steps import StepIn, checked_text

STEPS_MAX = 30
CLEAR = ("-", "")
CONFORMANCE_RULE = 'done needs conformance "as planned" or "deviation: <why>"'
_DEVIATION = re.compile(r"^deviation\s*:\s*(\S.*)$", re.IGNORECASE | re.DOTALL)
_REPORT_REF = re.compile(r"^(?:report:|#)?\s*(\d+)$", re.IGNORECASE)
_WEB_URL = re.compile(r"^https?://[^\s/]+\S*$", re.IGNORECASE)


def clean_details(value: object, position: int) -> str | None:
    name = f"details of step {position}" if position else "details"
    return step_rules.clean_details(name, value, DETAILS_MAX)


def clean_steps(raw: object) -> list[StepIn]:
    """plan_set's steps: a list of {title, details?} or plain titles."""
    return step_rules.clean_steps(
        raw, what="A plan", max_steps=STEPS_MAX, title_max=TITLE_MAX, details_max=DETAILS_MAX
    )


def clean_conformance(value: str) -> str:
    text = " ".join(checked_text("conformance", value, CONFORMANCE_MAX, one_line=True).split())
    if text.lower() == "as planned":
        return "as planned"
    match = _DEVIATION.match(text)
    if match:
        return f"deviation: {match.group(1).strip()}"
    raise InvalidField("conformance", f"{CONFORMANCE_RULE}; got {value.strip()!r}.")


def clean_outcome(value: str) -> str:
    text = value.strip()
    if "\n" in text or "\r" in text:
        raise InvalidField("outcome", "outcome is one line: put longer text in a report.")
    return checked_text("outcome", text, OUTCOME_MAX, one_line=True)


def clean_link(value: str, task: Task) -> str:
    """12, #12, report:12 → report:12 (a report of this task); or an http(s) URL."""
    text = checked_text("link", value, LINK_MAX, one_line=True)
    match = _REPORT_REF.match(text)
    if match:
        report_id = int(match.group(1))
        if not Report.objects.filter(pk=report_id, task=task).exists():
            raise InvalidField(
                "link",
                f"Report {report_id} is not a report of {task.key}: link one of its reports "
                "(task_get lists them) or an http(s) URL.",
            )
        return f"report:{report_id}"
    if _WEB_URL.match(text):
        return text
    raise InvalidField(
        "link",
        f"link must be a report of {task.key} (12, #12 or report:12) or an http(s) URL such "
        f"as a pull request; got {text!r}.",
    )


def clean_reason(reason: str | None, default: str) -> str:
    if reason is None or not reason.strip() or reason.strip() == "-":
        return default
    return " ".join(checked_text("reason", reason, REASON_MAX, one_line=True).split())


def clean_status(status: str | None) -> str | None:
    if status is None:
        return None
    text = status.strip().lower().replace(" ", "_").replace("-", "_")
    if text not in STEP_STATUSES:
        raise InvalidField("status", f"status must be one of {', '.join(STEP_STATUSES)}.")
    return text
