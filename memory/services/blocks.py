"""block_set: the one write of a memory block (§8 Blocks).

A block is a size-limited text, global or for one project, with a version for optimistic
locking. Owner-only blocks, and the owner_only mark itself, change only on the board:
the board passes as_owner=True with a display-name actor; an agent's CallerRef never
counts as the owner.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from core.errors import Forbidden, InvalidField, NotFound, VersionConflict
from memory.models import BLOCK_LIMIT_DEFAULT, BLOCK_LIMIT_MAX, MemoryBlock
from memory.services._common import (
    clean_line,
    clean_slug,
    quoted,
    refuse_secrets,
    write_versioned,
)
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, CallerRef, caller_in
from tasks.fields import refuse_controls
from tasks.selectors import get_project

LABEL_MAX = 80
DESCRIPTION_MAX = 500


@dataclass(frozen=True)
class BlockResult:
    """What block_set did: the block (after the write), created / changed, notes."""

    block: MemoryBlock
    created: bool = False
    changed: bool = False
    notes: tuple[str, ...] = ()
    caller_notes: tuple[str, ...] = ()


def _scope(project_slug: str) -> str:
    return f"project {project_slug}" if project_slug else "global"


def _clean_limit(char_limit: int | None) -> int | None:
    if char_limit is None:
        return None
    if not 1 <= char_limit <= BLOCK_LIMIT_MAX:
        raise InvalidField(
            "char_limit", f"char_limit is 1-{BLOCK_LIMIT_MAX} characters; got {char_limit}."
        )
    return char_limit


def _owner_check(block: MemoryBlock | None, owner_only: bool | None, is_owner: bool) -> None:
    if is_owner:
        return
    if block is not None and block.owner_only:
        raise Forbidden(
            f"Block {block.label} is owner-only: the owner edits it on the board. "
            "Nothing was written; tell the owner what should change."
        )
    if owner_only and (block is None or not block.owner_only):
        raise Forbidden(
            "Only the owner marks a block owner-only, on the board. Leave owner_only out."
        )


def _conflict(block: MemoryBlock, base_version: int) -> VersionConflict:
    if base_version == 0:
        head = f"Block {block.label} already exists at version {block.version}."
    else:
        head = f"Conflict: block {block.label} is at version {block.version}, not {base_version}."
    return VersionConflict(
        f"{head} Nothing was written. Merge your change into the current body below and "
        f"write again with base_version {block.version}.\n\n{quoted(block.body)}",
        current_version=block.version,
    )


def block_set(
    *,
    label: str,
    body: str,
    base_version: int,
    actor: Actor,
    project: str | None = None,
    description: str | None = None,
    char_limit: int | None = None,
    owner_only: bool | None = None,
    as_owner: bool = False,
) -> BlockResult:
    """Create or change a memory block, global or of one project (§8 Blocks).

    base_version 0 creates it; any other base_version must be the current version, else
    VersionConflict with the current body. A body over char_limit (default 2000, at most
    20000) is refused with its count. An agent (a CallerRef, or without as_owner) may not
    change an owner-only block nor the owner_only mark. The same values again write
    nothing. Event block.updated {label, version}.
    Raises NotFound (project, block), InvalidField, Forbidden, VersionConflict.
    """
    # As given, before lowercasing: a token lowercased is still a secret (§9.9).
    refuse_secrets(project, label=label)
    label = clean_slug(label, field="label", max_length=LABEL_MAX, lists="block_get")
    new_description = (
        clean_line(description, field="description", max_length=DESCRIPTION_MAX)
        if description is not None
        else None
    )
    limit_given = _clean_limit(char_limit)
    body = refuse_controls("body", body or "")
    if base_version is None or base_version < 0:
        raise InvalidField("base_version", "base_version is 0 to create, else the version read.")
    is_owner = as_owner and not isinstance(actor, CallerRef)
    with transaction.atomic(durable=True):
        proj = get_project(project) if project else None
        slug = proj.slug if proj else ""
        who = caller_in(actor)
        block = MemoryBlock.objects.filter(project=proj, label=label).first()
        _owner_check(block, owner_only, is_owner)
        refuse_secrets(proj, body=body, description=new_description)
        if block is None and base_version:
            raise NotFound(
                f"There is no {_scope(slug)} block {label}. Create it with "
                "base_version 0, or call block_get to see the labels."
            )
        if block is not None and base_version != block.version:
            raise _conflict(block, base_version)
        limit = limit_given or (block.char_limit if block else BLOCK_LIMIT_DEFAULT)
        if len(body) > limit:
            raise InvalidField(
                "body",
                f"Refused: the body has {len(body)} characters; the limit is {limit}. "
                "Shorten it and write again.",
            )
        created = block is None
        if block is None:
            block = MemoryBlock(project=proj, label=label, version=0)
        values = {
            "body": body,
            "description": block.description if new_description is None else new_description,
            "char_limit": limit,
            "owner_only": block.owner_only if owner_only is None else owner_only,
        }
        if not created and all(getattr(block, k) == v for k, v in values.items()):
            note = f"Nothing changed: block {label} already reads so at version {block.version}."
            return BlockResult(block=block, notes=(note,), caller_notes=who.notes)
        now = timezone.now()
        for k, v in values.items():
            setattr(block, k, v)
        block.version, block.updated_at, block.updated_by = base_version + 1, now, who.name
        if created:
            block.save(force_insert=True)
        else:
            written = {
                **values,
                "version": block.version,
                "updated_at": now,
                "updated_by": who.name,
            }
            write_versioned(
                MemoryBlock,
                block.pk,
                written,
                base_version=base_version,
                what=f"block {label}",
                read="block_get",
            )
        record_event(
            EventKind.BLOCK_UPDATED,
            project=proj,
            actor=who.name,
            payload={"label": label, "version": block.version},
        )
        return BlockResult(block=block, created=created, changed=True, caller_notes=who.notes)
