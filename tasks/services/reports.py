"""report_add and the report first line (§1 Report, Task size, Progress/next step/waiting on).

The first line: `state · size · gist`. The middle dot is canonical; "|", "•" and a dash
surrounded by spaces (" - ", " – ", " — ") are accepted too, because models and keyboards
do not always produce "·". The state may carry one more word ("verified locally"). Leading
"#" and wrapping "**", "__" or backticks are ignored. State and size are matched case-
insensitively against the effective rules and stored in their canonical spelling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import InvalidField
from core.rows import insert
from tasks import extensions
from tasks import fields as F
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.fields import SIZES
from tasks.models import Report
from tasks.rules import STATES
from tasks.rules import sizes as rule_sizes
from tasks.rules import states as rule_states
from tasks.selectors import project_rules
from tasks.services._common import Outcome, load_task
from tasks.services._taskwrite import TaskChange, run_write

SEPARATOR = re.compile(r"\s*[·|•]\s*|\s+[-–—]\s+")
_DECORATION = "*_` \t"


@dataclass(frozen=True)
class ReportHead:
    """A first line that follows the format: canonical state and size, and the rest."""

    state: str
    size: str
    gist: str
    qualifier: str = ""  # the optional second word of the state ("locally")


def report_summary(body: str) -> str:
    """The first non-empty line, stripped, cut to 200 characters (… marks a cut)."""
    for line in body.splitlines():
        text = line.strip()
        if text:
            if len(text) > F.REPORT_SUMMARY_MAX:
                return text[: F.REPORT_SUMMARY_MAX - 1].rstrip() + "…"
            return text
    return ""


def parse_first_line(
    line: str,
    states: tuple[str, ...] | list[str] = STATES,
    sizes: tuple[str, ...] | list[str] = SIZES,
) -> ReportHead | None:
    """`state · size · gist` → ReportHead, or None when the line does not follow the format
    with a state and a size from the given lists (the gist may be missing)."""
    text = re.sub(r"^#+\s*", "", line.strip()).strip(_DECORATION)
    parts = SEPARATOR.split(text, maxsplit=2)
    if len(parts) < 2:
        return None
    words = parts[0].split()
    if not 1 <= len(words) <= 2:
        return None
    state = next((s for s in states if s.lower() == words[0].lower()), None)
    size = next((s for s in sizes if s.lower() == parts[1].strip(_DECORATION).lower()), None)
    if state is None or size is None:
        return None
    gist = parts[2].strip(_DECORATION) if len(parts) > 2 else ""
    return ReportHead(
        state=state, size=size, gist=gist, qualifier=words[1] if len(words) > 1 else ""
    )


def _clean_body(body: object) -> str:
    if not isinstance(body, str) or not body.strip():
        raise InvalidField(
            "body",
            "body is empty: write what was done. Its first line is the summary, "
            "e.g. changed · M · added the login form.",
        )
    return F.check_length("body", body.strip(), F.REPORT_BODY_MAX)


def report_add(
    *,
    key: str,
    body: str,
    actor: Actor,
    next_step: str | None = None,
    waiting_on: str | None = None,
    progress: str | None = None,
) -> Outcome[Report]:
    """Append a markdown report to a task (its author is `actor`).

    summary = the first non-empty line (≤ 200 characters). A first line
    `state · size · gist` with a state and size of the effective rules sets report.state and
    report.size; that size also becomes the task's size when it has none. next_step,
    waiting_on and progress are saved in the same transaction (None = not given, "-"
    clears). A report is new work: a logged tracker mark is cleared. The task's version grows
    by 1. Events: report.added {summary, state, size, report_id}, task.updated {fields} when
    task fields changed, task.tracker_unlogged {reason}. The format itself is not enforced.
    Outcome.obj.task is the updated task.
    """
    text = _clean_body(body)
    values = F.clean_fields(
        {"next_step": next_step, "waiting_on": waiting_on, "progress": progress}
    )

    def attempt() -> Outcome[Report]:
        task = load_task(key)
        extensions.refuse_secrets(task.project, texts={"body": text, **values})
        who = caller_in(actor, task=task)
        rules = project_rules(task.project)
        summary = report_summary(text)
        head = parse_first_line(summary, rule_states(rules.doc), rule_sizes(rules.doc))
        change = TaskChange(task=task)
        change.auto_unlog("report added")  # first: the report is the reason, not the progress
        change.apply(values)
        notes = []
        if head and not task.size and change.set_value("size", head.size):
            notes.append(f"Size {head.size} taken from the report for {task.key}.")
        report = insert(  # SQL written once: the queryset's INSERT compiled on every report
            Report(
                task=task,
                body=text,
                summary=summary,
                state=head.state if head else "",
                size=head.size if head else "",
                author=who.name,
                created_at=change.now,
            )
        )
        record_event(
            EventKind.REPORT_ADDED,
            project=task.project,
            task=task,
            actor=who.name,
            payload={
                "summary": summary,
                "state": report.state,
                "size": report.size,
                "report_id": report.id,
            },
        )
        change.save(who.name, force=True)  # a report is a write on the task: version + 1
        return Outcome(
            obj=report,
            created=True,
            changed=change.outcome_fields(),
            notes=(*notes, *change.notes),
            caller_notes=who.notes,
        )

    return run_write(attempt)
