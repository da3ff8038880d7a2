"""Possibly stuck: a session that repeats itself, or works long without
telling relaybay anything.

Two reasons, each shown in the Inbox group "Possibly stuck" with the time it began:

- the same tool with the same input `stuck_repeat_calls` times in a row (default 5): a
  PRE_TOOL context provider keeps, per session, a hash of the last call (tool name and
  input, SHA-256 cut to 16 hex digits — never the input itself) and how many times in a row
  it came; reaching the threshold records `session.stuck` for the session's open tasks
  (through sessions.services.hooks; the Inbox refreshes on it). The counts live in this
  process's memory (a core.memo.Memo: a restart starts them again); a repetition stays
  listed until the task gets a relaybay write;
- working for more than `stuck_minutes` (default 45) with no relaybay write to the bound
  open task and no plan step change: read from the event log when the Inbox is built.

Both clear on progress: a report, progress or next_step, a stage change, a plan change.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple, cast

from django.conf import settings
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from core import caches
from core.display import ago
from core.memo import Memo
from core.rows import fetch_all, moments
from sessions import selectors as session_selectors
from sessions import sql
from sessions.hooks import answer as hook_answer
from sessions.hooks import event as ev
from sessions.hooks.answer import HookAnswer, HookCall
from sessions.hooks.registry import agent_mark, named_with_agent
from sessions.models import WORKING, Session, TaskBinding
from sessions.services import hooks as hook_steps
from tasks.events import EventKind
from tasks.extensions import CardExtra, InboxGroup, plug_in_once, register_card_extras
from tasks.models import Event, Task
from tasks.selectors.inbox import task_links, value_row

ORDER = 90  # last of the PreToolUse providers: it adds no line
CHIP = "chip-agent-stuck"
GROUP_ID = "possibly-stuck"
KINDS = frozenset({ev.PRE_TOOL})
STATE_MAX = 10_000
LONG_WORK = "working"  # how a long-work reason starts (sessions/sweep.py tells them apart)
# The writes that count as progress (as in sessions/turn_end.py, plus any task update).
PROGRESS_KINDS = (
    EventKind.REPORT_ADDED,
    EventKind.TASK_STAGE_CHANGED,
    EventKind.TASK_UPDATED,
    EventKind.PLAN_SET,
    EventKind.PLAN_STEP_UPDATED,
)


@dataclass
class Repeat:
    digest: str = ""
    tool: str = ""
    count: int = 0
    stuck_at: datetime | None = None  # when the count reached the threshold


_repeats: Memo[int, Repeat] = Memo(STATE_MAX)
caches.register(
    "sessions.hooks.stuck._repeats",
    key="a session's id",
    bound=STATE_MAX,
    invalidation="a different call starts the count again; the oldest set first past the bound",
    reset="`stuck.forget()` (the autouse fixture)",
)


def forget() -> None:
    """Drop every session's repeat count (tests)."""
    _repeats.clear()


def call_digest(tool_name: str, tool_input: Any) -> str:
    """A short hash of one tool call: what is kept instead of its input."""
    text = json.dumps([tool_name, tool_input], sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]


def count_call(call: HookCall, answer: HookAnswer) -> None:
    """PRE_TOOL: count the same call in a row; at the threshold, record session.stuck."""
    session = call.session
    limit = settings.RELAYBAY.stuck_repeat_calls
    if session is None or limit <= 0 or call.event.tool is None:
        return
    tool = call.event.tool.name
    digest = call_digest(tool, dict(call.event.tool.input))
    with _repeats.lock:
        repeat = _repeats.setdefault(session.pk, Repeat)
        if repeat.digest == digest:
            repeat.count += 1
        else:
            repeat.digest, repeat.tool, repeat.count = digest, tool, 1
        reached = repeat.count == limit
        if reached:
            repeat.stuck_at = timezone.now()
    if reached:
        reason = repeat_reason(tool, limit)
        hook_steps.record_stuck(session, _open_tasks(session), reason, actor=call.actor)


def repeat_reason(tool: str, count: int) -> str:
    return f"the same {tool or 'tool'} call {count} times in a row"


def _open_tasks(session: Session) -> list[Task]:
    return [t for t in session_selectors.tasks_bound_to(session) if t.stage != "done"]


# --- the Inbox group ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Stuck:
    session_id: int
    session: str
    task: Task
    reason: str
    since: datetime
    agent: str = ""  # whose hooks report the session (sessions.models.AGENTS)


def _last_progress() -> Subquery:
    """The time of a binding's task's latest progress event (a subquery of TaskBinding)."""
    events = Event.objects.filter(task_id=OuterRef("task_id"), kind__in=PROGRESS_KINDS)
    return Subquery(events.order_by("-id").values("created_at")[:1])


def _judge(
    b: TaskBinding, wrote: datetime | None, repeats: dict[int, Repeat], now: datetime
) -> tuple[str, datetime] | None:
    """Why a binding's session is possibly stuck, and since when; None when it is not."""
    return _judged(b.session_id, b.bound_at, b.session.hook_status, wrote, repeats, now)


def _judged(
    session_id: int,
    bound_at: datetime,
    hook_status: str,
    wrote: datetime | None,
    repeats: dict[int, Repeat],
    now: datetime,
) -> tuple[str, datetime] | None:
    """_judge of a binding's plain values (the Inbox judges every working binding)."""
    repeat = repeats.get(session_id)
    if repeat is not None and repeat.stuck_at and (wrote is None or wrote < repeat.stuck_at):
        return repeat_reason(repeat.tool, repeat.count), repeat.stuck_at
    minutes = settings.RELAYBAY.stuck_minutes
    quiet_since = max(wrote or bound_at, bound_at)
    if minutes > 0 and hook_status == WORKING:
        quiet = now - quiet_since
        if quiet > timedelta(minutes=minutes):
            late = int(quiet.total_seconds() // 60)
            reason = f"{LONG_WORK} {late} min without a relaybay write or a plan step change"
            return reason, quiet_since
    return None


def _stuck_repeats() -> dict[int, Repeat]:
    with _repeats.lock:
        return {pk: r for pk, r in _repeats.snapshot().items() if r.stuck_at is not None}


class Judged(NamedTuple):
    """A binding judged stuck: since when, why, and the values its Inbox row shows."""

    since: datetime
    reason: str
    row: sql.StuckCandidate


# What stuck_sessions builds of a judged binding: not every column of four models; anything
# else a caller reads of the task loads on access.
_STUCK_COLUMNS = (
    "task_id",
    "session_id",
    "bound_at",
    "session__name",
    "session__agent",
    "session__hook_status",
    "task__key",
    "task__title",
    "task__stage",
    "task__project_id",
    "task__project__slug",
    "task__project__name",
)


def stuck_sessions(now: datetime | None = None) -> list[Stuck]:
    """Sessions possibly stuck now, the oldest first: repeats not followed by progress, and
    working sessions whose open task has had no write for stuck_minutes."""
    return _built(_judged_all(now or timezone.now()))


def _judged_all(now: datetime) -> list[Judged]:
    """Every stuck binding, the oldest first: each candidate judged from its plain values,
    no instance built (a year's hundred working sessions cost more as instances than the
    rest of the Inbox group). One statement (sessions/sql.py stuck_candidates), its text
    written once: the querysets' compiling cost more than their run."""
    repeats = _stuck_repeats()
    long_work = settings.RELAYBAY.stuck_minutes > 0
    if not (repeats or long_work):
        return []
    statement = sql.stuck_candidates(long_work, tuple(str(kind) for kind in PROGRESS_KINDS))
    judged: dict[int, Judged] = {}
    moment = moments()
    for row in map(sql.StuckCandidate._make, fetch_all(statement, [json.dumps(sorted(repeats))])):
        if row.task_id not in judged:
            bound_at = cast(datetime, moment(row.bound_at))  # a binding always has one
            found = _judged(
                row.session_id, bound_at, row.hook_status, moment(row.wrote), repeats, now
            )
            if found is not None:
                judged[row.task_id] = Judged(found[1], found[0], row)
    return sorted(judged.values(), key=lambda j: j.since)  # stable: task order within a moment


def _built(judged: list[Judged]) -> list[Stuck]:
    """The judged bindings with their session and task, in the order given: one query."""
    if not judged:
        return []
    bindings = {
        b.task_id: b
        for b in TaskBinding.objects.select_related("session", "task__project")
        .only(*_STUCK_COLUMNS)
        .filter(task_id__in=[j.row.task_id for j in judged], unbound_at__isnull=True)
    }
    stuck = []
    for j in judged:
        b = bindings.get(j.row.task_id)
        if b is not None and b.session_id == j.row.session_id:
            stuck.append(
                Stuck(b.session_id, b.session.name, b.task, j.reason, j.since, b.session.agent)
            )
    return stuck


def card_extras(tasks: list[Task]) -> dict[int, CardExtra]:
    """{task id: a "possibly stuck: <why>" badge} for the cards shown; one query."""
    ids = [t.pk for t in tasks if t.stage != "done"]
    if not ids:
        return {}
    repeats, now = _stuck_repeats(), timezone.now()
    bindings = (
        TaskBinding.objects.select_related("session")
        .only("task_id", "session_id", "bound_at", "session__hook_status")
        .filter(task_id__in=ids, unbound_at__isnull=True)
        .annotate(wrote=_last_progress())
    )
    extras = {}
    for b in bindings:
        judged = _judge(b, b.wrote, repeats, now)
        if judged is not None:
            extras[b.task_id] = CardExtra(badges=((f"possibly stuck: {judged[0]}", CHIP, ""),))
    return extras


def stuck_group(limit: int | None = None) -> InboxGroup | None:
    """The group with `limit` of its rows (None: all) and how many there are: the page shows
    its first rows only, and each row's values come with its judging (no model built)."""
    now = timezone.now()
    judged = _judged_all(now)
    if not judged:
        return None
    link, rows = task_links(), []
    for j in judged[:limit]:
        row = j.row
        detail = f"{j.reason} · since {ago(j.since, now)}"
        by, mark = named_with_agent(row.session, row.agent), agent_mark(row.agent)
        href = link(row.slug, row.key)
        rows.append(
            value_row(row.key, row.title, row.slug, row.project, detail, href, by=by, mark=mark)
        )
    return InboxGroup(id=GROUP_ID, title="Possibly stuck", rows=tuple(rows), total=len(judged))


@plug_in_once
def register() -> None:
    hook_answer.register_context_provider(ORDER, KINDS, count_call)
    register_card_extras(card_extras)
