"""memory_add, memory_update and memory_get (§8 Memory notes) on the real database."""

from __future__ import annotations

from functools import partial

import pytest

from core.errors import InvalidField, NotFound, VersionConflict
from memory.models import MemoryNote
from memory.services import memory_add, memory_get, memory_update
from tasks.extensions import CallerRef
from tasks.models import Event
from tests.support import tokens
from tests.tasks.factories import ACTOR, make_project

pytestmark = pytest.mark.django_db

GHP = tokens.github()

add = partial(memory_add, actor=ACTOR, kind="feedback")


def project_note(title: str = "SQLite WAL mode", body: str = "Keep WAL on.", **kw) -> MemoryNote:
    kw.setdefault("project", "acme-shop")
    kw.setdefault("op", "add")
    return add(scope="project", title=title, body=body, **kw).obj


@pytest.fixture(autouse=True)
def _project() -> None:
    make_project("acme-shop")


def test_a_first_note_is_added_with_its_fields_and_event() -> None:
    out = add(
        scope="project",
        project="acme-shop",
        title="SQLite WAL mode",
        body="Keep WAL on.",
        tags="SQLite, CI, sqlite",
        source="message:abc-1",
        source_text="chat with the owner",
        review_at="2026-09-01",
    )
    note = out.obj
    assert out.action == "added"
    assert out.created
    assert (note.scope, note.project.slug, note.kind, note.version) == (
        "project",
        "acme-shop",
        "feedback",
        1,
    )
    assert note.tags == "sqlite,ci"
    assert (note.source_kind, note.source_ref) == ("message", "abc-1")
    assert note.review_at.date().isoformat() == "2026-09-01"
    assert note.author == ACTOR
    assert note.valid_from
    assert note.recorded_at
    event = Event.objects.latest("id")
    assert event.kind == "memory.added"
    assert event.payload == {"note": note.id, "scope": "project", "title": "SQLite WAL mode"}


def test_without_op_similar_notes_come_back_and_nothing_is_written() -> None:
    first = project_note()
    other = project_note("Deploy staging before live")
    add(scope="global", title="SQLite everywhere", body="x")  # another place: not a candidate
    before = (MemoryNote.objects.count(), Event.objects.count())
    out = add(scope="project", project="acme-shop", title="WAL mode for SQLite", body="y")
    assert out.obj is None
    assert out.action == "candidates"
    assert [(c.note.id, c.similarity, c.strong) for c in out.candidates] == [(first.id, 1.0, True)]
    assert (MemoryNote.objects.count(), Event.objects.count()) == before
    assert other.id not in [c.note.id for c in out.candidates]


def test_op_add_next_to_a_strong_match_needs_force_new() -> None:
    first = project_note()
    with pytest.raises(InvalidField, match=f"#{first.id}.*force_new=true") as refused:
        project_note("SQLite WAL mode setting")
    assert refused.value.field == "force_new"
    forced = project_note("SQLite WAL mode setting", force_new=True)
    assert forced.id != first.id
    # A weak match (similarity below 0.6) is added with op=add alone.
    assert project_note("SQLite backups nightly to disk").id


def test_update_rewrites_the_target_and_a_stale_base_version_conflicts() -> None:
    note = project_note()
    out = add(
        scope="project",
        project="acme-shop",
        title="SQLite WAL mode",
        body="Keep WAL on; checkpoint nightly.",
        op="update",
        target=note.id,
        base_version=1,
    )
    assert out.action == "updated"
    assert out.obj.version == 2
    assert out.changed == ("body",)
    assert Event.objects.latest("id").payload == {
        "note": note.id,
        "version": 2,
        "title": "SQLite WAL mode",
    }
    with pytest.raises(VersionConflict, match="checkpoint nightly") as stale:
        memory_update(note=note.id, base_version=1, body="Other", actor=ACTOR)
    assert stale.value.current_version == 2
    assert "base_version=2" in str(stale.value)
    with pytest.raises(InvalidField, match="base_version"):
        add(
            scope="project", project="acme-shop", title="t x", body="b", op="update", target=note.id
        )


def test_memory_update_changes_only_what_is_given_and_a_same_value_is_a_no_op() -> None:
    note = project_note(tags="a, b")
    count = Event.objects.count()
    out = memory_update(note=note.id, base_version=1, body="Keep WAL on.", actor=ACTOR)
    assert out.action == "unchanged"
    assert Event.objects.count() == count
    out = memory_update(note=note.id, base_version=1, tags="-", kind="reference", actor=ACTOR)
    assert out.obj.tags == ""
    assert out.obj.kind == "reference"
    assert out.obj.version == 2
    assert out.obj.title == "SQLite WAL mode"


def test_supersede_keeps_the_old_note_with_superseded_by_and_valid_to() -> None:
    old = project_note()
    out = add(
        scope="project",
        project="acme-shop",
        title="SQLite WAL mode with checkpoints",
        body="New rule",
        op="supersede",
        target=old.id,
    )
    old.refresh_from_db()
    assert out.action == "superseded"
    assert out.replaced.id == old.id
    assert old.superseded_by_id == out.obj.id
    assert old.valid_to is not None
    assert old.superseded_at == old.valid_to
    assert Event.objects.latest("id").payload["supersedes"] == old.id
    # Only current notes are candidates now.
    found = add(scope="project", project="acme-shop", title="WAL mode", body="b").candidates
    assert [c.note.id for c in found] == [out.obj.id]


def test_a_superseded_note_cannot_change_and_the_error_names_the_newer_one() -> None:
    old = project_note()
    newer = add(
        scope="project", project="acme-shop", title="WAL", body="b", op="supersede", target=old.id
    ).obj
    with pytest.raises(InvalidField, match=f"superseded by #{newer.id}"):
        memory_update(note=old.id, base_version=1, body="again", actor=ACTOR)
    with pytest.raises(InvalidField, match=f"superseded by #{newer.id}"):
        add(
            scope="project",
            project="acme-shop",
            title="x y z",
            body="b",
            op="supersede",
            target=old.id,
        )


def test_noop_writes_nothing() -> None:
    note = project_note()
    before = (MemoryNote.objects.count(), Event.objects.count())
    out = add(
        scope="project", project="acme-shop", title="WAL", body="b", op="noop", target=note.id
    )
    assert out.action == "noop"
    assert out.obj.id == note.id
    assert (MemoryNote.objects.count(), Event.objects.count()) == before


@pytest.mark.parametrize(
    ("field", "values"),
    [
        ("title", {"title": f"push with {GHP}"}),
        ("body", {"body": f"use {GHP} to push"}),
        ("tags", {"tags": f"ci, {GHP}"}),
        ("tags", {"tags": ["ci", tokens.aws_key_id()]}),
        ("source_text", {"source_text": f"said {GHP}"}),
    ],
)
def test_a_secret_is_refused_with_field_and_detector_never_the_value(field, values) -> None:
    args = {"title": "Push access", "body": "Ask the owner."} | values
    before = (MemoryNote.objects.count(), Event.objects.count())
    with pytest.raises(InvalidField) as refused:
        add(scope="project", project="acme-shop", op="add", **args)
    assert refused.value.field == field
    message = str(refused.value)
    assert message.startswith((f"Refused: {field} ", f"Refused: {field}["))
    assert message.endswith("-key)" if "AKIA" in str(values) else "(github-token)")
    assert GHP not in message
    assert GHP.lower() not in message
    assert "AKIA" not in message
    assert (MemoryNote.objects.count(), Event.objects.count()) == before
    note = project_note("Push access")
    with pytest.raises(InvalidField, match="github-token"):
        memory_update(note=note.id, base_version=1, body=f"use {GHP}", actor=ACTOR)


def test_scope_rules() -> None:
    with pytest.raises(InvalidField, match="scope=project needs project"):
        add(scope="project", title="t", body="b")
    with pytest.raises(InvalidField, match="scope=role needs role"):
        add(scope="role", title="t", body="b")
    with pytest.raises(InvalidField, match="has no project"):
        add(scope="global", project="acme-shop", title="t", body="b")
    with pytest.raises(InvalidField, match="has no role"):
        add(scope="project", project="acme-shop", role="coordinator", title="t", body="b")
    with pytest.raises(InvalidField, match="scope is global"):
        add(scope="team", title="t", body="b")
    with pytest.raises(InvalidField, match="kind is"):
        memory_add(scope="global", title="t", body="b", kind="fact", actor=ACTOR)
    with pytest.raises(NotFound, match="project_list"):
        add(scope="project", project="nope", title="t", body="b")
    role = add(scope="role", role="Coordinator", title="Merge order", body="b").obj
    assert (role.scope, role.role, role.project) == ("role", "coordinator", None)
    # Role notes are candidates of their own role only.
    found = add(scope="role", role="coordinator", title="merge order check", body="b")
    assert [c.note.id for c in found.candidates] == [role.id]
    assert add(scope="role", role="worker", title="merge order", body="b").action == "added"


def test_a_project_source_must_exist_in_the_project() -> None:
    with pytest.raises(NotFound, match="No report #999"):
        project_note(source="report:999")
    with pytest.raises(InvalidField, match="belongs to a project"):
        add(scope="global", title="t", body="b", source="report:1")


def test_memory_get_counts_reads_and_resolves_the_caller() -> None:
    note = project_note()
    first = memory_get(note=note.id, actor=ACTOR).obj
    second = memory_get(note=note.id, actor=CallerRef(session="alice")).obj
    assert (first.read_count, second.read_count) == (1, 2)
    assert second.last_read_at >= first.last_read_at
    with pytest.raises(NotFound, match="No memory note #999"):
        memory_get(note=999, actor=ACTOR)
