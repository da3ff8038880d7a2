"""Reads of the comment threads (§1 Comment, §2 Comments, §4 Owner comments through hooks).

Who a new owner comment goes to depends on the session bound to the task, which the
sessions app owns; tasks imports no other app (docs/architecture.md §2), so sessions registers a
batched lookup here (`register_recipient_lookup`) and tasks calls whatever is registered.

Delivery selection (§4), for a session S and the tasks bound to it now:
- pending: owner comments not read yet and not delivered to S — never delivered, or
  delivered to a previous session (they are delivered again to the newly bound one);
- Stop candidates: the pending ones, plus those delivered to S that are still unread and
  have caused fewer than two Stop blocks (one comment blocks at most twice in all).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone

from core.display import Stamp, stamp
from core.rows import columns, fetch_all, fetch_one, fetch_related
from tasks import extensions, sql
from tasks.extensions import InboxGroup, InboxRow
from tasks.models import COMMENT_AGENT, COMMENT_OWNER, Comment, Project, Task
from tasks.selectors import sql as inbox_sql
from tasks.selectors.inbox import shown_since, task_links

BODY_MAX = 4_000  # §1 Comment: markdown, up to 4000 characters
EXCERPT_MAX = 200  # comment.added carries a 200-character excerpt (§4)
STOP_BLOCKS_MAX = 2  # one comment causes at most two Stop blocks in all (§4)
THREAD_SHOWN = 200  # the newest comments of a long thread on the board
LIST_MAX = 100  # comments_list answers at most this many comments
INBOX_DETAIL_MAX = 160
ORDER_AGENT_REPLIES = 60  # tasks.selectors.inbox leaves 60 for this group


def excerpt(body: str, limit: int = EXCERPT_MAX) -> str:
    """The body on one line, cut to `limit` characters (… marks a cut)."""
    text = " ".join(body.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --- the recipient seam --------------------------------------------------------------------


@dataclass(frozen=True)
class Recipient:
    """The session bound to a task now: where a new owner comment goes."""

    name: str
    session_id: int
    exact: bool  # its agent linked its hook session itself: comments reach it (§4)
    ended: bool = False  # its agent session ended (a desktop session waits for its next)
    arrives: str = "with its next hook event"  # when its agent reads a comment (its events)


RecipientLookup = Callable[[list[Task]], dict[int, Recipient]]
_recipient_lookup: RecipientLookup | None = None


def register_recipient_lookup(fn: RecipientLookup) -> None:
    """sessions registers {task id: Recipient} for a list of tasks (one query per call)."""
    global _recipient_lookup
    _recipient_lookup = fn


def recipients(tasks: list[Task]) -> dict[int, Recipient]:
    if _recipient_lookup is None or not tasks:
        return {}
    return _recipient_lookup(tasks)


def recipient_of(task: Task) -> Recipient | None:
    return recipients([task]).get(task.id)


# --- delivery selection (hooks, wake-up) ---------------------------------------------------


_COMMENT = columns(Comment, "c")
_COMMENT_TASK = columns(Task, "t")  # the same instance tasks.selectors uses
# The three delivery reads below run on hooks of bound sessions (every tool call), so their
# SQL is written once (tasks/sql.py).


def _unread_params(task_ids: Iterable[int]) -> list[object]:
    return [json.dumps([int(i) for i in task_ids]), COMMENT_OWNER]


def _comments(statement: str, params: list[object]) -> list[Comment]:
    """Comments with their task cached, as select_related("task") would."""
    return fetch_related(statement, params, _COMMENT, _COMMENT_TASK, "task")


def pending_delivery(task_ids: Iterable[int], session_id: int) -> list[Comment]:
    """Unread owner comments on these tasks not yet delivered to this session, oldest first."""
    return _comments(sql.PENDING_DELIVERY.text, [*_unread_params(task_ids), session_id])


def stop_candidates(task_ids: Iterable[int], session_id: int) -> list[Comment]:
    """Unread owner comments a Stop may block on: pending ones, and those delivered to this
    session that have caused fewer than two Stop blocks; oldest first."""
    return _comments(
        sql.STOP_CANDIDATES.text, [*_unread_params(task_ids), session_id, STOP_BLOCKS_MAX]
    )


def unread_owner_count(task_ids: Iterable[int]) -> int:
    """Owner comments on these tasks that no agent acknowledged yet (SessionStart line)."""
    row = fetch_one(sql.UNREAD_OWNER_COUNT.text, _unread_params(task_ids))
    return row[0] if row else 0


# --- the board thread (§2 Comments) --------------------------------------------------------


@dataclass(frozen=True)
class CommentView:
    id: int
    is_owner: bool
    author: str
    body: str
    in_reply_to: int | None
    sent: Stamp
    delivered: Stamp | None  # owner comments
    delivered_to: str
    read: Stamp | None
    read_by: str
    unread: bool  # an agent reply the owner has not marked read


@dataclass(frozen=True)
class Thread:
    task: Task
    comments: list[CommentView]  # oldest first
    hidden: int  # older comments not shown
    unread_replies: int
    recipient: Recipient | None
    body_max: int = BODY_MAX

    @property
    def note(self) -> str:
        """Which session a new comment goes to, or that none is bound and it waits."""
        r = self.recipient
        if r is None:
            return (
                f"No session is bound to {self.task.key}: a new comment waits until one is, "
                "then reaches its agent."
            )
        if r.exact and not r.ended:
            return f"New comments go to {r.name}, {r.arrives}."
        return (
            f"New comments go to {r.name}; they reach its agent once it links its hook "
            "session (hook_session on a write)."
        )


def _view(c: Comment, now: datetime) -> CommentView:
    owner = c.author_kind == COMMENT_OWNER
    return CommentView(
        id=c.id,
        is_owner=owner,
        author=c.author_name,
        body=c.body,
        in_reply_to=c.in_reply_to_id,
        sent=stamp(c.created_at, now),
        delivered=stamp(c.delivered_at, now) if owner else None,
        delivered_to=c.delivered_to_name,
        read=stamp(c.read_at, now),
        read_by=c.read_by,
        unread=not owner and c.read_at is None,
    )


def thread(task: Task) -> Thread:
    """The task's thread for the board: the newest THREAD_SHOWN comments, oldest first."""
    now = timezone.now()
    rows = list(Comment.objects.filter(task=task).order_by("-id")[:THREAD_SHOWN])
    # The thread's length and its unread replies in one query, however long it is.
    unread = Q(author_kind=COMMENT_AGENT, read_at__isnull=True)
    counts = Comment.objects.filter(task=task).aggregate(
        total=Count("id"), unread=Count("id", filter=unread)
    )
    return Thread(
        task=task,
        comments=[_view(c, now) for c in reversed(rows)],
        hidden=max(counts["total"] - THREAD_SHOWN, 0),
        unread_replies=counts["unread"],
        recipient=recipient_of(task),
    )


# --- comments_list (MCP) -------------------------------------------------------------------


@dataclass(frozen=True)
class TaskThread:
    task: Task
    recipient: Recipient | None
    comments: list[Comment]  # oldest first


@dataclass(frozen=True)
class CommentList:
    threads: list[TaskThread]
    scope: str  # "acme-shop-12", "project acme-shop", "all projects"
    unread_only: bool
    left_out: int  # older comments beyond LIST_MAX


def comment_list(
    *, task: Task | None = None, project: Project | None = None, unread_only: bool = False
) -> CommentList:
    """The comments of one task, of a project's tasks, or (neither) of every project.

    unread_only keeps the owner comments no agent acknowledged yet. At most LIST_MAX
    comments, the newest, each with its task's key and title (no project), and how many were
    left out; three queries whatever the size.
    """
    params: list[object] = []
    if task is not None:
        params, scope = [task.pk], task.key
    elif project is not None:
        params, scope = [project.pk], f"project {project.slug}"
    else:
        scope = "all projects"
    if unread_only:
        params.append(COMMENT_OWNER)
    shape = (task is not None, project is not None, unread_only)
    newest = fetch_related(
        sql.comment_list(*shape, LIST_MAX), params, _COMMENT, sql.LIST_TASK, "task"
    )
    count_sql = sql.comment_list_count(*shape)
    left_out = max(fetch_one(count_sql, params)[0] - LIST_MAX, 0)  # type: ignore[index]
    by_task: dict[int, list[Comment]] = {}
    for c in reversed(newest):
        by_task.setdefault(c.task_id, []).append(c)
    tasks = sorted({c.task_id: c.task for c in newest}.values(), key=lambda t: t.id)
    found = recipients(tasks)
    return CommentList(
        threads=[TaskThread(t, found.get(t.id), by_task[t.id]) for t in tasks],
        scope=scope,
        unread_only=unread_only,
        left_out=left_out,
    )


# --- the Inbox group "Agent replies" (§2 Inbox) ---------------------------------------------


AGENT_REPLIES = "agent-replies"


def agent_replies(limit: int | None = None) -> InboxGroup:
    """Tasks with agent replies the owner has not marked read, newest reply first, each with
    the newest reply's author and text; `limit` of them (None: all) and how many there are.
    One statement written once (tasks/selectors/sql.py agent_replies): the queryset's
    compiling and the models of every unread reply cost several times its run, for a row or
    two."""
    cfg = settings.RELAYBAY
    statement = inbox_sql.agent_replies(cfg.require_tracker_log)
    wanted = -1 if limit is None else max(limit, 1)  # one row at least: it carries the total
    found = fetch_all(statement, [COMMENT_AGENT, shown_since(), wanted])
    link, result = task_links(), []
    for row in map(inbox_sql.ReplyRow._make, found[:limit]):
        more = f" (+{row.replies - 1} more)" if row.replies > 1 else ""
        detail = f"{row.author}: {excerpt(row.body, INBOX_DETAIL_MAX)}{more}"
        result.append(
            InboxRow(
                title=row.title,
                href=link(row.slug, row.key),
                detail=detail,
                key=row.key,
                project=row.project,
            )
        )
    total = found[0][-1] if found else 0
    return InboxGroup(id=AGENT_REPLIES, title="Agent replies", rows=tuple(result), total=total)


# --- the task dialog panel and the registration ------------------------------------------------

PANEL_TEMPLATE = "tasks/partials/comments_panel.html"
ORDER_PANEL = 20  # after the Session panel (10): §2 lists the session, then the comments


def comment_urls(task: Task) -> dict[str, str]:
    args = [task.project.slug, task.key]
    return {
        "post": reverse("comment_post", args=args),
        "thread": reverse("comments_thread", args=args),
        "read": reverse("comments_read", args=args),
    }


def comments_context(task: Task) -> dict[str, object]:
    """The Comments panel of the task dialog and page (Overview tab): the thread and its URLs."""
    return {"thread": thread(task), "comment_urls": comment_urls(task)}


@extensions.plug_in_once
def register() -> None:
    """The comments panel and the Inbox group "Agent replies" (from TasksConfig.ready())."""
    extensions.register_inbox_group(ORDER_AGENT_REPLIES, agent_replies, limited=AGENT_REPLIES)
    panel = extensions.Panel("comments", "Comments", PANEL_TEMPLATE, comments_context)
    extensions.register_task_panel(ORDER_PANEL, panel)
