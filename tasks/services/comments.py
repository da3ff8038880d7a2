"""Comments: owner comments, agent replies, delivery and acknowledgement (§1 Comment, §4).

- owner_comment_add: the owner writes on the board (sent); it also marks the task's agent
  replies read (§2: sending a comment does the same as "Mark replies read").
  owner_comment_step is its write inside another service's transaction (a review decision).
- comment_replies_read: the board's "Mark replies read".
- comment_add: an agent's reply (MCP); replying to an owner comment marks it read.
- comment_ack: the agent acknowledges owner comments (by id, or all of a task).
- comments_deliver: a hook (or the wake-up) handed comments to a session's agent; with
  stop_block it also counts the Stop block they caused.

Sessions are named by plain ids and display names (tasks imports no other app): the hooks
pass them in (sessions.hooks.comments); an agent's write resolves its CallerRef inside
its own transaction through tasks.extensions.caller_in.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from core import actor as actors
from core.errors import InvalidField, NotFound
from tasks import extensions
from tasks import fields as F
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.models import COMMENT_AGENT, COMMENT_OWNER, Comment, Task
from tasks.selectors.comments import BODY_MAX, excerpt, recipient_of
from tasks.services._common import Outcome, load_task

ACK_MAX = 200  # comment ids per comment_ack call


def _clean_body(body: object) -> str:
    if not isinstance(body, str) or not body.strip():
        raise InvalidField("body", "body is empty: write the comment (markdown).")
    return F.check_length("body", body.strip(), BODY_MAX)


def _added(comment: Comment, *, actor: str, session: str | None) -> None:
    task = comment.task
    record_event(
        EventKind.COMMENT_ADDED,
        project=task.project,
        task=task,
        actor=actor,
        payload={
            "comment_id": comment.id,
            "author": comment.author_name,
            "author_kind": comment.author_kind,
            "excerpt": excerpt(comment.body),
            "in_reply_to": comment.in_reply_to_id,
            # owner comment: the session it goes to (None: none bound, it waits);
            # agent reply: its author.
            "session": session,
        },
    )


def _mark_read(
    task: Task, comments: list[Comment], *, actor: str, reason: str, now: datetime
) -> list[Comment]:
    """Mark unread comments of one task read; one comment.read event for all of them."""
    fresh = [c for c in comments if c.read_at is None]
    if not fresh:
        return []
    ids = [c.id for c in fresh]
    Comment.objects.filter(id__in=ids, read_at__isnull=True).update(read_at=now, read_by=actor)
    for c in fresh:
        c.read_at, c.read_by = now, actor
    record_event(
        EventKind.COMMENT_READ,
        project=task.project,
        task=task,
        actor=actor,
        payload={
            "comment_ids": ids,
            "author_kind": fresh[0].author_kind,
            "by": actor,
            "reason": reason,  # ack | reply | owner (marked read on the board) | comment
        },
    )
    return fresh


def _unread_replies(task: Task) -> list[Comment]:
    return list(
        Comment.objects.filter(task=task, author_kind=COMMENT_AGENT, read_at__isnull=True)
        .select_related("task")
        .order_by("id")
    )


# --- the owner (board) -------------------------------------------------------------------


def owner_comment_add(*, key: str, body: str, actor: str = actors.OWNER) -> Outcome[Comment]:
    """The owner writes a comment on a task's thread, for the agent of the bound session.

    body: markdown, up to 4000 characters. The comment is sent now and waits for a hook of
    the bound, exactly linked session (§4). Writing on the task marks its agent replies
    read. Events: comment.added {comment_id, author, author_kind, excerpt, in_reply_to,
    session}, then comment.read {comment_ids, author_kind, by, reason: "comment"} when
    replies were unread. Outcome.notes say where it goes.
    """
    with transaction.atomic(durable=True):
        return owner_comment_step(load_task(key), body=body, actor=actor)


def owner_comment_step(
    task: Task, *, body: str, actor: str, step_id: int | None = None
) -> Outcome[Comment]:
    """owner_comment_add's write as a step of the caller's open transaction.

    reviews.review_step_decide writes a decision and the comment that carries it in one
    transaction (§1), and a service does not call another public service (ARCHITECTURE
    §3): both call this step. step_id: the Owner check step the comment is about.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("owner_comment_step runs inside the caller's transaction")
    text = _clean_body(body)
    extensions.refuse_secrets(task.project, texts={"body": text})
    now = timezone.now()
    recipient = recipient_of(task)
    comment = Comment.objects.create(
        task=task,
        author_kind=COMMENT_OWNER,
        author_name=actor,
        body=text,
        step_id=step_id,
        created_at=now,
    )
    _added(comment, actor=actor, session=recipient.name if recipient else None)
    _mark_read(task, _unread_replies(task), actor=actor, reason="comment", now=now)
    note = (
        f"Comment #{comment.id} goes to {recipient.name}."
        if recipient
        else f"No session is bound to {task.key}: comment #{comment.id} waits until one is."
    )
    return Outcome(obj=comment, created=True, notes=(note,))


def comment_replies_read(*, key: str, actor: str = actors.OWNER) -> Outcome[list[Comment]]:
    """The owner marks the task's unread agent replies read ("Mark replies read").

    Event comment.read {comment_ids, author_kind: "agent", by, reason: "owner"}; nothing
    unread is a no-op (no event).
    """
    with transaction.atomic(durable=True):
        task = load_task(key)
        done = _mark_read(
            task, _unread_replies(task), actor=actor, reason="owner", now=timezone.now()
        )
    return Outcome(obj=done, changed=("read_at",) if done else ())


# --- the agent (MCP) ----------------------------------------------------------------------


def _comment_id(name: str, value: object) -> int:
    """12, "12" or "#12" → 12; anything else raises InvalidField naming the parameter."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, str) and value.strip().lstrip("#").isdigit():
        number = int(value.strip().lstrip("#"))
        if number > 0:
            return number
    raise InvalidField(name, f"{name} must be a comment id such as 12 (comments_list shows them).")


def comment_add(
    *,
    key: str,
    body: str,
    actor: Actor,
    in_reply_to: int | str | None = None,
) -> Outcome[Comment]:
    """An agent's reply on a task's thread; its author is the calling session (`actor`,
    resolved inside this transaction, so a refused reply records no session either).

    body: markdown, up to 4000 characters. in_reply_to: an id of a comment on the same
    task; replying to an owner comment marks it read (§1). The reply is unread until the
    owner marks it read or writes a comment. Events: comment.added (session = the author),
    comment.read {…, reason: "reply"} when the replied owner comment was unread.
    """
    text = _clean_body(body)
    reply_to = None if in_reply_to in (None, "", 0) else _comment_id("in_reply_to", in_reply_to)
    with transaction.atomic(durable=True):
        task = load_task(key)
        extensions.refuse_secrets(task.project, texts={"body": text})
        who = caller_in(actor, task=task)
        now = timezone.now()
        parent = None
        if reply_to is not None:
            parent = Comment.objects.select_related("task").filter(id=reply_to).first()
            if parent is None or parent.task_id != task.id:
                raise InvalidField(
                    "in_reply_to",
                    f"Comment #{reply_to} is not on {task.key}. Call comments_list(task="
                    f"{task.key}) to see its comment ids.",
                )
        comment = Comment.objects.create(
            task=task,
            author_kind=COMMENT_AGENT,
            author_name=who.name,
            author_session_id=who.session_id,
            body=text,
            in_reply_to=parent,
            created_at=now,
        )
        _added(comment, actor=who.name, session=who.name)
        notes = []
        answered = parent is not None and parent.author_kind == COMMENT_OWNER
        if answered and _mark_read(task, [parent], actor=who.name, reason="reply", now=now):
            notes.append(f"Owner comment #{parent.id} is marked read.")
    return Outcome(obj=comment, created=True, notes=tuple(notes), caller_notes=who.notes)


def _ack_targets(comment_ids: list[int], key: str | None) -> tuple[list[Comment], list[str]]:
    task = load_task(key) if key else None
    if not comment_ids:
        if task is None:
            raise InvalidField(
                "comment_ids",
                "Pass comment_ids (from the hook line or comments_list) or task to "
                "acknowledge all of its owner comments.",
            )
        rows = Comment.objects.filter(task=task, author_kind=COMMENT_OWNER, read_at__isnull=True)
        return list(rows.select_related("task__project").order_by("id")), []
    found = {
        c.id: c for c in Comment.objects.select_related("task__project").filter(id__in=comment_ids)
    }
    missing = [f"#{i}" for i in comment_ids if i not in found]
    if missing:
        raise NotFound(
            f"Unknown comment {', '.join(missing)}. Call comments_list to see the comment ids."
        )
    notes, targets = [], []
    for i in comment_ids:
        c = found[i]
        if task is not None and c.task_id != task.id:
            raise InvalidField(
                "comment_ids", f"Comment #{i} is on {c.task.key}, not {task.key}; nothing changed."
            )
        if c.author_kind != COMMENT_OWNER:
            notes.append(f"#{i} is an agent reply, not an owner comment: nothing to acknowledge.")
        elif c.read_at is not None:
            notes.append(f"Owner comment #{i} was already acknowledged.")
        else:
            targets.append(c)
    return targets, notes


def comment_ack(
    *, actor: Actor, comment_ids: Iterable[int | str] | None = None, key: str | None = None
) -> Outcome[list[Comment]]:
    """The agent acknowledges owner comments: by id (each 12, "12" or "#12"), or every
    unread owner comment of `key` when no ids are given (ids and key together: the ids
    must be on that task). Event comment.read {comment_ids, author_kind: "owner", by,
    reason: "ack"} per task. Already acknowledged ids and agent replies are notes, not
    errors; an unknown id raises NotFound and changes nothing.
    """
    ids = list(dict.fromkeys(_comment_id("comment_ids", i) for i in comment_ids or ()))
    if len(ids) > ACK_MAX:
        raise InvalidField("comment_ids", f"Pass at most {ACK_MAX} comment ids per call.")
    key = key.strip() if key and key.strip() not in F.CLEAR else None
    with transaction.atomic(durable=True):
        targets, notes = _ack_targets(ids, key)
        who = caller_in(actor, task_key=key)
        now = timezone.now()
        by_task: dict[int, list[Comment]] = {}
        for c in targets:
            by_task.setdefault(c.task_id, []).append(c)
        done: list[Comment] = []
        for group in by_task.values():
            done += _mark_read(group[0].task, group, actor=who.name, reason="ack", now=now)
    if not done and not notes:
        notes.append(f"{key} has no unacknowledged owner comments." if key else "Nothing to do.")
    changed = ("read_at",) if done else ()
    return Outcome(obj=done, changed=changed, notes=tuple(notes), caller_notes=who.notes)


# --- delivery (hooks and the wake-up) ---------------------------------------------------------


def comments_deliver(
    *,
    comment_ids: Iterable[int],
    session_id: int,
    session_name: str,
    via: str,
    stop_block: bool = False,
    actor: str = actors.HOOK,
) -> Outcome[list[Comment]]:
    """Mark owner comments delivered to a session's agent; with stop_block also count the
    Stop block they caused (§4).

    Of the given ids, unread owner comments not yet delivered to this session are marked
    delivered (delivered_at, delivered_to_session_id, delivered_to_name) with one
    comment.delivered {comment_id, session, via} each; delivery to a session other than the
    last one starts the comment's Stop-block count again from zero. Read comments, agent
    replies and comments delivered to this session already are left alone, so two hooks
    racing for the same comment deliver it once. Outcome.obj: the comments delivered now.
    """
    ids = list(dict.fromkeys(comment_ids))
    if not ids:
        return Outcome(obj=[])
    # Not durable: a hook delivers inside the hook's own transaction (a provider's
    # savepoint), the wake-up in a transaction of its own.
    with transaction.atomic():
        rows = list(
            Comment.objects.select_related("task__project")
            .filter(id__in=ids, author_kind=COMMENT_OWNER, read_at__isnull=True)
            .order_by("id")
        )
        now = timezone.now()
        delivered = []
        for c in rows:
            fields = []
            if c.delivered_to_session_id != session_id:
                c.delivered_at, c.delivered_to_session_id = now, session_id
                c.delivered_to_name, c.stop_blocks = session_name, 0
                fields += ["delivered_at", "delivered_to_session_id", "delivered_to_name"]
                fields.append("stop_blocks")
                delivered.append(c)
                record_event(
                    EventKind.COMMENT_DELIVERED,
                    project=c.task.project,
                    task=c.task,
                    actor=actor,
                    payload={"comment_id": c.id, "session": session_name, "via": via},
                )
            if stop_block:
                c.stop_blocks += 1
                fields.append("stop_blocks")
            if fields:
                c.save(update_fields=sorted(set(fields)))
    return Outcome(obj=delivered, changed=("delivered_at",) if delivered else ())
