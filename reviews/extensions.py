"""What reviews plugs into the seams of tasks.extensions (registered in ReviewsConfig.ready)."""

from __future__ import annotations

from urllib.parse import urlencode

from core.display import stage_label
from core.links import link_pattern
from reviews import render_md, selectors
from tasks.extensions import (
    CardExtra,
    InboxGroup,
    plug_in_once,
    register_card_extras,
    register_inbox_group,
    register_move_facts,
    register_task_section,
)
from tasks.models import Task
from tasks.selectors.inbox import task_row


def task_section(task: Task) -> str:
    """task_get's "## Owner check": "2 of 5 accepted · 1 rejected" and the steps."""
    steps = selectors.review_steps(task)
    if not steps:
        return ""
    return render_md.review_md(steps, selectors.summarize(steps), full=False)


def review_href(board_url: str, key: str) -> str:
    """The task dialog over its board, on the Review tab."""
    return f"{board_url}?{urlencode({'task': key, 'tab': 'review'})}"


def card_extras(tasks: list[Task]) -> dict[int, CardExtra]:
    """The card badge "Review 2/5": green when all accepted, red-tinted while one is rejected.

    Batched per board render: one query whatever the number of cards.
    """
    keys = {t.id: t.key for t in tasks}
    board = link_pattern("board", "slug")  # once per render, not per card
    extras = {}
    for task_id, (slug, s) in selectors.card_summaries(tasks).items():
        css = "review-badge"
        if s.all_accepted:
            css += " review-accepted"
        elif s.rejected:
            css += " review-rejected"
        badge = (f"Review {s.accepted}/{s.total}", css, review_href(board(slug), keys[task_id]))
        extras[task_id] = CardExtra(badges=(badge,))
    return extras


def review_queue() -> InboxGroup | None:
    """The Inbox "Review queue": tasks in review or test with a checklist, longest waiting
    first (stage_changed_at), across projects; rows open the Review tab."""
    items = selectors.review_queue()
    if not items:
        return None
    board = link_pattern("board", "slug")
    rows = tuple(
        task_row(
            item.task,
            f"In {stage_label(item.task.stage)} · "
            f"{item.summary.accepted}/{item.summary.total} accepted"
            + (f" · {item.summary.rejected} rejected" if item.summary.rejected else ""),
            href=review_href(board(item.task.project.slug), item.task.key),
        )
        for item in items
    )
    return InboxGroup(id="review-queue", title="Review queue", rows=rows)


def move_facts(task: Task) -> dict[str, bool]:
    """§1: moving to review or test without a checklist adds a hint line (tasks reads it)."""
    return {"has_review_steps": selectors.has_review_steps(task)}


@plug_in_once
def register() -> None:
    """Plug into tasks once, even if ready() runs again (the seams are plain lists)."""
    register_task_section(30, task_section)
    register_move_facts(move_facts, keys=("has_review_steps",))
    register_card_extras(card_extras)
    register_inbox_group(10, review_queue)
