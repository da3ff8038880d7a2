"""Reads for the board and MCP answers: ready-made values, so templates only loop.

Every list here costs a fixed number of queries whatever its length (select_related and
batched extension calls), so the board and project_snapshot stay flat as a project grows.

A face, by concept: projects.py (a project by slug, its working rules, the project lists,
decisions), tasks.py (a task by key, the tasks another app's rows link to, task lines,
task_list, task_get), events.py (the event log as lines), snapshot.py (project_snapshot);
and the pages' own reads, imported by module: activity, board, comments, inbox,
live_actions, task_page; sql.py, the ledger of the Inbox's task groups' statements.
"""

from tasks.selectors.events import (
    EVENTS_MAX,
    EventLine,
    LogSize,
    event_line,
    events_since,
    log_size,
)
from tasks.selectors.projects import (
    DECISION_LIST_MAX,
    NavProject,
    ProjectOverview,
    ProjectSummary,
    decision_list,
    get_project,
    nav_projects,
    project_list,
    project_rules,
    projects_overview,
)
from tasks.selectors.snapshot import SNAPSHOT_DECISIONS, Snapshot, snapshot_data
from tasks.selectors.tasks import (
    RECENT_EVENTS,
    RECENT_REPORTS,
    TaskDetail,
    TaskLine,
    TaskListData,
    get_task,
    is_next_step_stale,
    linked_tasks,
    task_detail,
    task_lines,
    task_list_data,
)

__all__ = [
    "DECISION_LIST_MAX",
    "EVENTS_MAX",
    "RECENT_EVENTS",
    "RECENT_REPORTS",
    "SNAPSHOT_DECISIONS",
    "EventLine",
    "LogSize",
    "NavProject",
    "ProjectOverview",
    "ProjectSummary",
    "Snapshot",
    "TaskDetail",
    "TaskLine",
    "TaskListData",
    "decision_list",
    "event_line",
    "events_since",
    "get_project",
    "get_task",
    "is_next_step_stale",
    "linked_tasks",
    "log_size",
    "nav_projects",
    "project_list",
    "project_rules",
    "projects_overview",
    "snapshot_data",
    "task_detail",
    "task_lines",
    "task_list_data",
]
