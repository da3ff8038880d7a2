"""The task dialog's and task page's "Actions on live" panel (§7 Journal).

Registered in environments.apps.ready() through tasks.extensions.register_task_panels; tasks
never imports this module. The rows are the task's live.action events, read by
tasks.selectors.live_actions, which Activity's block shares, so both show a call alike.
"""

from __future__ import annotations

from environments import selectors
from tasks.extensions import TaskPanel, plug_in_once, register_task_panels
from tasks.models import Task
from tasks.selectors.live_actions import task_live_actions

PANEL_ID = "live-actions"
PANEL_TEMPLATE = "environments/partials/live_actions_panel.html"
# Overview, after the Session (10) and the Comments (20): what the task's sessions did on live.
PANEL_ORDER = 40


def task_panels(task: Task) -> list[TaskPanel]:
    """The panel when the task has actions on live, or could get one: a project with a live
    stand shows it empty, so the first action appears on its task's live refresh (a panel
    that is not on the page cannot refetch itself). Elsewhere it would only be noise."""
    journal = task_live_actions(task)
    if not journal.rows and not selectors.has_live_stand(task.project):
        return []
    return [
        TaskPanel(
            id=PANEL_ID,
            title="Actions on live",
            template=PANEL_TEMPLATE,
            context={"journal": journal},
            tab="overview",
        )
    ]


@plug_in_once
def register() -> None:
    """Plug into the task dialog's seam once, even if ready() runs again (plain lists)."""
    register_task_panels(PANEL_ORDER, task_panels)
