"""A public service never runs inside another's transaction (docs/architecture.md §3).

Each public service of tasks, plans, reviews and memory opens a durable transaction, so a
service that called another one would fail loudly instead of quietly folding two writes
into one. The steps other apps run in their own transaction are named `*_step` and refuse
to run outside one; comments_deliver runs inside the hook's transaction on purpose.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from memory import services as memory_services
from plans import services as plan_services
from reviews import services as review_services
from tasks import services as task_services
from tasks.models import Comment, Project, Task
from tests.reviews import images
from tests.tasks.factories import ACTOR, make_project, make_task

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
# Services that run inside a caller's transaction on purpose, where each is documented.
NOT_DURABLE = {"comments_deliver"}  # the hook delivers inside its own transaction


@dataclass(frozen=True)
class World:
    project: Project
    task: Task
    attachment: int
    comment: Comment


@pytest.fixture
def world() -> World:
    task = make_task(make_project("durable"), "Checkout")
    key = task.key
    plan_services.plan_set(key=key, steps=["Write it"], actor=ACTOR)
    review_services.review_steps_set(key=key, steps=["Open the shop"], actor=ACTOR)
    shot = review_services.attach_file(key=key, actor=ACTOR, content=images.png())
    comment = task_services.owner_comment_add(key=key, body="Look at the cart.").obj
    return World(task.project, task, shot.obj.id, comment)


CALLS: dict[str, Callable[[World], Any]] = {
    "project_upsert": lambda w: task_services.project_upsert(
        slug=w.project.slug, description="Shop", actor=ACTOR
    ),
    "set_project_rules": lambda w: task_services.set_project_rules(
        project=w.project.slug, body="{}", actor=ACTOR
    ),
    "task_create": lambda w: task_services.task_create(
        project=w.project.slug, title="Another", actor=ACTOR
    ),
    "task_update": lambda w: task_services.task_update(key=w.task.key, title="New", actor=ACTOR),
    "task_patch": lambda w: task_services.task_patch(
        key=w.task.key, fields={"title": "New"}, actor=ACTOR
    ),
    "task_set_stage": lambda w: task_services.task_set_stage(
        key=w.task.key, stage="dev", actor=ACTOR
    ),
    "report_add": lambda w: task_services.report_add(key=w.task.key, body="Did it", actor=ACTOR),
    "decision_add": lambda w: task_services.decision_add(
        project=w.project.slug, text="Use SQLite", actor=ACTOR
    ),
    "owner_comment_add": lambda w: task_services.owner_comment_add(key=w.task.key, body="Hi"),
    "comment_replies_read": lambda w: task_services.comment_replies_read(key=w.task.key),
    "comment_add": lambda w: task_services.comment_add(key=w.task.key, body="Ok", actor=ACTOR),
    "comment_ack": lambda w: task_services.comment_ack(comment_ids=[w.comment.id], actor=ACTOR),
    "plan_set": lambda w: plan_services.plan_set(key=w.task.key, steps=["Other"], actor=ACTOR),
    "plan_step_update": lambda w: plan_services.plan_step_update(
        key=w.task.key, step=1, status="in_progress", actor=ACTOR
    ),
    "plan_accept": lambda w: plan_services.plan_accept(key=w.task.key, actor=ACTOR),
    "review_steps_set": lambda w: review_services.review_steps_set(
        key=w.task.key, steps=["Other"], actor=ACTOR
    ),
    "review_step_update": lambda w: review_services.review_step_update(
        key=w.task.key, step=1, title="Other", actor=ACTOR
    ),
    "review_step_decide": lambda w: review_services.review_step_decide(
        key=w.task.key, step=1, decision="accept"
    ),
    "attach_file": lambda w: review_services.attach_file(
        key=w.task.key, actor=ACTOR, content=images.png(shade=9)
    ),
    "attachment_caption": lambda w: review_services.attachment_caption(
        attachment=w.attachment, caption="Cart", actor=ACTOR
    ),
    "attachment_remove": lambda w: review_services.attachment_remove(
        attachment=w.attachment, actor=ACTOR
    ),
    "doc_update": lambda w: memory_services.doc_update(
        project=w.project.slug,
        name="runbook",
        title="Runbook",
        text="# Run",
        base_version=0,
        actor=ACTOR,
    ),
    "block_set": lambda w: memory_services.block_set(
        label="style", body="Short answers.", base_version=0, actor=ACTOR
    ),
    "memory_add": lambda w: memory_services.memory_add(
        scope="project",
        project=w.project.slug,
        title="WAL",
        body="Keep WAL on.",
        kind="project",
        actor=ACTOR,
    ),
    "memory_update": lambda w: memory_services.memory_update(note=1, base_version=1, actor=ACTOR),
    "memory_get": lambda w: memory_services.memory_get(note=1, actor=ACTOR),
}


def _public_services() -> set[str]:
    """Every keyword-only function taking an actor that an app's services face exports."""
    found = set()
    for module in (task_services, plan_services, review_services, memory_services):
        for name in getattr(module, "__all__", dir(module)):
            fn = getattr(module, name)
            if not inspect.isfunction(fn) or name.startswith("_"):
                continue
            params = inspect.signature(fn).parameters.values()
            if "actor" in inspect.signature(fn).parameters and all(
                p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in params
            ):
                found.add(name)
    return found


def test_every_public_service_has_a_case_here() -> None:
    assert _public_services() - NOT_DURABLE == set(CALLS)


@pytest.mark.parametrize("name", list(CALLS))
def test_a_public_service_refuses_to_run_inside_another_transaction(
    world: World, name: str
) -> None:
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        CALLS[name](world)


def test_a_service_that_calls_another_fails_and_writes_nothing(world: World) -> None:
    task = Task.objects.select_related("project").get(pk=world.task.pk)

    def careless_service() -> None:
        with transaction.atomic(durable=True):  # as every public service opens its own
            task_services.owner_comment_step(task, body="Moving it on.", actor="owner")
            task_services.task_set_stage(key=task.key, stage="review", actor=ACTOR)

    comments = Comment.objects.count()
    with pytest.raises(RuntimeError, match="durable"):
        careless_service()
    assert Comment.objects.count() == comments
    assert Task.objects.get(pk=task.pk).version == task.version


@pytest.mark.django_db(transaction=True)  # outside any transaction, as a view runs
def test_the_steps_run_only_inside_the_callers_transaction(world: World) -> None:
    task, now = world.task, timezone.now()
    with pytest.raises(RuntimeError, match="caller's transaction"):
        task_services.owner_comment_step(task, body="Hi", actor="owner")
    with pytest.raises(RuntimeError, match="caller's transaction"):
        task_services.plan_status_step(
            task, status="accepted", accepted_at=now, accepted_by="owner", now=now
        )
    with transaction.atomic():
        task = Task.objects.select_related("project").get(pk=task.pk)
        version = task.version
        assert task_services.plan_status_step(
            task, status="accepted", accepted_at=now, accepted_by="owner", now=now
        )
        assert not task_services.plan_status_step(  # the same values: no version bump
            task, status="accepted", accepted_at=now, accepted_by="owner", now=now
        )
    assert Task.objects.get(pk=task.pk).version == version + 1


def test_comments_deliver_runs_inside_the_hooks_transaction(world: World) -> None:
    with transaction.atomic():
        done = task_services.comments_deliver(
            comment_ids=[world.comment.id], session_id=1, session_name="alice", via="Stop"
        )
    assert [c.id for c in done.obj] == [world.comment.id]


def _atomic_calls(path: Path) -> list[tuple[str, ast.Call]]:
    """(enclosing function, call) for every transaction.atomic(...) in a module."""
    found: list[tuple[str, ast.Call]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            here = child.name if isinstance(child, ast.FunctionDef) else where
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr == "atomic"
            ):
                found.append((here, child))
            visit(child, here)

    visit(ast.parse(path.read_text()), "")
    return found


def test_every_transaction_a_service_module_opens_is_durable() -> None:
    """A new service cannot forget it: the AST of every services module of the four apps."""
    loose = []
    for app in ("tasks", "plans", "reviews", "memory"):
        for path in [ROOT / app / "services.py", *(ROOT / app / "services").rglob("*.py")]:
            if not path.is_file():
                continue
            for where, call in _atomic_calls(path):
                durable = any(
                    k.arg == "durable" and isinstance(k.value, ast.Constant) and k.value.value
                    for k in call.keywords
                )
                if not durable and where not in NOT_DURABLE:
                    loose.append(f"{path.relative_to(ROOT)}:{call.lineno} in {where}")
    assert loose == []
