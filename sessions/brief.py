"""The resume brief: where a task stands, in one short block of text.

A session that starts again on its tasks (SessionStart with source resume, clear or compact)
or newly binds a task (task_bind_session) would otherwise begin from nothing. `brief` is the
one function that writes the block; the hook provider (sessions/hooks/resume.py) and the
bind answer (sessions/render_md.py) both call it, so the same state gives the same bytes.

Per task (at most MAX_TASKS), in this order: "## <key> <title>", then one line each for the
stage with its note, the plan (plans registers it through `register_brief_section`), the
progress, the next step (stale marked), the last report's first line and the start of its
text, the unread owner comments (how many, the newest), the task's current decisions and the
files its sessions touched lately. A line with nothing to say is left out.

Stored text is agent or owner text: every field is squeezed onto one line and cut at a fixed
length (`one_line`), so no stored line break starts a line of the brief.

When it does not fit the budget it is shortened, always the same way: whole lines of the
lowest `keep` go first, in every task at once (files, decisions, last report, progress, plan,
owner comments), never the stage and the next step; then, from the full lines again, one
task fewer; the tasks left out are named on a last line. Nothing is ever cut mid-line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from core.rows import fetch_all, fetch_one
from sessions import sql, touched
from sessions.hooks.answer import CONTEXT_BUDGET
from tasks.models import COMMENT_OWNER, Task
from tasks.render_md import one_line
from tasks.selectors import is_next_step_stale

BUDGET = CONTEXT_BUDGET  # a hook answer's whole budget: what the bind answer allows too
MAX_TASKS = 3
HEAD = "relaybay resume brief: where your tasks stand (task_get has the whole of each)."
TITLE_CUT = 120
NOTE_CUT = 200
PROGRESS_CUT = 300
NEXT_CUT = 200
SUMMARY_CUT = 200
TEXT_CUT = 200
COMMENT_CUT = 200
DECISION_CUT = 150
DECISIONS_SHOWN = 3
PATH_CUT = 120
PATHS_SHOWN = 10
STALE = " (stale: written before the last stage change)"


@dataclass(frozen=True)
class Slot:
    """Where a line goes (`order`, lower first) and how long it stays when the brief is
    shortened (`keep`: the lowest goes first; CORE and above are never dropped)."""

    order: int
    keep: int


CORE = 7
STAGE = Slot(10, 8)
PLAN = Slot(20, 5)  # filled by plans (plans.reminders.brief_line)
PROGRESS = Slot(30, 4)
NEXT = Slot(40, 7)
REPORT = Slot(50, 3)
COMMENTS = Slot(60, 6)
DECISIONS = Slot(70, 2)
FILES = Slot(80, 1)

type LineFn = Callable[[Task, datetime], str]
_sections: list[tuple[Slot, Callable[[Task], str]]] = []


def register_brief_section(slot: Slot, fn: Callable[[Task], str]) -> None:
    """A line another app adds to each task's brief (plans: the plan step in progress);
    `fn(task)` answers the line without its "- ", or "" for none. Idempotent."""
    if any(registered is fn for _, registered in _sections):
        return
    _sections.append((slot, fn))


def enabled() -> bool:
    """The `resume_brief` setting (docs/configuration.md): False turns both places off."""
    return bool(settings.RELAYBAY.resume_brief)


def open_tasks(tasks: Sequence[Task]) -> list[Task]:
    """The tasks a brief is about: not done, in the order given."""
    return [t for t in tasks if t.stage != "done"]


# --- the lines of one task --------------------------------------------------------------------


def _stage_line(task: Task, _now: datetime) -> str:
    text = f"Stage: {task.stage}"
    if task.stage_note.strip():
        text += f" — {one_line(task.stage_note, NOTE_CUT)}"
    if task.waiting_on.strip():
        text += f" · waiting on {one_line(task.waiting_on, NOTE_CUT)}"
    return text


def _progress(task: Task, _now: datetime) -> str:
    return f"Progress: {one_line(task.progress, PROGRESS_CUT)}" if task.progress.strip() else ""


def _next(task: Task, _now: datetime) -> str:
    if not task.next_step.strip():
        return ""
    stale = STALE if is_next_step_stale(task) else ""
    return f"Next step{stale}: {one_line(task.next_step, NEXT_CUT)}"


def _report(task: Task, _now: datetime) -> str:
    found = fetch_one(sql.BRIEF_REPORT.text, [task.pk])
    if found is None:
        return ""
    report = sql.LastReport(*found)
    text = f"Last report: {one_line(report.summary, SUMMARY_CUT)}"
    # The body is stored stripped: its first line is the summary's source.
    rest = "\n".join(report.body.strip().splitlines()[1:])
    if rest.strip():
        text += f" — {one_line(rest, TEXT_CUT)}"
    return text


def _comments(task: Task, _now: datetime) -> str:
    found = fetch_one(sql.BRIEF_UNREAD.text, [task.pk, COMMENT_OWNER])
    if found is None:
        return ""
    newest = sql.NewestUnread(*found)
    return (
        f"Owner comments unread: {newest.count}; the newest (#{newest.id}): "
        f"{one_line(newest.body, COMMENT_CUT)}"
    )


def _decisions(task: Task, _now: datetime) -> str:
    found = [
        sql.CurrentDecision(*row)
        for row in fetch_all(sql.brief_decisions(DECISIONS_SHOWN), [task.pk])
    ]
    if not found:
        return ""
    shown = " | ".join(one_line(d.text, DECISION_CUT) for d in found)
    more = (
        f" (+{found[0].count - DECISIONS_SHOWN} more)" if found[0].count > DECISIONS_SHOWN else ""
    )
    return f"Decisions (newest first): {shown}{more}"


def _files(task: Task, now: datetime) -> str:
    paths = touched.recent_paths(task, limit=PATHS_SHOWN + 1, now=now)
    if not paths:
        return ""
    shown = ", ".join(one_line(p, PATH_CUT) for p in paths[:PATHS_SHOWN])
    more = " and more" if len(paths) > PATHS_SHOWN else ""
    return f"Files its sessions touched lately: {shown}{more}"


_BUILT_IN: tuple[tuple[Slot, LineFn], ...] = (
    (STAGE, _stage_line),
    (PROGRESS, _progress),
    (NEXT, _next),
    (REPORT, _report),
    (COMMENTS, _comments),
    (DECISIONS, _decisions),
    (FILES, _files),
)


@dataclass(frozen=True)
class TaskBrief:
    """One task's heading and its lines with the keep of each, in the brief's order."""

    key: str
    head: str
    lines: tuple[tuple[int, str], ...]  # (keep, "- …")

    def text(self, threshold: int) -> list[str]:
        return [self.head, *(line for keep, line in self.lines if keep >= threshold)]


def task_brief(task: Task, now: datetime) -> TaskBrief:
    """Read everything one task's brief says: four statements written once (sessions/sql.py),
    since every new binding's answer carries it."""
    found = [(slot, fn(task, now)) for slot, fn in _BUILT_IN]
    found += [(slot, fn(task)) for slot, fn in _sections]
    found.sort(key=lambda item: item[0].order)  # stable: a tie keeps the built-in first
    lines = tuple((slot.keep, f"- {text}") for slot, text in found if text)
    return TaskBrief(task.key, f"## {task.key} {one_line(task.title, TITLE_CUT)}", lines)


# --- the block and its budget -------------------------------------------------------------------


def _compose(briefs: Sequence[TaskBrief], threshold: int, left_out: Sequence[str]) -> str:
    lines = [HEAD]
    for b in briefs:
        lines += b.text(threshold)
    if left_out:
        lines.append(f"Also bound, not shown here: {', '.join(left_out)} (see task_get).")
    return "\n".join(lines)


def fit(briefs: Sequence[TaskBrief], budget: int) -> str:
    """The brief within `budget` characters, shortened step by step as the module says
    until it fits; "" when not even one task's heading, stage and next step fit."""
    for count in range(min(len(briefs), MAX_TASKS), 0, -1):
        shown = briefs[:count]
        left_out = [b.key for b in briefs[count:]]
        keeps = sorted({keep for b in shown for keep, _ in b.lines if keep < CORE})
        for threshold in (0, *(keep + 1 for keep in keeps)):
            text = _compose(shown, threshold, left_out)
            if len(text) <= budget:
                return text
    return ""


def brief(tasks: Sequence[Task], *, budget: int = BUDGET, now: datetime | None = None) -> str:
    """The resume brief of these tasks (the open ones, at most MAX_TASKS shown), within
    `budget` characters; "" when there is none or nothing fits. Reads only."""
    now = now or timezone.now()
    chosen = open_tasks(tasks)
    if not chosen:
        return ""
    briefs = [task_brief(t, now) for t in chosen[:MAX_TASKS]]
    briefs += [TaskBrief(t.key, "", ()) for t in chosen[MAX_TASKS:]]  # named as left out
    return fit(briefs, budget)
