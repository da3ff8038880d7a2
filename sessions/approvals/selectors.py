"""The approval requests that wait for the owner, as the board shows them: all of them for
the Inbox's first group and its badge, a task's for its card, a session's for its panel."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from sessions.hooks.registry import agent_mark, agent_title
from sessions.models import PENDING, ApprovalRequest


@dataclass(frozen=True)
class Pending:
    """One request as a row shows it."""

    id: int
    agent: str  # the agent's title ("Claude Code")
    session: str
    task_key: str
    project: str  # the project's slug ("" when the hook could not place it)
    source: str
    tool: str
    summary: str
    stand: str
    level: str
    rule: str
    reason: str
    requested_at: datetime
    deadline: datetime
    task_title: str = ""
    agent_mark: str = ""  # its two letters ("CC"), as on the card
    state: str = PENDING  # a request read by `one` may have ended
    message: str = ""  # a Deny's message
    project_name: str = ""

    @property
    def from_guard(self) -> bool:
        return self.source == "guard"


def _waiting() -> QuerySet[ApprovalRequest]:
    """Pending and not past its deadline: a request whose hook a restart took away is
    nobody's to answer any more."""
    return ApprovalRequest.objects.filter(state=PENDING, deadline__gt=timezone.now())


def pending(
    *, task_ids: Iterable[int] | None = None, session_id: int | None = None
) -> list[Pending]:
    """Pending requests, oldest first: every one, a set of tasks' or one session's."""
    rows = _waiting().select_related("session", "task", "project")
    if task_ids is not None:
        rows = rows.filter(task_id__in=list(task_ids))
    if session_id is not None:
        rows = rows.filter(session_id=session_id)
    return [_row(r) for r in rows.order_by("requested_at", "id")]


def one(approval_id: int) -> Pending | None:
    """One request whatever its state: the block the board's buttons answer with."""
    row = (
        ApprovalRequest.objects.filter(pk=approval_id)
        .select_related("session", "task", "project")
        .first()
    )
    return _row(row) if row is not None else None


def pending_count() -> int:
    """The Inbox badge's share: one COUNT on the pending index."""
    return _waiting().count()


def by_task(task_ids: Iterable[int]) -> dict[int, list[Pending]]:
    """{task id: its pending requests}, one query: the board's cards."""
    found: dict[int, list[Pending]] = {}
    ids = list(task_ids)
    if not ids:
        return found
    rows = (
        _waiting()
        .filter(task_id__in=ids)
        .select_related("session", "task", "project")
        .order_by("requested_at", "id")
    )
    for row in rows:
        found.setdefault(row.task_id, []).append(_row(row))
    return found


def _row(r: ApprovalRequest) -> Pending:
    return Pending(
        id=r.pk,
        agent=agent_title(r.agent) or r.agent,
        session=r.session.name if r.session is not None else "",
        task_key=r.task.key if r.task is not None else "",
        project=r.project.slug if r.project is not None else "",
        source=r.source,
        tool=r.tool,
        summary=r.summary,
        stand=r.stand,
        level=r.level,
        rule=r.rule,
        reason=r.reason,
        requested_at=r.requested_at,
        deadline=r.deadline,
        task_title=r.task.title if r.task is not None else "",
        agent_mark=agent_mark(r.agent),
        state=r.state,
        message=r.message,
        project_name=r.project.name if r.project is not None else "",
    )
