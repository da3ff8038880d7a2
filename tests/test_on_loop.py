"""Short writes on the event loop's own thread (core/on_loop.py).

The write runs where the coroutine runs, with Django's sync code allowed for that call
only; a busy database before anything was committed becomes LockTaken (the caller then
waits on the sync thread); after a commit it is an error like any other. Every MCP write
marked `on_loop=True` runs in exactly one transaction, so a refused lock can only come
before it wrote anything. The lock itself, held by another connection of a real server:
tests/integration/test_writes_on_loop.py.
"""

from __future__ import annotations

import ast
import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import OperationalError, connection, transaction
from django.test.utils import CaptureQueriesContext

from core import no_secrets
from core.on_loop import LockTaken, run_on_loop
from sessions import services as session_services
from tasks import services as task_services
from tasks.extensions import CallerRef
from tasks.models import Project, Task
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db(transaction=True)  # outside any transaction, as a call runs

ROOT = Path(__file__).resolve().parent.parent
ME = CallerRef("loop-tester", "", "")


def on_a_loop[T](fn: Callable[[], T]) -> tuple[T, int, int]:
    """fn's value through run_on_loop inside a running loop, the loop's thread and fn's."""
    ran_on: list[int] = []

    def traced() -> T:
        ran_on.append(threading.get_ident())
        return fn()

    async def main() -> tuple[T, int]:
        value = run_on_loop(traced)
        asyncio.get_running_loop()  # the loop is back for the coroutine
        return value, threading.get_ident()

    value, loop_thread = asyncio.run(main())
    return value, loop_thread, ran_on[0]


def test_django_sync_code_runs_on_the_loops_own_thread() -> None:
    make_project("onloop")
    count, loop_thread, ran_on = on_a_loop(lambda: Project.objects.filter(slug="onloop").count())
    assert count == 1
    assert ran_on == loop_thread  # no hop: the coroutine's own thread


def test_a_busy_database_before_any_commit_is_lock_taken() -> None:
    def busy() -> None:
        raise OperationalError("database is locked")

    with pytest.raises(LockTaken):
        on_a_loop(busy)


def test_a_busy_database_after_a_commit_is_an_error_not_a_second_run() -> None:
    project = make_project("committed")

    def half_written() -> None:
        with transaction.atomic():
            Project.objects.filter(pk=project.pk).update(name="Written")
        raise OperationalError("database is locked")

    with pytest.raises(OperationalError):
        on_a_loop(half_written)
    assert Project.objects.get(pk=project.pk).name == "Written"


def test_other_errors_pass_through() -> None:
    def broken() -> None:
        raise OperationalError("no such table: nowhere")

    with pytest.raises(OperationalError, match="no such table"):
        on_a_loop(broken)


def test_what_the_door_let_through_is_forgotten_when_the_write_goes_elsewhere() -> None:
    def let_through_then_busy() -> None:
        no_secrets.let_through(["ghp_thisisnotarealtokenbutlookslikeone00"])
        raise OperationalError("database is locked")

    with pytest.raises(LockTaken):
        on_a_loop(let_through_then_busy)
    assert not no_secrets._kept()  # the loop's thread keeps nothing for a later write


# --- every write marked on_loop=True runs in one transaction ---------------------------------

WRITES: dict[str, Callable[[Task], Any]] = {
    "task_create": lambda t: task_services.task_create(
        project=t.project.slug, title="Another", actor=ME
    ),
    "task_update": lambda t: task_services.task_update(key=t.key, next_step="Look", actor=ME),
    "task_patch": lambda t: task_services.task_patch(
        key=t.key, fields={"waiting_on": "agent"}, actor=ME
    ),
    "task_set_stage": lambda t: task_services.task_set_stage(key=t.key, stage="dev", actor=ME),
    "report_add": lambda t: task_services.report_add(key=t.key, body="Done · S · it", actor=ME),
    "task_bind_session": lambda t: session_services.task_bind_session(
        task=t.key, session="loop-tester", actor="loop-tester"
    ),
}


def marked_on_loop() -> set[str]:
    """The services the MCP tools call with on_loop=True, read from the source's syntax
    tree (wherever the keyword stands in the call)."""
    marked = set()
    for path in ROOT.glob("*/mcp_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "call_service"):
                continue
            if any(
                k.arg == "on_loop" and isinstance(k.value, ast.Constant) and k.value.value
                for k in node.keywords
            ):
                service = node.args[0]
                marked.add(service.attr if isinstance(service, ast.Attribute) else service.id)
    return marked


def test_the_list_below_is_every_write_marked_on_loop() -> None:
    assert marked_on_loop() == set(WRITES)


@pytest.mark.parametrize("name", sorted(WRITES))
def test_each_write_on_the_loop_is_one_transaction(name: str) -> None:
    task = make_task(make_project(f"one-{name.replace('_', '-')}"), "Checkout")
    with CaptureQueriesContext(connection) as seen:
        WRITES[name](task)
    begins = [q["sql"] for q in seen.captured_queries if q["sql"].startswith("BEGIN")]
    commits = [q["sql"] for q in seen.captured_queries if q["sql"] == "COMMIT"]
    assert len(begins) == 1, (name, begins)
    assert len(commits) == 1, (name, commits)
