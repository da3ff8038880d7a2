"""attach_file, attachment_caption, attachment_remove and sweep_orphans (§1 Screenshots,
§9.10): storage, dedupe, the task limit, events, removal after commit and the start sweep."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from core.errors import InvalidField, NotFound
from reviews import files, services, storage
from reviews.models import Attachment
from tasks.events import describe
from tasks.models import Event, Task
from tests.reviews import images
from tests.tasks.factories import ACTOR, make_task

pytestmark = pytest.mark.django_db


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def attach(task: Task, data: bytes | None = None, **kw: Any) -> Any:
    if "path" not in kw:
        kw["content_base64"] = b64(images.png() if data is None else data)
    return services.attach_file(key=task.key, actor=ACTOR, **kw)


def with_steps(task: Task, *titles: str) -> Task:
    services.review_steps_set(key=task.key, steps=list(titles), actor=ACTOR)
    return task


def events(task: Task) -> list[Event]:
    return list(Event.objects.filter(task=task, kind__startswith="attachment.").order_by("id"))


def test_a_screenshot_is_stored_under_its_task_with_a_random_name(tmp_path: Path) -> None:
    task = with_steps(make_task(), "Open the shop")
    source = tmp_path / "Checkout page.svg"  # the name is display only
    source.write_bytes(images.png())
    outcome = attach(task, path=str(source), step="#1", caption="The **cart**")
    found = outcome.obj
    assert outcome.created
    assert (found.step.position, found.content_type, found.size) == (
        1,
        "image/png",
        len(images.png()),
    )
    assert found.original_name == "Checkout page.svg"
    assert found.stored_name.endswith(".png")
    assert len(found.stored_name) == 32 + 4
    stored = storage.file_path(found)
    assert stored.parent == Path(settings.RELAYBAY.home_path) / "attachments" / (
        f"{task.project.slug}/{task.key}"
    )
    assert stored.read_bytes() == images.png()
    assert [p.name for p in stored.parent.iterdir()] == [found.stored_name]  # no temp left
    (event,) = events(task)
    assert event.payload == {
        "attachment_id": found.id,
        "step": 1,
        "caption": "The **cart**",
        "original_name": "Checkout page.svg",
    }
    assert describe(event.kind, event.payload) == (
        f"screenshot #{found.id} attached to step 1: Checkout page.svg"
    )


def test_the_same_content_on_the_same_task_is_stored_once() -> None:
    task = with_steps(make_task(), "One", "Two")
    first = attach(task, step=2).obj
    again = attach(task, step=1)
    assert not again.created
    assert again.obj.id == first.id
    assert again.notes[0] == (
        f"Already attached: attachment #{first.id} on step 2 of {task.key} has the same "
        "content; it is reused."
    )
    assert Attachment.objects.filter(task=task).count() == 1
    assert len(list(storage.file_path(first).parent.iterdir())) == 1
    assert len(events(task)) == 1
    other = make_task(task.project)
    assert attach(other).created  # another task keeps its own copy


def test_refused_content_leaves_no_row_and_no_file() -> None:
    task = make_task()
    for data in (images.SVG, images.HTML, b"\x89PNG\r\n\x1a\n"):
        with pytest.raises(InvalidField, match="not a PNG, JPEG, WebP or GIF"):
            attach(task, data)
    assert not Attachment.objects.filter(task=task).exists()
    assert not (storage.attachments_root() / task.project.slug / task.key).exists()


def test_a_gif_polyglot_is_kept_as_a_gif() -> None:
    task = make_task()
    found = attach(task, images.GIF + b"<script>alert(1)</script>").obj
    assert found.content_type == "image/gif"
    assert found.stored_name.endswith(".gif")


def test_the_task_limit_counts_every_screenshot_of_the_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(settings.RELAYBAY._values, "attachments_max_mb", 1)
    monkeypatch.setitem(settings.RELAYBAY._values, "attachments_task_max_mb", 1)
    task = make_task()
    pad = b"\x00" * (files.MB * 6 // 10)
    attach(task, images.png(shade=1) + pad)
    with pytest.raises(InvalidField) as caught:
        attach(task, images.png(shade=2) + pad)
    assert f"{task.key} with it is 1.2 MB, over the limit of 1 MB" in str(caught.value)
    assert "attachments_task_max_mb" in str(caught.value)
    assert Attachment.objects.filter(task=task).count() == 1
    assert len(list((storage.attachments_root() / task.project.slug / task.key).iterdir()))


def test_exactly_one_source_and_a_known_step() -> None:
    task = with_steps(make_task(), "Only")
    with pytest.raises(InvalidField, match="either path"):
        services.attach_file(key=task.key, actor=ACTOR)
    with pytest.raises(InvalidField, match="either path"):
        services.attach_file(
            key=task.key, actor=ACTOR, path="/tmp/x.png", content_base64=b64(images.GIF)
        )
    with pytest.raises(NotFound, match="has no step 4"):
        attach(task, step=4)
    with pytest.raises(NotFound):
        services.attach_file(key="nope-1", actor=ACTOR, content_base64=b64(images.GIF))


def test_a_step_removed_from_the_checklist_leaves_its_screenshot_on_the_task() -> None:
    task = with_steps(make_task(), "One", "Two")
    found = attach(task, step=2).obj
    services.review_steps_set(key=task.key, steps=["One"], actor=ACTOR)
    found.refresh_from_db()
    assert found.step is None
    assert storage.file_path(found).exists()


def test_the_caption_is_changed_and_cleared() -> None:
    task = make_task()
    found = attach(task).obj
    outcome = services.attachment_caption(attachment=f"#{found.id}", caption="Cart", actor=ACTOR)
    assert outcome.changed == ("caption",)
    same = services.attachment_caption(attachment=found.id, caption="Cart", actor=ACTOR)
    assert same.notes == (f"Nothing changed: attachment #{found.id} already has this caption.",)
    services.attachment_caption(attachment=found.id, caption="-", actor=ACTOR)
    found.refresh_from_db()
    assert found.caption == ""
    kinds = [(e.kind, e.payload) for e in events(task)]
    assert kinds[1:] == [
        ("attachment.updated", {"attachment_id": found.id, "caption": "Cart"}),
        ("attachment.updated", {"attachment_id": found.id, "caption": ""}),
    ]
    with pytest.raises(NotFound, match="No attachment #999999"):
        services.attachment_caption(attachment=999999, caption="x", actor=ACTOR)


def test_removal_deletes_the_file_only_after_commit(
    django_capture_on_commit_callbacks: Any,
) -> None:
    task = make_task()
    found = attach(task).obj
    stored = storage.file_path(found)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.attachment_remove(attachment=found.id, actor="owner")
    assert stored.exists()  # not committed yet
    assert not Attachment.objects.filter(id=found.id).exists()
    for callback in callbacks:
        callback()
    assert not stored.exists()
    assert events(task)[-1].payload == {"attachment_id": found.id}


def test_the_start_sweep_removes_what_a_crash_left_and_keeps_the_rest() -> None:
    task = make_task()
    kept = [attach(task, images.png(shade=n)).obj for n in (1, 2)]
    folder = storage.attachments_root() / task.project.slug / task.key
    # A crash between writing the file and committing the row leaves these behind.
    stray = folder / "0123456789abcdef0123456789abcdef.png"
    stray.write_bytes(images.png(shade=3))
    (folder / ".tmp-half-written").write_bytes(b"\x89PNG")
    lost = storage.attachments_root() / "gone-project" / "gone-project-3"
    lost.mkdir(parents=True)
    (lost / "fedcba9876543210fedcba9876543210.gif").write_bytes(images.GIF)
    empty = storage.attachments_root() / task.project.slug / "empty-folder"
    empty.mkdir()

    removed = storage.sweep_orphans()

    assert removed >= 5
    assert not stray.exists()
    assert not (folder / ".tmp-half-written").exists()
    assert not lost.exists()
    assert not lost.parent.exists()
    assert not empty.exists()
    assert sorted(os.listdir(folder)) == sorted(a.stored_name for a in kept)
    for found in kept:
        assert storage.file_path(found).read_bytes() == images.png(
            shade=int(found.id == kept[1].id) + 1
        )
    assert storage.sweep_orphans() == 0


def test_the_boards_paste_sends_raw_bytes_with_the_same_checks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    task = with_steps(make_task(), "Only")
    found = services.attach_file(key=task.key, actor="owner", content=images.WEBP, step=1).obj
    assert (found.content_type, found.step.position) == ("image/webp", 1)
    with pytest.raises(InvalidField, match="not a PNG, JPEG, WebP or GIF"):
        services.attach_file(key=task.key, actor="owner", content=images.SVG)
    monkeypatch.setitem(settings.RELAYBAY._values, "attachments_max_mb", 1)
    with pytest.raises(InvalidField, match="over the limit of 1 MB"):
        services.attach_file(key=task.key, actor="owner", content=images.GIF * files.MB)
