"""Where the owner sees a request waiting for Approve or Deny (docs/architecture.md §2
seams): the Inbox's first group "Waiting for your approval", a block on the task's card and
in its Session panel. Each is one frozen view rendered by sessions/partials/approval.html,
so a card or Inbox row stays a pure function of what it shows (core/row_html.py), and the
view the buttons answer with after a click is the same block in its new state.

tasks never imports this module: `register()` plugs it into tasks.extensions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from core import tokens
from core.display import Stamp, stamp
from core.security import current_token
from sessions.approvals import selectors
from sessions.approvals.selectors import Pending
from sessions.models import APPROVAL_MESSAGE_MAX, APPROVED, DENIED, PENDING, TERMINAL, TIMED_OUT
from tasks import extensions
from tasks.extensions import CardExtra, InboxGroup, InboxRow, RowBlock, plug_in_once
from tasks.models import Task

TEMPLATE = "sessions/partials/approval.html"
INBOX_TEMPLATE = "sessions/partials/approval_inbox_row.html"
GROUP_ID = "approvals"
GROUP_TITLE = "Waiting for your approval"
INBOX_ORDER = 1  # the very top: an agent stands still until the owner answers
PLACES = ("inbox", "card", "panel")  # where a block is shown: its id differs per place
OUTCOME_WORDS = {
    APPROVED: "Approved: the agent goes on.",
    DENIED: "Denied: the agent was told.",
    TERMINAL: "Answered in the terminal.",
    TIMED_OUT: "Not answered in time.",
}


@dataclass(frozen=True)
class ApprovalView:
    """One request as a block shows it, with the forms' URLs and CSRF value."""

    id: int
    place: str  # inbox | card | panel
    agent: str
    agent_mark: str
    session: str
    task_key: str
    task_title: str
    task_href: str
    project_name: str
    from_guard: bool
    tool: str
    summary: str
    stand: str
    level: str
    rule: str
    reason: str
    asked: Stamp
    waited: str  # "Asked just now", "Waiting 4 min"
    deadline: Stamp
    left: str  # "5 min left", "time is up"
    approve_url: str
    deny_url: str
    back: str  # where a plain form post returns: the Inbox, else the task
    csrf_token: str
    message_max: int = APPROVAL_MESSAGE_MAX
    state: str = PENDING
    outcome: str = ""  # after a click: what happened
    error: str = ""  # a refusal in the service's words
    typed: str = ""  # the Deny message a refusal keeps

    @property
    def pending(self) -> bool:
        return self.state == PENDING

    @property
    def dom_id(self) -> str:
        return f"approval-{self.place}-{self.id}"


def span(seconds: float) -> str:
    """A short duration: "under a minute", "4 min", "2 h", "3 d"."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return "under a minute"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} d"


def waited(seconds: float) -> str:
    return "Asked just now" if seconds < 60 else f"Waiting {span(seconds)}"


def time_left(deadline: datetime, now: datetime) -> str:
    seconds = (deadline - now).total_seconds()
    return "time is up" if seconds <= 0 else f"{span(seconds)} left"


def _task_href(p: Pending) -> str:
    if not (p.project and p.task_key):
        return ""
    return reverse("board", args=[p.project]) + "?" + urlencode({"task": p.task_key})


def view_of(p: Pending, place: str, now: datetime | None = None) -> ApprovalView:
    now = now or timezone.now()
    asked, deadline = stamp(p.requested_at, now), stamp(p.deadline, now)
    task_href = _task_href(p)
    assert asked is not None  # both moments are set on every request (not null)
    assert deadline is not None
    return ApprovalView(
        id=p.id,
        place=place if place in PLACES else PLACES[0],
        agent=p.agent,
        agent_mark=p.agent_mark,
        session=p.session,
        task_key=p.task_key,
        task_title=p.task_title,
        task_href=task_href,
        project_name=p.project_name,
        from_guard=p.from_guard,
        tool=p.tool,
        summary=p.summary,
        stand=p.stand,
        level=p.level,
        rule=p.rule,
        reason=p.reason,
        asked=asked,
        waited=waited((now - p.requested_at).total_seconds()),
        deadline=deadline,
        left=time_left(p.deadline, now),
        approve_url=reverse("approval_approve", args=[p.id]),
        deny_url=reverse("approval_deny", args=[p.id]),
        back=task_href if place != "inbox" and task_href else reverse("inbox"),
        csrf_token=tokens.csrf_token(current_token()),
        state=p.state,
        outcome=_outcome(p),
    )


def _outcome(p: Pending) -> str:
    if p.state == DENIED and p.message:
        return f"Denied: the agent was told “{p.message}”."
    return OUTCOME_WORDS.get(p.state, "The request ended." if p.state != PENDING else "")


def answered(view: ApprovalView, *, error: str = "", typed: str = "") -> ApprovalView:
    """The block after a click: its state now, and a refusal's words with what was typed."""
    return replace(view, error=error, typed=typed)


# --- the Inbox, the card, the Session panel -----------------------------------------------------


def inbox_group(limit: int | None = None) -> InboxGroup | None:
    """ "Waiting for your approval", oldest first (the one waiting longest is the most at
    risk of timing out); `limit` rows built and how many there are."""
    rows = selectors.pending()
    if not rows:
        return None
    now = timezone.now()
    shown = rows if limit is None else rows[:limit]
    return InboxGroup(
        id=GROUP_ID,
        title=GROUP_TITLE,
        rows=tuple(_inbox_row(p, now) for p in shown),
        total=len(rows),
    )


def _inbox_row(p: Pending, now: datetime) -> InboxRow:
    view = view_of(p, "inbox", now)
    return InboxRow(
        title=f"{p.tool} {p.summary}".strip(),
        href=view.task_href,
        key=p.task_key,
        block=RowBlock(INBOX_TEMPLATE, view),
    )


def card_extras(tasks: list[Task]) -> dict[int, CardExtra]:
    """{task id: its waiting requests as blocks on the card}, one query for the board."""
    now = timezone.now()
    return {
        task_id: CardExtra(blocks=tuple(RowBlock(TEMPLATE, view_of(p, "card", now)) for p in rows))
        for task_id, rows in selectors.by_task(t.id for t in tasks).items()
    }


def panel_views(task: Task) -> tuple[ApprovalView, ...]:
    """The task's waiting requests as its Session panel shows them."""
    now = timezone.now()
    return tuple(view_of(p, "panel", now) for p in selectors.pending(task_ids=[task.id]))


@plug_in_once
def register() -> None:
    """The Inbox group (its badge counts without building rows) and the cards' blocks."""
    extensions.register_inbox_group(
        INBOX_ORDER, inbox_group, selectors.pending_count, limited=GROUP_ID
    )
    extensions.register_card_extras(card_extras)
