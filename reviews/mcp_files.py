"""MCP adapters of screenshots (§1 Screenshots, §3 Review group): attach_file and
attachment_caption.

Same shape as reviews.mcp_tools: each tool is `async def` and makes exactly one
`call_service` hop to the service it names, answering from the service's Outcome. The
file checks and storage live in reviews.files and reviews.storage; removing a
screenshot is the owner's, on the board.
"""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BeforeValidator, Field

from core.display import size_text
from core.mcp import ToolEntry, add_tools, call_service
from reviews import files, services
from reviews.models import CAPTION_MAX, Attachment
from tasks.extensions import CallerRef
from tasks.mcp_params import (
    WRITE,
    HookSession,
    Session,
    SessionTitle,
    TaskKey,
    chars,
    optional,
    step_number,
)
from tasks.services import Outcome

StepOf = Annotated[
    int | None,
    BeforeValidator(lambda v: None if v in ("", None) else step_number(v)),
    Field(
        description="The Owner check step it shows (1, 2, … as review_get shows); "
        "left out: the task itself."
    ),
]
AttachmentId = Annotated[
    int,
    BeforeValidator(lambda v: v.strip().lstrip("#") if isinstance(v, str) else v),
    Field(description="The attachment's number, as attach_file answered (#12 or 12)."),
]


def _line(found: Attachment) -> str:
    where = f"step {found.step.position}" if found.step is not None else "the task"
    name = f" ({found.original_name})" if found.original_name else ""
    return (
        f"Attachment #{found.id}{name} on {where} of {found.task.key}: "
        f"{found.content_type}, {size_text(found.size)}."
    )


def _with(head: str, notes: tuple[str, ...] | list[str]) -> str:
    return "\n".join([head, *(f"- {n}" for n in notes)]) if notes else head


# --- the write answers --------------------------------------------------------------------


def _attached_md(outcome: Outcome[Attachment]) -> str:
    if not outcome.created:
        return _with(outcome.notes[0], [_line(outcome.obj), *outcome.caller_notes])
    return _with(_line(outcome.obj).replace(":", " attached:", 1), outcome.caller_notes)


def _caption_md(outcome: Outcome[Attachment]) -> str:
    if not outcome.changed:
        return _with(outcome.notes[0], outcome.caller_notes)
    head = f"Caption of attachment #{outcome.obj.id} on {outcome.obj.task.key} written."
    return _with(head, outcome.caller_notes)


# --- tools ---------------------------------------------------------------------------------


async def attach_file(
    task: TaskKey,
    path: optional(
        "Absolute path of the screenshot, inside the project's repo, the temp folder or "
        "attachment_roots. Network shares are refused.",
        files.PATH_MAX,
    ) = None,
    content_base64: Annotated[
        str | None,
        Field(
            description="The file's bytes in base64, instead of path.",
            # Read when the tool is registered, after the settings: the file limit in base64.
            json_schema_extra=lambda schema: schema.update(maxLength=files.base64_max()),
        ),
    ] = None,
    step: StepOf = None,
    caption: optional("What the screenshot shows (markdown).", CAPTION_MAX) = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Attach a screenshot (PNG, JPEG, WebP or GIF) to a task or to one step of its Owner
    check, so the owner sees it on the board.

    Give either path or content_base64. The content decides the format, not the name; at
    most 10 MB per file and 200 MB per task by default (attachments_max_mb,
    attachments_task_max_mb).
    The same image on the same task is kept once: attaching it again answers with the
    existing one and the step it is on.

    Returns:
        "Attachment #<id> (<name>) on step <n> of <key> attached: image/png, 34 KB." or
        "Already attached: attachment #<id> on step <n> of <key> …".
    Errors:
        - Unknown task or step; not an image of these formats; over a size limit;
          a relative, share or device path, or a path outside the allowed folders.
    """
    return await call_service(
        services.attach_file,
        key=task,
        path=path,
        content_base64=content_base64,
        step=step,
        caption=caption,
        actor=CallerRef(session, session_title, hook_session),
        answer=_attached_md,
    )


async def attachment_caption(
    attachment: AttachmentId,
    caption: Annotated[
        str,
        Field(
            description='The new caption (markdown); "-" clears it.',
            json_schema_extra=chars(CAPTION_MAX),
        ),
    ],
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Change the caption of a screenshot attach_file stored.

    Returns:
        "Caption of attachment #<id> on <key> written." or "Nothing changed: …".
    Errors:
        - Unknown attachment; a caption over 2000 characters.
    """
    return await call_service(
        services.attachment_caption,
        attachment=attachment,
        caption=caption,
        actor=CallerRef(session, session_title, hook_session),
        answer=_caption_md,
    )


_TOOLS: list[ToolEntry] = [
    (attach_file, WRITE),
    (attachment_caption, WRITE),
]


def register(server: MCPServer) -> None:
    """Add the screenshot tools to the MCP server (called by reviews.mcp_tools.register)."""
    add_tools(server, _TOOLS)
