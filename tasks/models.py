"""Projects, tasks, reports, decisions, tracker history, rules overrides and the event log.

Fields, constraints and Meta only: every write goes through tasks.services (§1 Event:
the event row is appended in the same transaction as the change it describes).
"""

from __future__ import annotations

from django.db import models

from core.display import STAGES

STAGE_CHOICES = [(s, s) for s in STAGES]
SIZE_CHOICES = [("", "-"), ("S", "S"), ("M", "M"), ("L", "L")]


class Project(models.Model):
    slug = models.CharField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    repo_path = models.CharField(max_length=1000, blank=True, default="")
    description = models.TextField(blank=True, default="")
    next_number = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class Task(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="tasks")
    number = models.PositiveIntegerField()
    key = models.CharField(max_length=80, unique=True)
    title = models.CharField(max_length=300)
    stage = models.CharField(max_length=10, choices=STAGE_CHOICES, default="plan")
    stage_note = models.TextField(blank=True, default="")
    waiting_on = models.CharField(max_length=200, blank=True, default="")
    next_step = models.TextField(blank=True, default="")
    next_step_at = models.DateTimeField(null=True, blank=True)
    branch = models.CharField(max_length=300, blank=True, default="")
    document_path = models.CharField(max_length=1000, blank=True, default="")
    description = models.TextField(blank=True, default="")
    progress = models.TextField(blank=True, default="")
    priority = models.CharField(max_length=40, blank=True, default="")
    size = models.CharField(max_length=1, choices=SIZE_CHOICES, blank=True, default="")
    tracker_ref = models.CharField(max_length=100, blank=True, default="")
    tracker_name = models.CharField(max_length=100, blank=True, default="")
    tracker_url = models.CharField(max_length=2000, blank=True, default="")
    tracker_logged = models.BooleanField(default=False)
    # Plan state lives on the task (§1 Plan and checkpoints); the plans app writes it.
    plan_status = models.CharField(max_length=10, default="none")
    plan_accepted_at = models.DateTimeField(null=True, blank=True)
    plan_accepted_by = models.CharField(max_length=200, blank=True, default="")
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    stage_changed_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["project_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["project", "number"], name="task_number_per_project"),
            models.CheckConstraint(condition=models.Q(stage__in=STAGES), name="task_stage_known"),
        ]
        indexes = [
            models.Index(fields=["project", "stage"], name="task_project_stage"),
            models.Index(fields=["project", "closed_at"], name="task_project_closed"),
            # The tasks the board still shows, across projects (open, or done in the
            # window): the Inbox reads them on every refresh.
            models.Index(fields=["stage", "closed_at"], name="task_stage_closed"),
        ]

    def __str__(self) -> str:
        return self.key


class Report(models.Model):
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="reports")
    body = models.TextField()
    summary = models.CharField(max_length=200)
    state = models.CharField(max_length=40, blank=True, default="")
    size = models.CharField(max_length=1, blank=True, default="")
    author = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["task", "created_at"], name="report_task_time")]


class Decision(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="decisions")
    task = models.ForeignKey(
        Task, on_delete=models.CASCADE, null=True, blank=True, related_name="decisions"
    )
    text = models.TextField()
    decided_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField()
    # §8: task when a task is set, else project.
    scope = models.CharField(max_length=10, default="project")
    # Where it came from: a report, event or comment of the project (its id), a message with
    # an external id, or display text alone (source_kind "").
    source_kind = models.CharField(max_length=10, blank=True, default="")
    source_ref = models.CharField(max_length=200, blank=True, default="")
    source_text = models.CharField(max_length=500, blank=True, default="")
    # When the fact held, and when it was recorded or replaced (nothing is deleted).
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_to = models.DateTimeField(null=True, blank=True)
    recorded_at = models.DateTimeField(null=True, blank=True)
    superseded_at = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["id"]


class TrackerEntry(models.Model):
    """One issue key a task has had; logging and unlogging stamp the current entry."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="tracker_entries")
    ref = models.CharField(max_length=100)
    name = models.CharField(max_length=100, blank=True, default="")
    url = models.CharField(max_length=2000, blank=True, default="")
    created_at = models.DateTimeField()
    logged_at = models.DateTimeField(null=True, blank=True)
    unlogged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]


class ProjectRules(models.Model):
    """A project's working-rules override (§6): the rules document as JSON text."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="rules")
    body = models.TextField()
    updated_at = models.DateTimeField()


class Event(models.Model):
    """The event log: monotonic id (also the SSE id), kept forever."""

    id = models.BigAutoField(primary_key=True)
    kind = models.CharField(max_length=64)
    # No index of their own: (project, id) and (task, id) below serve every lookup by
    # either column, and at a million events the two single-column indexes took 22 MB
    # (docs/storage.md) and two more B-trees on every write.
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, null=True, blank=True, related_name="+", db_index=False
    )
    task = models.ForeignKey(
        Task, on_delete=models.CASCADE, null=True, blank=True, related_name="+", db_index=False
    )
    actor = models.CharField(max_length=200, blank=True, default="")
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["project", "id"], name="event_project_id"),
            models.Index(fields=["task", "id"], name="event_task_id"),
            models.Index(fields=["kind", "id"], name="event_kind_id"),
            # A task's newest event of one kind in one seek: the Inbox's rule warnings read
            # the last move of every shown task on every page.
            models.Index(fields=["task", "kind", "id"], name="event_task_kind_id"),
            # A project's newest events of one kind in one seek, however rare the kind:
            # Activity's "Actions on live" block and its ?project&kind filter read it, and
            # without it a project with no live.action walked its whole log.
            models.Index(fields=["project", "kind", "id"], name="event_project_kind_id"),
        ]


COMMENT_OWNER = "owner"  # written on the board, for the agent of the bound session
COMMENT_AGENT = "agent"  # an agent's reply (comment_add)
COMMENT_AUTHOR_KINDS = (COMMENT_OWNER, COMMENT_AGENT)


class Comment(models.Model):
    """One message of a task's thread (§1 Comment): an owner comment or an agent's reply.

    An owner comment is sent (created_at), delivered (delivered_at, to
    delivered_to_session_id) when a hook of the bound, exactly linked session handed it to
    the agent (§4), and read (read_at) when the agent acknowledged it or replied. An agent
    reply is read once the owner marks it read or writes a comment on the task.

    Sessions live in the sessions app and tasks imports no other app (docs/architecture.md §2),
    so a session is named by a plain integer column (no foreign key: tasks' models and
    migrations never depend on sessions) plus its display name at the time, which still
    reads right after the session is renamed or its row removed.
    """

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="comments")
    author_kind = models.CharField(max_length=10, choices=[(k, k) for k in COMMENT_AUTHOR_KINDS])
    author_name = models.CharField(max_length=200)
    author_session_id = models.BigIntegerField(null=True, blank=True)
    body = models.TextField()
    in_reply_to = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="replies"
    )
    created_at = models.DateTimeField()
    delivered_at = models.DateTimeField(null=True, blank=True)
    delivered_to_session_id = models.BigIntegerField(null=True, blank=True)
    delivered_to_name = models.CharField(max_length=200, blank=True, default="")
    read_at = models.DateTimeField(null=True, blank=True)
    read_by = models.CharField(max_length=200, blank=True, default="")
    # Stop blocks this comment caused since it was last delivered to a new session: one
    # comment blocks at most twice in all, across turns (§4 Stop).
    stop_blocks = models.PositiveSmallIntegerField(default=0)
    # The Owner check step an owner decision is about (§1 Review checklist, §11 0011_review):
    # a plain id like the session columns, since tasks imports no other app.
    step_id = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(author_kind__in=COMMENT_AUTHOR_KINDS),
                name="comment_author_kind_known",
            ),
        ]
        indexes = [
            models.Index(fields=["task", "id"], name="comment_task_id"),
            models.Index(fields=["task", "author_kind", "read_at"], name="comment_task_unread"),
        ]

    def __str__(self) -> str:
        return f"#{self.id} on {self.task_id}"
