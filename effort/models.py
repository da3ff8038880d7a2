"""What effort keeps: counts and sums read from the agents' transcripts, and
each task's time figures.

Fields, constraints and Meta only: every write goes through effort.services. The tables keep
the names they had when they were sessions' (`agent_sessions_*`): the models moved to this app
in its state only (migrations effort 0001, agent_sessions 0009), and no row was copied.
"""

from __future__ import annotations

from django.db import models

from sessions.models import Session
from tasks.models import Project, Task

MODEL_MAX = 100


class TranscriptCursor(models.Model):
    """How far a session's transcript has been read: the next read goes on from `offset`.

    The file is known by its device and inode too, so a file replaced under the same name
    (or one that shrank) is read again from the start — the seen responses keep that from
    counting anything twice.
    """

    session = models.OneToOneField(
        Session, on_delete=models.CASCADE, primary_key=True, related_name="transcript_cursor"
    )
    path = models.CharField(max_length=1000, blank=True, default="")
    device = models.BigIntegerField(default=0)
    inode = models.BigIntegerField(default=0)
    offset = models.BigIntegerField(default=0)
    # Codex names the model once per turn (turn_context): the turn being read's model.
    model = models.CharField(max_length=MODEL_MAX, blank=True, default="")
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "agent_sessions_transcriptcursor"


class UsageSeen(models.Model):
    """One model response already counted, by a 63-bit digest of its id (never the id)."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="+")
    digest = models.BigIntegerField()

    class Meta:
        db_table = "agent_sessions_usageseen"
        constraints = [
            models.UniqueConstraint(fields=["session", "digest"], name="usage_seen_once"),
        ]


class TokenUsage(models.Model):
    """Tokens of one session's responses of one model on one day, for one task.

    `task` is None for responses no task was bound to at their time. A response shared by
    tasks bound at once is split evenly (the remainder to the oldest task) and counted in
    `shared` of each.
    """

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="+")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, null=True, related_name="+")
    day = models.DateField()
    model = models.CharField(max_length=MODEL_MAX)
    responses = models.PositiveIntegerField(default=0)
    shared = models.PositiveIntegerField(default=0)
    input = models.BigIntegerField(default=0)
    output = models.BigIntegerField(default=0)
    cache_write = models.BigIntegerField(default=0)
    cache_read = models.BigIntegerField(default=0)
    reasoning = models.BigIntegerField(default=0)  # a part of output, told apart

    class Meta:
        db_table = "agent_sessions_tokenusage"
        constraints = [
            models.UniqueConstraint(
                fields=["session", "task", "day", "model"],
                condition=models.Q(task__isnull=False),
                name="token_usage_row",
            ),
            models.UniqueConstraint(
                fields=["session", "day", "model"],
                condition=models.Q(task__isnull=True),
                name="token_usage_row_no_task",
            ),
        ]
        indexes = [
            models.Index(fields=["task", "day"], name="token_usage_task_day"),
            # The Effort page's cost per day of a whole project: read in the index's order,
            # the GROUP BY day, model streams and no row is visited (~11 → ~5 ms at 13,000 rows).
            models.Index(
                fields=["day", "model", "task", "input", "output", "cache_write", "cache_read"],
                name="token_usage_day_model",
            ),
        ]


class ProcessCost(models.Model):
    """An agent's own total for one process of a session (the last one its transcript
    carries: Claude Code's `cost-state` line)."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="+")
    started = models.BigIntegerField()  # the process's startTime (ms), which tells them apart
    total_usd = models.FloatField()

    class Meta:
        db_table = "agent_sessions_processcost"
        constraints = [
            models.UniqueConstraint(fields=["session", "started"], name="process_cost_once"),
        ]


EFFORT_TOTAL_INDEX = "effort_total_figures"


class TaskEffort(models.Model):
    """A task's time figures as of its last time event (effort/intervals.py).

    Kept up to date event by event (a step of the tally per time event, services/tally.py), so
    a reader never replays a history; what was going on at `as_of` (sessions working, the
    owner awaited, the current stage) goes on growing, and a reader adds the time since.
    `state` is what the next step needs: the bound sessions' statuses, the open review
    steps, whether waiting_on names the owner, the sessions ever bound.
    """

    task = models.OneToOneField(Task, on_delete=models.CASCADE, primary_key=True, related_name="+")
    # The task's project, which never changes: a project's total reads its rows by it.
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    as_of = models.DateTimeField()
    stage = models.CharField(max_length=10, blank=True, default="")
    stage_seconds = models.JSONField(default=dict)
    agent_seconds = models.FloatField(default=0)
    wall_seconds = models.FloatField(default=0)
    waiting_seconds = models.FloatField(default=0)
    agents_open = models.PositiveSmallIntegerField(default=0)
    waiting_open = models.BooleanField(default=False)
    sessions = models.PositiveIntegerField(default=0)
    turns = models.PositiveIntegerField(default=0)
    state = models.JSONField(default=dict)
    # The last event stepped in: a step is never taken twice nor out of order (services/tally).
    event_id = models.BigIntegerField(default=0)

    class Meta:
        db_table = "agent_sessions_taskeffort"
        indexes = [
            # project_snapshot's total reads a project's rows as one stretch of this index,
            # never the rows with their kilobyte of state (effort/total.py).
            models.Index(
                fields=["project", "agents_open", "agent_seconds", "as_of"],
                name=EFFORT_TOTAL_INDEX,
            )
        ]
