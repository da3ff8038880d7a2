"""The screenshot services (§1 Screenshots (attachments), §9.10).

- attach_file: check the file (reviews.files), store it once per task and SHA-256, row;
- attachment_caption: change a screenshot's caption;
- attachment_remove: the board removes one; its file goes after commit.

Where the files live, and the start's sweep of what no row names: reviews.storage.
"""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from core.errors import InvalidField, NotFound
from reviews import files, selectors, storage
from reviews.models import CAPTION_MAX, Attachment, ReviewStep
from reviews.services._common import event
from tasks.events import EventKind
from tasks.extensions import Actor, caller_in, refuse_secrets
from tasks.models import Task
from tasks.selectors import get_task
from tasks.services import Outcome
from tasks.steps import checked_text


def _caption(value: object) -> str:
    text = checked_text("caption", value or "", CAPTION_MAX).strip()
    return "" if text == "-" else text


def _read(
    task: Task, path: str | None, content_base64: str | None, content: bytes | None
) -> tuple[bytes, str]:
    if sum(1 for given in (path, content_base64, content) if given) != 1:
        raise InvalidField(
            "path", "Give either path (an absolute file path) or content_base64, not both."
        )
    if path:
        return files.read_path(path, task.project.repo_path), files.display_name(path)
    if content is not None:  # the board's paste: raw bytes, the same limit
        if len(content) > files.file_limit():
            raise files.too_big(len(content), files.file_limit(), "The file")
        return bytes(content), ""
    return files.decode_base64(content_base64 or ""), ""


def _where(attachment: Attachment) -> str:
    step = attachment.step
    return f"step {step.position}" if step is not None else "the task"


def attach_file(
    *,
    key: str,
    actor: Actor,
    path: str | None = None,
    content_base64: str | None = None,
    content: bytes | None = None,
    step: int | str | None = None,
    caption: str | None = None,
) -> Outcome[Attachment]:
    """Attach a screenshot to task `key` (or to step `step` of its Owner check).

    Exactly one of path / content_base64 / content (raw bytes: the board's paste). The
    content decides: PNG, JPEG, WebP or GIF only; at most attachments_max_mb per file and
    attachments_task_max_mb per task. The same SHA-256 on the same task is stored once:
    attaching it again reuses it (a note names where it is). Event attachment.added
    {attachment_id, step, caption, original_name}. Raises NotFound (task, step),
    InvalidField (file, path, limits).
    """
    task = get_task(key)
    refuse_secrets(task.project, texts={"caption": caption, "path": path})
    text = _caption(caption) if caption is not None else ""
    data, original = _read(task, path, content_base64, content)
    kind = files.image_kind(data)
    digest = hashlib.sha256(data).hexdigest()
    written: Path | None = None
    try:
        with transaction.atomic(durable=True):
            task = get_task(key)
            who = caller_in(actor, task=task)
            found: ReviewStep | None = selectors.find_step(task, step) if step is not None else None
            same = Attachment.objects.select_related("step").filter(task=task, sha256=digest)
            if existing := same.first():
                note = (
                    f"Already attached: attachment #{existing.id} on {_where(existing)} of "
                    f"{task.key} has the same content; it is reused."
                )
                return Outcome(obj=existing, notes=(note,), caller_notes=who.notes)
            used = Attachment.objects.filter(task=task).aggregate(n=Sum("size"))["n"] or 0
            if used + len(data) > files.task_limit():
                raise files.too_big(used + len(data), files.task_limit(), f"{task.key} with it")
            name = f"{secrets.token_hex(16)}.{kind.ext}"
            folder = storage.attachments_root() / task.project.slug / task.key
            written = storage.write(folder, name, data)
            attachment = Attachment(
                task=task,
                step=found,
                stored_name=name,
                original_name=original,
                content_type=kind.content_type,
                size=len(data),
                sha256=digest,
                caption=text,
                created_by=who.name,
                created_at=timezone.now(),
            )
            attachment.save(force_insert=True)
            payload = {
                "attachment_id": attachment.id,
                "step": found.position if found else None,
                "caption": text,
                "original_name": original,
            }
            event(EventKind.ATTACHMENT_ADDED, task, who.name, payload)
            return Outcome(
                obj=attachment, created=True, changed=("attachment",), caller_notes=who.notes
            )
    except BaseException:
        if written is not None:
            storage.unlink(written)
        raise


def _find(attachment: int | str) -> Attachment:
    text = str(attachment).strip().lstrip("#") if isinstance(attachment, int | str) else ""
    if isinstance(attachment, bool) or not text.isdigit():
        raise InvalidField("attachment", f"attachment is its number (#12), not {attachment!r}.")
    found = Attachment.objects.select_related("task__project", "step").filter(id=int(text)).first()
    if found is None:
        raise NotFound(f"No attachment #{text}.")
    return found


def attachment_caption(*, attachment: int | str, caption: str, actor: Actor) -> Outcome[Attachment]:
    """Change the caption (markdown) of `attachment`; "-" or "" clears it.

    Event attachment.updated {attachment_id, caption}. Raises NotFound, InvalidField.
    """
    text = _caption(caption)
    with transaction.atomic(durable=True):
        found = _find(attachment)
        refuse_secrets(found.task.project, texts={"caption": text})
        who = caller_in(actor, task=found.task)
        if found.caption == text:
            note = f"Nothing changed: attachment #{found.id} already has this caption."
            return Outcome(obj=found, notes=(note,), caller_notes=who.notes)
        found.caption = text
        found.save(update_fields=["caption"])
        payload = {"attachment_id": found.id, "caption": text}
        event(EventKind.ATTACHMENT_UPDATED, found.task, who.name, payload)
        return Outcome(obj=found, changed=("caption",), caller_notes=who.notes)


def attachment_remove(*, attachment: int | str, actor: str) -> Outcome[Attachment]:
    """Remove `attachment` (the board); its file is deleted after the commit.

    Event attachment.removed {attachment_id}. Raises NotFound.
    """
    with transaction.atomic(durable=True):
        found = _find(attachment)
        where = storage.file_path(found)
        number = found.id
        event(EventKind.ATTACHMENT_REMOVED, found.task, actor, {"attachment_id": number})
        found.delete()
        transaction.on_commit(lambda: storage.unlink(where))
        found.id = number
        return Outcome(obj=found, changed=("removed",))
