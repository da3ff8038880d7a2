"""What effort plugs into the seams of tasks and sessions (registered in apps.ready): effort
sits above sessions, so sessions calls what is registered and never imports effort."""

from __future__ import annotations

from effort import figures, panel, words
from effort import total as effort_total
from effort.services import tally
from effort.worker import reader
from sessions.hooks.endpoint import register_after_answer
from sessions.models import Session
from tasks.events import register_event_observer
from tasks.extensions import plug_in_once, register_project_lines, register_task_section
from tasks.models import Project, Task


def effort_section(task: Task) -> str:
    """task_get's one effort line: the numbers the owner sees on the board."""
    return words.line(figures.effort(task))


def project_effort_lines(project: Project) -> list[str]:
    """project_snapshot's total effort of the project's tasks."""
    total = effort_total.project_total(project)
    return [words.total_line(total)] if total.tasks else []


def poke_reader(session: Session) -> None:
    """After a hook's answer is sent: the session's transcript may have grown."""
    if session.transcript_path:
        reader.poke(session.id)


@plug_in_once
def register() -> None:
    """Plug into tasks and the hook door once, even if ready() runs again."""
    register_task_section(15, effort_section)
    register_project_lines(20, project_effort_lines)
    # A time event (a stage move, a binding, a status …) steps its task's time tally.
    register_event_observer(tally.track_time)
    # The task dialog's Effort section: time, tokens and cost of the task.
    panel.register()
    register_after_answer(poke_reader)
