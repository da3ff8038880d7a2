"""block_set (§8 Blocks): the size limit, optimistic locking and owner-only blocks."""

from __future__ import annotations

import pytest

from core.errors import Forbidden, InvalidField, NotFound, VersionConflict
from memory import selectors
from memory.models import MemoryBlock
from memory.services import block_set
from tasks.extensions import CallerRef
from tasks.models import Event
from tests.support import tokens
from tests.tasks.factories import ACTOR, make_project

pytestmark = pytest.mark.django_db

AGENT = CallerRef(session="worker")


def test_base_version_0_creates_a_global_block_then_a_version_updates_it():
    result = block_set(label="style", body="Short answers.", base_version=0, actor=ACTOR)
    assert result.created
    assert result.block.version == 1
    assert result.block.project is None
    assert result.block.char_limit == 2000
    result = block_set(label="style", body="Shorter.", base_version=1, actor=AGENT)
    assert result.block.version == 2
    assert result.block.updated_by == "worker"
    assert [e.payload for e in Event.objects.filter(kind="block.updated")] == [
        {"label": "style", "version": 1},
        {"label": "style", "version": 2},
    ]


def test_project_and_global_labels_are_separate_scopes():
    make_project("acme-shop")
    block_set(label="style", body="global", base_version=0, actor=ACTOR)
    block_set(label="style", body="shop", base_version=0, actor=ACTOR, project="acme-shop")
    assert selectors.block_get("style").body == "global"
    assert selectors.block_get("style", "acme-shop").body == "shop"
    assert [b.body for b in selectors.block_list("acme-shop")] == ["global", "shop"]
    assert [b.body for b in selectors.block_list()] == ["global"]


def test_over_the_limit_is_refused_with_the_count():
    with pytest.raises(InvalidField, match="2001 characters; the limit is 2000"):
        block_set(label="big", body="x" * 2001, base_version=0, actor=ACTOR)
    block_set(label="big", body="x" * 10, base_version=0, actor=ACTOR, char_limit=10)
    with pytest.raises(InvalidField, match="11 characters; the limit is 10"):
        block_set(label="big", body="x" * 11, base_version=1, actor=ACTOR)
    with pytest.raises(InvalidField, match="1-20000"):
        block_set(label="big", body="x", base_version=1, actor=ACTOR, char_limit=20001)
    assert MemoryBlock.objects.get().version == 1


def test_a_stale_version_is_a_conflict_with_the_current_body():
    block_set(label="style", body="v1 text", base_version=0, actor=ACTOR)
    block_set(label="style", body="v2 text", base_version=1, actor=ACTOR)
    with pytest.raises(VersionConflict) as err:
        block_set(label="style", body="mine", base_version=1, actor=ACTOR)
    assert err.value.current_version == 2
    assert "version 2, not 1" in str(err.value)
    assert "v2 text" in str(err.value)
    with pytest.raises(VersionConflict, match="already exists at version 2"):
        block_set(label="style", body="mine", base_version=0, actor=ACTOR)
    with pytest.raises(NotFound, match="base_version 0"):
        block_set(label="other", body="mine", base_version=1, actor=ACTOR)


def test_the_same_body_again_writes_nothing():
    block_set(label="style", body="same", base_version=0, actor=ACTOR)
    result = block_set(label="style", body="same", base_version=1, actor=ACTOR)
    assert not result.changed
    assert result.notes[0].startswith("Nothing changed")
    assert Event.objects.filter(kind="block.updated").count() == 1


def test_owner_only_blocks_and_the_mark_are_the_owners():
    with pytest.raises(Forbidden, match="Only the owner marks"):
        block_set(label="rules", body="x", base_version=0, actor=AGENT, owner_only=True)
    block_set(
        label="rules", body="x", base_version=0, actor="owner", owner_only=True, as_owner=True
    )
    with pytest.raises(Forbidden, match="the owner edits it on the board"):
        block_set(label="rules", body="y", base_version=1, actor=AGENT)
    with pytest.raises(Forbidden, match="the owner edits it on the board"):
        block_set(label="rules", body="y", base_version=1, actor=AGENT, as_owner=True)
    with pytest.raises(Forbidden):
        block_set(label="rules", body="x", base_version=1, actor=AGENT, owner_only=False)
    block_set(label="rules", body="y", base_version=1, actor="owner", as_owner=True)
    assert MemoryBlock.objects.get().body == "y"


def test_a_secret_in_a_block_is_refused_without_the_value():
    with pytest.raises(InvalidField) as err:
        block_set(label="keys", body=tokens.aws_key_id(), base_version=0, actor=ACTOR)
    assert err.value.field == "body"
    assert tokens.aws_key_id() not in str(err.value)
    assert MemoryBlock.objects.count() == 0
