"""Owner comments through hooks (§4 "Owner comments through hooks") and the wake-up lines.

What sessions plugs in (register(), from sessions.apps.ready()):
- a context provider for PROMPT, PRE_TOOL and POST_TOOL: the owner comments
  pending for the session, one line each, plus how to answer; they are marked delivered and
  never sent again by these events — only on an event whose context the agent reads
  (registry.Capabilities.context_on);
- a SESSION_START provider: the count of unread owner comments (does not deliver them);
- a Stop handler: block while owner comments are undelivered (delivered with the block) or
  delivered but unacknowledged, each comment at most twice in all;
- the board's recipient lookup (who a new comment goes to);
- `take_wake_lines(session)` for the wake-up endpoint.

Only a hook call whose session is exactly linked to this agent session id (HookCall.exact)
gets comment text, and only for the tasks bound to its session now. Writes go through
tasks.services.comments_deliver; the selection is tasks.selectors.comments.
"""

from __future__ import annotations

from dataclasses import dataclass

from sessions import selectors
from sessions.hooks import answer as hook_answer
from sessions.hooks import event as ev
from sessions.hooks import registry
from sessions.hooks.answer import HookAnswer, HookCall, StopRequest
from sessions.models import ENDED, Session
from tasks import services
from tasks.extensions import plug_in_once
from tasks.models import Comment, Task
from tasks.selectors import comments as comment_selectors
from tasks.selectors.comments import Recipient

DELIVERY_KINDS = frozenset({ev.PROMPT, ev.PRE_TOOL, ev.POST_TOOL})
# After the plan reminders and the guard's lines: owner comments get the rest of the
# shared 8000-character budget (§4 Plan reminders).
ORDER = 50
LINE_BREAK = " ↵ "  # one line per comment (§4); the body's own line breaks stay visible

HOW_TO_ANSWER = (
    "Handle each owner comment like a user message, then answer it with comment_add(task, "
    "body, in_reply_to=<id>) or acknowledge it with comment_ack(comment_ids=[<id>])."
)
STOP_HEAD = "relaybay: the owner commented on your tasks. Handle these comments before you stop:"


def comment_line(c: Comment) -> str:
    """`Owner comment on <key> (#<id>): <text>` on one line."""
    text = LINE_BREAK.join(line.rstrip() for line in c.body.strip().splitlines() if line.strip())
    return f"Owner comment on {c.task.key} (#{c.id}): {text}"


def more_line(n: int) -> str:
    return f"{n} more owner comment(s) waiting — they come with the next events."


def unread_line(n: int) -> str:
    return (
        f"You have {n} unread owner comment(s) on your relaybay tasks: call comments_list, "
        "then comment_ack or comment_add."
    )


@dataclass(frozen=True)
class Pick:
    """The comments that fit an answer (oldest first, at least one) and how many wait."""

    comments: list[Comment]
    left: int


def pick(candidates: list[Comment], budget: int, head: str = "") -> Pick:
    """As many comments as fit `budget` with the head, the how-to line and a "more" line;
    always at least one (a comment is at most 4000 characters, it must reach the agent
    whole)."""
    reserve = len(HOW_TO_ANSWER) + len(more_line(len(candidates))) + 2
    if head:
        reserve += len(head) + 1
    chosen: list[Comment] = []
    used = 0
    for c in candidates:
        cost = len(comment_line(c)) + 1
        if chosen and used + cost + reserve > budget:
            break
        chosen.append(c)
        used += cost
    return Pick(comments=chosen, left=len(candidates) - len(chosen))


def compose(comments: list[Comment], left: int, head: str = "") -> str:
    lines = [head] if head else []
    lines += [comment_line(c) for c in comments]
    lines.append(HOW_TO_ANSWER)
    if left:
        lines.append(more_line(left))
    return "\n".join(lines)


def _bound_task_ids(session: Session) -> list[int]:
    return [t.id for t in selectors.tasks_bound_to(session)]


def _deliver(session: Session, task_ids: list[int], budget: int, via: str) -> str | None:
    """Deliver what fits of the session's pending comments on its bound tasks (`task_ids`);
    the lines, or None."""
    if not task_ids:
        return None
    pending = comment_selectors.pending_delivery(task_ids, session.id)
    if not pending:
        return None
    chosen = pick(pending, budget)
    outcome = services.comments_deliver(
        comment_ids=[c.id for c in chosen.comments],
        session_id=session.id,
        session_name=session.name,
        via=via,
    )
    # Another hook of the same session may have delivered one a moment earlier: only what
    # this call delivered goes into its answer.
    delivered = {c.id for c in outcome.obj}
    sent = [c for c in chosen.comments if c.id in delivered]
    if not sent:
        return None
    return compose(sent, chosen.left)


# --- the hook seams ---------------------------------------------------------------------------


def deliver_context(call: HookCall, answer: HookAnswer) -> None:
    """PROMPT, PRE_TOOL, POST_TOOL: the pending owner comments (§4), only on an event whose
    context the agent reads (a comment is marked delivered only when it went out)."""
    if not call.exact or call.session is None:
        return
    if call.kind not in registry.capabilities(call.event.agent).context_on:
        return
    task_ids = [t.id for t in call.bound_tasks]
    text = _deliver(call.session, task_ids, answer.budget_left, via=call.event.name)
    if text:
        answer.add_context(text)


def session_start_context(call: HookCall, answer: HookAnswer) -> None:
    """SESSION_START: how many owner comments are unread; delivers nothing (§4)."""
    if not call.exact or call.session is None:
        return
    count = comment_selectors.unread_owner_count([t.id for t in call.bound_tasks])
    if count:
        answer.add_context(unread_line(count))


def stop_request(call: HookCall) -> StopRequest | None:
    """Stop: block while owner comments are undelivered or delivered but unacknowledged.

    The per-turn limit and the continued-turn rule are the hook core's; here each comment
    blocks at most twice in all (counted again from zero once it is delivered to a newly
    bound session), and the block delivers the comments it names.
    """
    session = call.session
    if not call.exact or session is None:
        return None
    task_ids = [t.id for t in call.bound_tasks]
    if not task_ids:
        return None
    candidates = comment_selectors.stop_candidates(task_ids, session.id)
    if not candidates:
        return None
    chosen = pick(candidates, hook_answer.CONTEXT_BUDGET, head=STOP_HEAD)
    ids = [c.id for c in chosen.comments]

    def on_blocked() -> None:
        services.comments_deliver(
            comment_ids=ids,
            session_id=session.id,
            session_name=session.name,
            via="Stop",
            stop_block=True,
        )

    return StopRequest(
        reason=compose(chosen.comments, chosen.left, STOP_HEAD), on_blocked=on_blocked
    )


# --- the wake-up endpoint ---------------------------------------------------------------------


def take_wake_lines(session: Session | None) -> str | None:
    """The lines an idle, exactly linked session is woken with, or None.

    Marks the pending owner comments delivered (comment.delivered, via "wake") and returns
    the same lines a hook answer would carry (at most 8000 characters, at least one
    comment, then "N more owner comment(s) waiting …"). None when the session is not
    exactly linked, has ended, is bound to no task or has nothing pending.
    """
    if session is None or not session.agent_exact or not session.agent_session_id:
        return None
    if session.hook_status == ENDED:
        return None
    return _deliver(session, _bound_task_ids(session), hook_answer.CONTEXT_BUDGET, via="wake")


# --- the board's recipient lookup ---------------------------------------------------------------


def recipients(tasks: list[Task]) -> dict[int, Recipient]:
    """{task id: the bound session as a Recipient}, in one query."""
    return {
        task_id: Recipient(
            name=name,
            session_id=session_id,
            exact=bool(agent_exact and agent_session_id),
            ended=hook_status == ENDED,
            arrives=registry.comments_arrive(agent),
        )
        for task_id, (session_id, name, agent_exact, agent_session_id, hook_status, agent) in (
            selectors.bound_session_facts(tasks).items()
        )
    }


@plug_in_once
def register() -> None:
    """Plug into the hook seams and the comments seams (idempotent)."""
    hook_answer.register_context_provider(ORDER, DELIVERY_KINDS, deliver_context)
    hook_answer.register_context_provider(
        ORDER, frozenset({ev.SESSION_START}), session_start_context
    )
    hook_answer.register_stop_handler(stop_request)
    comment_selectors.register_recipient_lookup(recipients)
