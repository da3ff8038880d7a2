"""Effort writes: a transcript step counted.

`transcript_read` reads one bounded step of a session's transcript and, in one
transaction, counts its new responses on the tasks bound to the session at each
response's time, Claude Code's own process totals, and where the reading stands. The
counts are derived, like the memory's search index: no event is appended for them (a
session would write one every few seconds); the board hears of them from a throttled
live notice instead (effort/notify.py).

A task's time figures, stepped event by event, are effort/services/tally.py's.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime

from django.db import transaction
from django.utils import timezone

from effort.models import ProcessCost, TokenUsage, TranscriptCursor, UsageSeen
from effort.paths import Roots, allowed, session_id_of
from effort.reader import STEP_BYTES, Cursor, Opener, Step, open_plain, read_step
from effort.transcripts import UNKNOWN_MODEL, Response
from environments.secrets import safe_text
from sessions.models import Session, TaskBinding

KINDS = ("input", "output", "cache_write", "cache_read", "reasoning")
_IN_CHUNK = 500


@dataclass
class ReadResult:
    """What a step counted: the tasks whose tokens grew, and whether more is to read."""

    task_ids: set[int] = field(default_factory=set)
    responses: int = 0
    more: bool = False
    read: bool = False  # a file was read at all


def transcript_read(
    *,
    session_id: int,
    roots: Roots | None = None,
    opener: Opener = open_plain,
    limit: int = STEP_BYTES,
) -> ReadResult:
    """Read and count one step of the session's transcript; nothing for a path that is not
    the agent's own transcript of the session (paths.py), which is never opened."""
    roots = roots or Roots.of()
    # The file is read outside the transaction: the write lock is held for the counts only.
    session = Session.objects.filter(pk=session_id).first()
    if session is None or not session.agent:
        return ReadResult()
    row = TranscriptCursor.objects.filter(session=session).first()
    cursor = _cursor(row)
    path = _path_to_read(session, cursor, roots)
    if not path:
        return ReadResult()
    try:
        step = read_step(session.agent, path, cursor, limit=limit, opener=opener)
    except OSError:
        return ReadResult()
    if path != session.transcript_path and not step.more and not step.responses:
        step.cursor = Cursor()  # the old file is read to its end: on to the new one
        step.more = True
    if step.cursor == cursor and not step.responses and not step.totals:
        return ReadResult(read=True)  # nothing new: no write, no lock
    with transaction.atomic(durable=True):
        result = _count(session, step)
        _save_cursor(session, row, step.cursor)
    return result


def _cursor(row: TranscriptCursor | None) -> Cursor:
    if row is None:
        return Cursor()
    return Cursor(row.path, row.device, row.inode, row.offset, row.model)


def _path_to_read(session: Session, cursor: Cursor, roots: Roots) -> str:
    """The file to read: one the cursor has not finished first, else the hooks' latest."""
    agent = session.agent
    if cursor.path and cursor.path != session.transcript_path:
        old_id = session_id_of(agent, cursor.path)
        if old_id and allowed(agent, cursor.path, old_id, roots):
            return cursor.path
    new = session.transcript_path
    if new and session.agent_session_id and allowed(agent, new, session.agent_session_id, roots):
        return new
    return ""


def _save_cursor(session: Session, row: TranscriptCursor | None, cursor: Cursor) -> None:
    row = row or TranscriptCursor(session=session)
    row.path, row.device, row.inode = cursor.path, cursor.device, cursor.inode
    row.offset, row.model, row.read_at = cursor.offset, _safe_model(cursor.model), timezone.now()
    row.save()


def _count(session: Session, step: Step) -> ReadResult:
    result = ReadResult(more=step.more, read=True)
    fresh = _unseen(session, step.responses)
    if fresh:
        bindings = list(
            TaskBinding.objects.filter(session=session).values_list(
                "task_id", "bound_at", "unbound_at"
            )
        )
        sums: dict[tuple[int | None, date, str], list[int]] = defaultdict(lambda: [0] * 7)
        for response in fresh:
            _attribute(response, _bound_at(bindings, response.at), sums)
        _add_usage(session, sums)
        result.task_ids = {task for task, _, _ in sums if task is not None}
        result.responses = len(fresh)
    for total in step.totals:
        ProcessCost.objects.update_or_create(
            session=session, started=total.started, defaults={"total_usd": total.total_usd}
        )
    return result


def _unseen(session: Session, responses: list[Response]) -> list[Response]:
    """The responses not counted before (each response id once, however often written)."""
    by_key: dict[int, Response] = {}
    for response in responses:
        by_key.setdefault(response.key, response)
    keys = list(by_key)
    seen: set[int] = set()
    for start in range(0, len(keys), _IN_CHUNK):
        chunk = keys[start : start + _IN_CHUNK]
        seen.update(
            UsageSeen.objects.filter(session=session, digest__in=chunk).values_list(
                "digest", flat=True
            )
        )
    fresh = [r for k, r in by_key.items() if k not in seen]
    UsageSeen.objects.bulk_create(
        [UsageSeen(session=session, digest=r.key) for r in fresh], batch_size=_IN_CHUNK
    )
    return fresh


def _bound_at(bindings: list[tuple[int, datetime, datetime | None]], at: datetime) -> list[int]:
    """The tasks bound to the session at `at`, oldest task first."""
    return sorted({t for t, start, end in bindings if start <= at and (end is None or at < end)})


def _safe_model(model: str) -> str:
    """A model name read from a transcript is an observation: one that holds a secret's
    shape (a token, a name=value) is no model's name, and is kept as unknown."""
    return UNKNOWN_MODEL if model and safe_text(model) != model else model


def _attribute(
    response: Response, task_ids: list[int], sums: dict[tuple[int | None, date, str], list[int]]
) -> None:
    """Split a response's counts evenly between the tasks bound at its time (the remainder
    to the oldest task); [responses, shared, *KINDS] per (task, day, model)."""
    counts = [getattr(response, kind) for kind in KINDS]
    owners: list[int | None] = list(task_ids) or [None]
    share = len(owners)
    day, model = timezone.localdate(response.at), _safe_model(response.model)
    for index, task_id in enumerate(owners):
        row = sums[(task_id, day, model)]
        row[0] += 1
        row[1] += 1 if share > 1 else 0
        for k, amount in enumerate(counts):
            row[2 + k] += amount // share + (1 if index < amount % share else 0)


def _add_usage(session: Session, sums: dict[tuple[int | None, date, str], list[int]]) -> None:
    days = {day for _, day, _ in sums}
    existing = {
        (row.task_id, row.day, row.model): row
        for row in TokenUsage.objects.filter(session=session, day__in=days)
    }
    new = []
    for key, (responses, shared, *amounts) in sums.items():
        row = existing.get(key)
        if row is None:
            row = TokenUsage(session=session, task_id=key[0], day=key[1], model=key[2])
            new.append(row)
        row.responses += responses
        row.shared += shared
        for kind, amount in zip(KINDS, amounts, strict=True):
            setattr(row, kind, getattr(row, kind) + amount)
        if row.pk is not None:
            row.save(update_fields=["responses", "shared", *KINDS])
    TokenUsage.objects.bulk_create(new)
