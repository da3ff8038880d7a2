"""The turn-end status check: a turn that worked in a task and wrote nothing
about it to relaybay gets a reminder, or its Stop blocked once.

The agent did the work and the card still says "plan": relaybay sees every POST_TOOL, so
it knows when a session bound to an open task changed files or ran commands (a tool of
kind edit or shell, event.py; reading, searching and relaybay's own tools are not work).
At that session's Stop it looks for the session's writes to the task since the turn began —
a report, progress or next_step, a stage change, a plan change — and when there are none
the working rules' `turn_end_update` decides (tasks/rules.py; null means remind in warn
mode, block in strict):

- remind: the line waits for the next UserPromptSubmit or PreToolUse of the session and
  goes into its additionalContext;
- block: that Stop is blocked once with the same line, when the generic Stop rules of
  §4 allow a block (so never after owner-comment blocks used the turn's budget), and never
  twice in one turn;
- off: nothing.

Never twice for the same state: after a reminder or a block the next Stop passes unless the
session worked again. Only a session exactly linked to its Claude Code id is checked (as
plan reminders and owner comments are).

The per-session turn state is kept in this process's memory (a core.memo.Memo keyed by
relaybay session id): a restart forgets a turn in progress, which costs at most one
reminder. Nothing of the tool input is read but what kind of tool it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from core import caches
from core.memo import Memo
from sessions import selectors as session_selectors
from sessions.hooks import answer as hook_answer
from sessions.hooks import event as ev
from sessions.hooks.answer import HookAnswer, HookCall, StopRequest
from tasks.events import EventKind
from tasks.extensions import plug_in_once
from tasks.models import Event, Task
from tasks.rules import turn_end_update
from tasks.selectors import project_rules

# After the owner comments (order 50): they must arrive whole; the reminder is one line.
ORDER = 60
KINDS = frozenset({ev.PROMPT, ev.PRE_TOOL, ev.POST_TOOL})
WORK = frozenset({ev.EDIT, ev.SHELL})  # the kinds of tool that count as work
CLOSED_STAGES = frozenset({"done"})
STATE_MAX = 10_000  # sessions remembered; the oldest are forgotten past this
# The writes that count as telling relaybay about the work.
WRITE_KINDS = (
    EventKind.REPORT_ADDED,
    EventKind.TASK_STAGE_CHANGED,
    EventKind.PLAN_SET,
    EventKind.PLAN_STEP_UPDATED,
)
STATUS_FIELDS = ("progress", "next_step")


@dataclass
class Turn:
    started_at: datetime | None = None  # the turn's UserPromptSubmit (None: not seen)
    work_at: datetime | None = None  # the first work since the start or the last nudge
    nudged: bool = False  # reminded or blocked for the work so far
    blocked: bool = False  # this turn had its one turn-end block
    note: str = ""  # a reminder waiting for the next UserPromptSubmit / PreToolUse


_turns: Memo[int, Turn] = Memo(STATE_MAX)
caches.register(
    "sessions.hooks.turn_end._turns",
    key="a session's id",
    bound=STATE_MAX,
    invalidation="a new turn starts it again; the oldest set first past the bound",
    reset="`turn_end.forget()` (the autouse fixture)",
)


def _turn(session_id: int) -> Turn:
    return _turns.setdefault(session_id, Turn)


def forget() -> None:
    """Drop every session's turn state (tests)."""
    _turns.clear()


def reminder(key: str) -> str:
    return (
        f"{key}: you changed files this turn; update progress and next_step, or report_add "
        "if the stage's work is done"
    )


# --- the context provider: turns, work, and the waiting reminder --------------------------------


def observe(call: HookCall, answer: HookAnswer) -> None:
    """Deliver a waiting reminder; start a turn on a PROMPT; note work on a POST_TOOL."""
    session = call.session
    if session is None or not call.exact:
        return
    turn = _turn(session.pk)
    delivers = call.kind in (ev.PROMPT, ev.PRE_TOOL)
    if turn.note and delivers and len(turn.note) <= answer.budget_left:
        answer.add_context(turn.note)
        turn.note = ""
    # a PROMPT starts a turn, except the agent's continuation after a block (the same turn)
    if call.kind == ev.PROMPT and not call.event.continues_turn:
        turn.started_at, turn.work_at = timezone.now(), None
        turn.nudged = turn.blocked = False
    elif (
        call.kind == ev.POST_TOOL
        and call.event.tool is not None
        and call.event.tool.kind in WORK
        and (turn.work_at is None or turn.nudged)  # the turn's first work, or new work
    ):
        turn.work_at, turn.nudged = timezone.now(), False


# --- the Stop handler ----------------------------------------------------------------------------


def stop_request(call: HookCall) -> StopRequest | None:
    """Block this Stop once (rules: block), or leave a reminder for the next turn (remind)."""
    session = call.session
    if session is None or not call.exact:
        return None
    turn = _turn(session.pk)
    if turn.work_at is None or turn.nudged:
        return None
    since = turn.started_at or turn.work_at
    silent = [t for t in _open_tasks(session) if not _wrote_about(t, since)]
    if not silent:
        return None
    task = silent[0]
    rules = project_rules(task.project)
    mode = turn_end_update(rules.doc, rules.mode)
    if mode == "off":
        return None
    text = reminder(task.key)
    if mode == "block" and not turn.blocked:

        def blocked() -> None:
            turn.blocked = turn.nudged = True

        return StopRequest(reason=text, on_blocked=blocked)
    turn.note, turn.nudged = text, True
    return None


def _open_tasks(session: object) -> list[Task]:
    return [
        t
        for t in session_selectors.tasks_bound_to(session)  # type: ignore[arg-type]
        if t.stage not in CLOSED_STAGES
    ]


def _wrote_about(task: Task, since: datetime) -> bool:
    """Whether the task got a status write since `since`: a report, a stage change, a plan
    change, or progress / next_step (also a next_step confirmed unchanged)."""
    events = Event.objects.filter(task=task, created_at__gte=since).filter(
        kind__in=(*WRITE_KINDS, EventKind.TASK_UPDATED)
    )
    for kind, payload in events.values_list("kind", "payload"):
        if kind != EventKind.TASK_UPDATED:
            return True
        named = [*payload.get("fields", ()), *payload.get("confirmed", ())]
        if any(name in STATUS_FIELDS for name in named):
            return True
    return False


@plug_in_once
def register() -> None:
    """Plug into the hook seams (idempotent); the Stop handler runs after comment delivery's."""
    hook_answer.register_context_provider(ORDER, KINDS, observe)
    hook_answer.register_stop_handler(stop_request)
