"""A task's time figures, stepped event by event (`TaskEffort`, effort/intervals.py).

`track_time`, an event observer, takes one step of a task's time tally for each event that
changes it. A tally row names the last event it is as of (`event_id`), so a step is never
taken twice nor out of order: a write that finds its task's tally behind (an earlier step
not taken yet) takes the missing steps first, in the order of the events.

Why a step may wait: an MCP write on the loop's own thread (core/on_loop.py) leaves its step
for after its answer has gone out, in a transaction of its own — the step was a fifth of a
move's time on the server (bench/README.md). Every other write (a hook, the board, a
command, a test) takes it in its own transaction, as before. A server stopped between a
write's commit and its step leaves the tally behind: `serve` takes those steps at start.

`effort_backfill` replays, once, the tasks that had no tally (made before tallies were
kept). Reads never write: a task without a tally reads as no time yet (`untimed`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction

from core import on_loop
from core.rows import columns, fetch_all, insert, rows_where, update
from effort import intervals, sql
from effort.intervals import TIME_EVENTS
from effort.models import TaskEffort
from tasks.models import Event, Task

_IN_CHUNK = 500
_NEWEST = 2**63 - 1  # above any event id
# What a step of the tally writes: its figures, the state the next step needs and the event.
TALLY_FIELDS = (*sql.TIME_COLUMNS, "state", "event_id")


def track_time(event: Event) -> None:
    """Event observer: the task's next step of its time tally, in the event's transaction —
    or, on the loop's thread, after the write's answer."""
    if event.task_id is None or event.kind not in TIME_EVENTS:
        return
    if _left_tasks.leave(event.task_id):
        return
    _step_to(event.task_id, event)


def take_steps_behind() -> int:
    """At start: every tally behind its task's time events, stepped. Returns how many."""
    task_ids = [row[0] for row in fetch_all(sql.TALLIES_BEHIND.text, [])]
    for start in range(0, len(task_ids), _IN_CHUNK):
        with transaction.atomic():
            for task_id in task_ids[start : start + _IN_CHUNK]:
                _step_to(task_id, None)
    return len(task_ids)


def _steps_up_to_date(task_ids: list[int]) -> None:
    for task_id in sorted(set(task_ids)):
        _step_to(task_id, None)


# Tasks whose step an on-loop write left for after its answer (core/on_loop.py).
_left_tasks: on_loop.Left[int] = on_loop.Left(_steps_up_to_date, recover=take_steps_behind)


def _step_to(task_id: int, event: Event | None) -> None:
    """Bring the task's tally up to `event` (None: its newest time event), in order."""
    bound = event.id if event is not None else _NEWEST
    rows = fetch_all(sql.tally_row(), [bound, task_id])
    if not rows:
        if event is not None and event.kind == "task.created" and event.task is not None:
            _start(event.task, [event])  # its first time event: the replay of its events
            return
        found = rows_where(Task, "id", task_id, "id", limit=1)
        if found:  # no tally yet (a new task's creation left for after the answer): replayed
            _start(found[0], [*_missed(task_id, 0, bound), *([event] if event else [])])
        return
    kept = columns(TaskEffort, "x")
    row, behind = kept.build(rows[0]), rows[0][kept.width]
    facts = _missed(task_id, row.event_id, bound) if behind else []
    if event is not None:
        facts.append(event)
    if not facts:
        return
    tally = intervals.Tally.of(times_of(row), row.state)
    names = intervals.owners(settings.RELAYBAY.owner_names)
    for fact in facts:
        tally.step(intervals.Fact(fact.created_at, fact.kind, fact.payload), names)
    _fill(row, tally, facts[-1].id)
    values = {name: getattr(row, name) for name in TALLY_FIELDS}
    update(TaskEffort, values, where={"task": task_id})


def _missed(task_id: int, after: int, before: int) -> list[Event]:
    found = columns(Event, "e")
    return [found.build(r) for r in fetch_all(sql.time_events_between(), [task_id, after, before])]


def _start(task: Task, events: list[Event]) -> None:
    """A task's first tally, from its time events so far (SQL written once: it runs after
    every task_create's answer)."""
    facts = [intervals.Fact(e.created_at, e.kind, e.payload) for e in events]
    names = settings.RELAYBAY.owner_names
    tally = intervals.replay(
        facts, created_at=task.created_at, first_stage=task.stage, owner_names=names
    )
    last = events[-1].id if events else 0
    insert(_fill(TaskEffort(task_id=task.id, project_id=task.project_id), tally, last))


def effort_backfill(
    *,
    task_model: type[Task] = Task,
    event_model: type[Event] = Event,
    effort_model: type[TaskEffort] = TaskEffort,
) -> int:
    """Give every task without a time tally (made before tallies were kept) its tally,
    replayed from its events: run once, by migration effort 0002 (which hands in its
    historical models), so that no read ever writes. Returns how many tasks it replayed."""
    missing = list(
        task_model.objects.exclude(id__in=effort_model.objects.values("task_id")).only(
            "id", "project_id", "stage", "created_at"
        )
    )
    for start in range(0, len(missing), _IN_CHUNK):
        _replay(missing[start : start + _IN_CHUNK], event_model, effort_model)
    return len(missing)


def _replay(
    tasks: Iterable[Task],
    event_model: type[Event] = Event,
    effort_model: type[TaskEffort] = TaskEffort,
) -> None:
    tasks = list(tasks)
    facts: dict[int, list[intervals.Fact]] = defaultdict(list)
    last: dict[int, int] = {}
    for event_id, task_id, at, kind, payload in (
        event_model.objects.filter(task_id__in=[t.id for t in tasks], kind__in=TIME_EVENTS)
        .order_by("id")
        .values_list("id", "task_id", "created_at", "kind", "payload")
    ):
        facts[task_id].append(intervals.Fact(at, kind, payload))
        last[task_id] = event_id
    names = settings.RELAYBAY.owner_names
    fresh = []
    for task in tasks:
        tally = intervals.replay(
            facts[task.id], created_at=task.created_at, first_stage=task.stage, owner_names=names
        )
        row = effort_model(task_id=task.id, project_id=task.project_id)
        fresh.append(_fill(row, tally, last.get(task.id, 0)))
    effort_model.objects.bulk_create(fresh, ignore_conflicts=True)


def _fill(row: TaskEffort, tally: intervals.Tally, event_id: int) -> TaskEffort:
    times = tally.times()
    row.as_of, row.stage, row.stage_seconds = times.as_of, times.stage, times.stage_seconds
    row.agent_seconds, row.wall_seconds = times.agent_seconds, times.wall_seconds
    row.waiting_seconds, row.agents_open = times.waiting_seconds, times.agents_open
    row.waiting_open, row.sessions, row.turns = times.waiting_open, times.sessions, times.turns
    row.state = tally.state()
    row.event_id = event_id
    return row


def untimed(task: Task) -> intervals.Times:
    """The figures of a task with no tally (none can be left after effort_backfill): no
    time yet, as of its creation, in its stage."""
    return intervals.Times(as_of=task.created_at, stage=task.stage)


def times_of(row: TaskEffort) -> intervals.Times:
    """A TaskEffort row's figures as of its last event."""
    return intervals.Times(
        as_of=row.as_of,
        stage=row.stage,
        stage_seconds={k: float(v) for k, v in (row.stage_seconds or {}).items()},
        agent_seconds=row.agent_seconds,
        wall_seconds=row.wall_seconds,
        waiting_seconds=row.waiting_seconds,
        agents_open=row.agents_open,
        waiting_open=row.waiting_open,
        sessions=row.sessions,
        turns=row.turns,
    )
