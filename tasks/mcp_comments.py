"""MCP adapters of the comments (§3 Comments group): comments_list, comment_ack, comment_add.

Same shape as tasks.mcp_tasks: each tool is `async def` and makes exactly one
`call_service` hop, a write tool naming its service and building its answer from the
service's Outcome; the answers are short markdown (structured_output=False). Registered by
tasks.mcp_tools.register.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from django.utils import timezone
from mcp.server.mcpserver import MCPServer
from pydantic import BeforeValidator, Field

from core.display import ago
from core.mcp import ToolEntry, add_tools, call_service
from tasks import selectors, services
from tasks.extensions import CallerRef
from tasks.mcp_params import READ, WRITE, HookSession, Session, SessionTitle, TaskKey, chars
from tasks.models import COMMENT_OWNER, Comment
from tasks.selectors import comments as comment_selectors
from tasks.selectors.comments import BODY_MAX
from tasks.services import Outcome

HOW_TO_ANSWER = (
    "Answer with comment_add(task, body, in_reply_to=<id>) or acknowledge with "
    "comment_ack(comment_ids=[<id>, …])."
)


def _ids(value: Any) -> Any:
    """Comment ids as a model may send them: [3, 4], ["#3"], "3, 4", 3 or nothing."""
    if value is None or value == "":
        return []
    if isinstance(value, int | str):
        value = str(value).replace(",", " ").split()
    if isinstance(value, list):
        return [str(v).strip().lstrip("#") if isinstance(v, str) else v for v in value]
    return value


def _reply_to(value: Any) -> Any:
    if value is None or (isinstance(value, str) and value.strip() in ("", "-", "0")):
        return None
    return value.strip().lstrip("#") if isinstance(value, str) else value


CommentIds = Annotated[
    list[int] | None,
    BeforeValidator(_ids),
    Field(
        description="Ids of owner comments to acknowledge, e.g. [12, 13] (the hook line "
        "says 'Owner comment on <key> (#12)'; comments_list shows them)."
    ),
]
InReplyTo = Annotated[
    int | None,
    BeforeValidator(_reply_to),
    Field(description="Id of the comment you answer (on the same task); marks it read."),
]


# --- rendering -------------------------------------------------------------------------------


def _state(c: Comment, now: datetime) -> str:
    if c.author_kind == COMMENT_OWNER:
        if c.read_at is not None:
            return f"read by {c.read_by}" if c.read_by else "read"
        if c.delivered_at is not None:
            age = ago(c.delivered_at, now)
            return f"delivered to {c.delivered_to_name} {age}, not acknowledged"
        return "not delivered yet, not acknowledged"
    return "the owner read it" if c.read_at else "the owner has not read it yet"


def _comment_md(c: Comment, now: datetime) -> list[str]:
    who = "owner" if c.author_kind == COMMENT_OWNER else f"reply by {c.author_name}"
    to = f", to #{c.in_reply_to_id}" if c.in_reply_to_id else ""
    head = f"- #{c.id} {who}, {ago(c.created_at, now)}{to} — {_state(c, now)}"
    return [head, *(f"  > {line}".rstrip() for line in c.body.splitlines())]


def comments_md(data: comment_selectors.CommentList) -> str:
    if not data.threads:
        what = "unacknowledged owner comments" if data.unread_only else "comments"
        return f"No {what} on {data.scope}."
    lines: list[str] = []
    now = timezone.now()  # one moment for every age of the answer
    for t in data.threads:
        to = f" — bound to {t.recipient.name}" if t.recipient else " — no session bound"
        lines += ["", f"## {t.task.key} '{t.task.title}'{to}"]
        for c in t.comments:
            lines += _comment_md(c, now)
    if data.left_out:
        lines += ["", f"{data.left_out} older comment(s) not shown: narrow with task=<key>."]
    lines += ["", HOW_TO_ANSWER]
    return "\n".join(lines).strip()


# --- the read's sync half and the write answers ----------------------------------------


def _list(task: str, project: str, unread_only: bool) -> str:
    found_task = selectors.get_task(task) if task.strip() else None
    found_project = selectors.get_project(project) if project.strip() and not found_task else None
    data = comment_selectors.comment_list(
        task=found_task, project=found_project, unread_only=unread_only
    )
    return comments_md(data)


def _acked_md(outcome: Outcome[list[Comment]]) -> str:
    lines = []
    if outcome.obj:
        by_task: dict[str, list[str]] = {}
        for c in outcome.obj:
            by_task.setdefault(c.task.key, []).append(f"#{c.id}")
        done = "; ".join(f"{', '.join(v)} on {k}" for k, v in by_task.items())
        lines.append(f"Acknowledged owner comment(s) {done}.")
    return "\n".join([*lines, *outcome.notes, *outcome.caller_notes])


def _added_md(outcome: Outcome[Comment]) -> str:
    c = outcome.obj
    to = f" in reply to #{c.in_reply_to_id}" if c.in_reply_to_id else ""
    head = f"Added reply #{c.id} to {c.task.key}{to}; the owner sees it on the board."
    return "\n".join([head, *outcome.notes, *outcome.caller_notes])


# --- tools ------------------------------------------------------------------------------------


async def comments_list(
    task: Annotated[str, Field(description="Task key: only this task's thread.")] = "",
    project: Annotated[str, Field(description="Project slug: the threads of its tasks.")] = "",
    unread_only: Annotated[
        bool, Field(description="Only the owner comments not acknowledged yet.")
    ] = False,
) -> str:
    """List comment threads: owner comments and agent replies, oldest first per task.

    Call it when the session start says you have unread owner comments, or to read a
    task's discussion. Without task and project it covers every project. Handle each
    owner comment like a user message, then call comment_ack or answer with comment_add.

    Returns:
        Per task "## <key> '<title>' — bound to <session>", then one entry per comment:
        "#<id> owner|reply by <author>, <age>, to #<id> — <state>" (delivered to <session>,
        not acknowledged / read; for replies whether the owner read it) and the text
        quoted. At most 100 comments, the newest.
    Errors:
        - Unknown task or project.
    """
    return await call_service(_list, task, project, unread_only)


async def comment_ack(
    comment_ids: CommentIds = None,
    task: Annotated[
        str,
        Field(description="Task key: without comment_ids, acknowledge all its owner comments."),
    ] = "",
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Acknowledge owner comments you have handled (they stop holding your turn at Stop).

    Pass the ids from the hook line "Owner comment on <key> (#<id>): …", or task alone for
    every unacknowledged owner comment of that task. Answering with comment_add(...,
    in_reply_to=<id>) acknowledges that comment too.

    Returns:
        "Acknowledged owner comment(s) #12, #13 on <key>." plus notes (already
        acknowledged, an agent reply).
    Errors:
        - An unknown comment id (nothing changes); an id on another task than task;
          neither comment_ids nor task.
    """
    return await call_service(
        services.comment_ack,
        comment_ids=list(comment_ids or []),
        key=task.strip() or None,
        actor=CallerRef(session, session_title, hook_session),
        answer=_acked_md,
    )


async def comment_add(
    task: TaskKey,
    body: Annotated[
        str,
        Field(
            description=f"Your reply in markdown, at most {BODY_MAX} characters.",
            json_schema_extra=chars(BODY_MAX),
        ),
    ],
    in_reply_to: InReplyTo = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Reply on a task's comment thread; the owner reads it on the board.

    Your session is the reply's author. Use it to answer an owner comment (pass
    in_reply_to: that comment counts as read), to ask the owner a question, or to say what
    you did about a remark.

    Returns:
        "Added reply #<id> to <key> in reply to #<id>; …" plus "Owner comment #<id> is
        marked read." when it was unread.
    Errors:
        - Unknown task; empty or too long body (4000 characters); in_reply_to not a
          comment of this task.
    """
    return await call_service(
        services.comment_add,
        key=task,
        body=body,
        in_reply_to=in_reply_to,
        actor=CallerRef(session, session_title, hook_session),
        answer=_added_md,
    )


_TOOLS: list[ToolEntry] = [
    (comments_list, READ),
    (comment_ack, WRITE),
    (comment_add, WRITE),
]


def register(server: MCPServer) -> None:
    """Add the comment tools to the MCP server (called from tasks.mcp_tools.register)."""
    add_tools(server, _TOOLS)
