"""What sessions plugs into the seams of tasks.extensions (registered in apps.ready)."""

from __future__ import annotations

from collections.abc import Sequence

from core import actor
from sessions import render_md, selectors, services
from tasks.extensions import (
    Caller,
    LineTask,
    plug_in_once,
    register_caller_resolver,
    register_move_facts,
    register_task_line_suffix,
    register_task_section,
)
from tasks.models import Task


def resolve_caller(
    *,
    session: str | None,
    session_title: str | None,
    hook_session: str | None,
    call_session: str | None = None,
    task_key: str | None,
    task: Task | None = None,
) -> Caller:
    """`session`, `session_title`, `hook_session` of a write tool → the calling session;
    `call_session` the agent session id the MCP call itself carried; `task` is the row the
    service already holds, else it is found by `task_key`."""
    result = services.session_touch(
        session=session,
        session_title=session_title,
        hook_session=hook_session,
        call_session=call_session,
        actor=actor.agent(session),
        task=task if task is not None else selectors.find_task(task_key),
    )
    if result.session is None:
        return Caller(name=actor.agent(None), notes=result.notes)
    return Caller(name=result.session.name, session_id=result.session.id, notes=result.notes)


def task_section(task: Task) -> str:
    history = selectors.binding_history(task, limit=render_md.HISTORY_LINES)
    full = len(history) == render_md.HISTORY_LINES
    total = selectors.binding_count(task) if full else len(history)
    return render_md.task_section(task, history, total)


def task_line_suffixes(tasks: Sequence[LineTask]) -> dict[int, str]:
    """The " · session <name>" suffix of each bound task in a list, in one query."""
    return {
        task_id: f" · session {name}"
        for task_id, name in selectors.bound_session_names(tasks).items()
    }


@plug_in_once
def register() -> None:
    """Plug into tasks once, even if ready() runs again (the seams are plain lists)."""
    register_caller_resolver(resolve_caller)
    register_task_section(10, task_section)
    register_task_line_suffix(10, task_line_suffixes)
    # §6 "no plan and no todo": the agent's todo counts as written-down work.
    register_move_facts(lambda task: {"has_todo": selectors.has_todo(task)}, keys=("has_todo",))
