"""What sessions plugs into the seams of tasks.extensions (registered in apps.ready)."""

from __future__ import annotations

from collections.abc import Sequence

from core import actor
from sessions import render_md, selectors, services
from sessions.effort import figures, words
from sessions.effort import total as effort_total
from sessions.services.effort import track_time
from tasks.events import register_event_observer
from tasks.extensions import (
    Caller,
    LineTask,
    plug_in_once,
    register_caller_resolver,
    register_move_facts,
    register_project_lines,
    register_task_line_suffix,
    register_task_section,
)
from tasks.models import Project, Task


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


def effort_section(task: Task) -> str:
    """task_get's one effort line (issue 31): the numbers the owner sees on the board."""
    return words.line(figures.effort(task))


def project_effort_lines(project: Project) -> list[str]:
    """project_snapshot's total effort of the project's tasks (issue 31)."""
    total = effort_total.project_total(project)
    return [words.total_line(total)] if total.tasks else []


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
    register_task_section(15, effort_section)
    register_project_lines(20, project_effort_lines)
    # A time event (a stage move, a binding, a status …) steps its task's time tally.
    register_event_observer(track_time)
    # §6 "no plan and no todo": the agent's todo counts as written-down work.
    register_move_facts(lambda task: {"has_todo": selectors.has_todo(task)}, keys=("has_todo",))
