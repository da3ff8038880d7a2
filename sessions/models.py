"""Sessions, their aliases and the task binding history (§1 Session and binding, §4).

Fields, constraints and Meta only: every write goes through sessions.services.
"""

from __future__ import annotations

from django.db import models

from tasks.fields import CALLER_NAME_MAX, CALLER_TITLE_MAX, HOOK_SESSION_MAX
from tasks.models import Project, Task

KIND_DESKTOP = "desktop"  # a Claude desktop app session: local_<uuid>, "Open in desktop"
KIND_NAMED = "named"  # a plain human-readable name the agent (or the owner) chose
KIND_HOOK = "hook"  # created by the Claude Code hooks when nothing better was known (§4)
KINDS = (KIND_DESKTOP, KIND_NAMED, KIND_HOOK)

HOOK_STATUSES = ("", "working", "waiting", "idle", "ended")
WORKING = "working"
WAITING = "waiting"
IDLE = "idle"
ENDED = "ended"

# How the current Claude Code id got linked (§4 Linking): "agent" — the agent passed
# hook_session on a write (step 2); "env" — the desktop app's own id named the session
# (step 1); "guess" — the folder's one desktop session (step 3). An agent's own link is
# never taken by the environment step, so the two exact kinds must be told apart.
LINK_AGENT = "agent"


LINK_ENV = "env"
LINK_GUESS = "guess"
LINKS = ("", LINK_AGENT, LINK_ENV, LINK_GUESS)

NAME_MAX = CALLER_NAME_MAX  # names and aliases the caller passes
TITLE_MAX = CALLER_TITLE_MAX
AGENT_ID_MAX = HOOK_SESSION_MAX


class Session(models.Model):
    """Whoever works on a task. Identity is for display only; the token authorises (§1)."""

    # Display name: the local_… id of a desktop session, the plain name of a named one,
    # the folder name of a hook row. Unique among named sessions only.
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=10, choices=[(k, k) for k in KINDS])
    desktop_id = models.CharField(max_length=64, unique=True, null=True, blank=True)
    title = models.CharField(max_length=TITLE_MAX, blank=True, default="")
    # The project the hooks placed a hook row in (§4 fallback: the folder's project).
    project = models.ForeignKey(
        Project, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The Claude Code session id currently linked to this session (migration 0007).
    agent_session_id = models.CharField(max_length=AGENT_ID_MAX, unique=True, null=True, blank=True)
    # True when the link is exact (the agent passed hook_session on a write, or the desktop
    # app's own id named it); only exact links get owner comments (§4, migration 0008).
    agent_exact = models.BooleanField(default=False)
    agent_link = models.CharField(
        max_length=10, blank=True, default="", choices=[(k, k or "-") for k in LINKS]
    )
    # Stop blocks relaybay answered in the current turn (§4: at most two per turn; reset on
    # UserPromptSubmit and whenever a Stop is allowed).
    stop_blocks = models.PositiveSmallIntegerField(default=0)
    hook_status = models.CharField(
        max_length=10, blank=True, default="", choices=[(s, s or "-") for s in HOOK_STATUSES]
    )
    activity = models.CharField(max_length=200, blank=True, default="")
    activity_at = models.DateTimeField(null=True, blank=True)
    cwd = models.CharField(max_length=1000, blank=True, default="")
    # Which agent CLI's hooks report this session (the adapter of sessions/hooks/ that last
    # linked it): "claude-code" or "codex"; "" for a session no hook has reported yet.
    agent = models.CharField(max_length=20, blank=True, default="")
    # The agent's own transcript of the session (Claude Code's <id>.jsonl, Codex's rollout
    # file) as its hooks name it: where the effort of a task is counted from.
    transcript_path = models.CharField(max_length=1000, blank=True, default="")
    # Why the hooks left this row unlinked (ambiguous folder, several candidates …).
    unlinked_reason = models.CharField(max_length=300, blank=True, default="")
    last_seen_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(kind__in=KINDS), name="session_kind_known"),
            models.CheckConstraint(
                condition=models.Q(hook_status__in=HOOK_STATUSES), name="session_hook_status_known"
            ),
            models.UniqueConstraint(
                fields=["name"],
                condition=models.Q(kind=KIND_NAMED),
                name="session_named_name_unique",
            ),
            models.CheckConstraint(
                condition=~models.Q(kind=KIND_DESKTOP) | models.Q(desktop_id__isnull=False),
                name="session_desktop_has_id",
            ),
            models.CheckConstraint(
                condition=models.Q(agent_link__in=LINKS), name="session_link_known"
            ),
        ]
        indexes = [
            models.Index(fields=["project", "hook_status"], name="session_project_status"),
            models.Index(fields=["last_seen_at"], name="session_last_seen"),
        ]

    def __str__(self) -> str:
        return self.name


class SessionAlias(models.Model):
    """A plain name that resolves to another session (global, §1)."""

    name = models.CharField(max_length=NAME_MAX, unique=True)
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="aliases")
    created_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class TaskBinding(models.Model):
    """One binding of a task to a session; the current one has no unbound_at."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="session_bindings")
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="bindings")
    bound_at = models.DateTimeField()
    bound_by = models.CharField(max_length=200, blank=True, default="")
    unbound_at = models.DateTimeField(null=True, blank=True)
    unbound_by = models.CharField(max_length=200, blank=True, default="")
    unbind_reason = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["task"],
                condition=models.Q(unbound_at__isnull=True),
                name="task_binding_one_current",
            ),
        ]
        indexes = [
            models.Index(fields=["task", "bound_at"], name="binding_task_time"),
            models.Index(fields=["session", "unbound_at"], name="binding_session_current"),
        ]

    def __str__(self) -> str:
        return f"{self.task_id} → {self.session_id}"


TODO_MAX_ITEMS = 50
TODO_TEXT_MAX = 200
TODO_STATUSES = ("pending", "in_progress", "completed")


class SessionTodo(models.Model):
    """One item of the agent's Claude Code todo list, read from its hooks (§4 Todo capture).

    The list belongs to the session and the Claude Code id it was written under: the
    current list is the rows of the session's current agent_session_id.
    """

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="todo_items")
    agent_session_id = models.CharField(max_length=AGENT_ID_MAX)
    item_id = models.CharField(max_length=100)
    subject = models.CharField(max_length=TODO_TEXT_MAX)
    status = models.CharField(max_length=20, default="pending")
    active_form = models.CharField(max_length=TODO_TEXT_MAX, blank=True, default="")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "agent_session_id", "item_id"], name="session_todo_item_unique"
            ),
        ]
        indexes = [
            models.Index(
                fields=["session", "agent_session_id", "position"], name="session_todo_list"
            ),
        ]

    def __str__(self) -> str:
        return self.subject


# --- sessions that know about each other (collisions) ------------------------------------

PATH_MAX = 1000


class TouchedPath(models.Model):
    """A file a live session is about to change, relative to its project's repository: the
    path and when, never the contents. One row per session and path (the latest touch);
    forgotten when the session ends, and after two hours."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    path = models.CharField(max_length=PATH_MAX)
    touched_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "path"], name="touched_path_once"),
        ]
        indexes = [
            models.Index(fields=["project", "path", "touched_at"], name="touched_path_where"),
        ]


class Collision(models.Model):
    """Two live sessions of one repository on the same path (or one checkout on two
    branches): the session that touched it second was told at once; the first is told on
    its next hook answer (`told_other_at`). One per pair and path per hour."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    path = models.CharField(max_length=PATH_MAX)  # "" for a checkout on two branches
    at = models.DateTimeField()
    other_touched_at = models.DateTimeField(null=True, blank=True)
    told_other_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["other", "told_other_at"], name="collision_to_tell"),
            models.Index(fields=["at"], name="collision_at"),
        ]


# --- the owner approves from the board -----------------------------------------------------

APPROVAL_SUMMARY_MAX = 2000
APPROVAL_MESSAGE_MAX = 1000
PENDING = "pending"
APPROVED = "approved"
DENIED = "denied"
TERMINAL = "terminal"  # the person answered in the agent's own terminal first
TIMED_OUT = "timed_out"
GONE = "gone"  # the hook went away (the agent stopped, the session ended)
APPROVAL_STATES = (PENDING, APPROVED, DENIED, TERMINAL, TIMED_OUT, GONE)
FROM_CLI = "cli"  # the agent CLI's own permission prompt (PermissionRequest)
FROM_GUARD = "guard"  # relaybay's guard decided "ask" for a stand at level ask
APPROVAL_SOURCES = (FROM_CLI, FROM_GUARD)


class ApprovalRequest(models.Model):
    """A tool call that waits for the owner's Approve or Deny while its hook is held: the
    agent CLI's own permission prompt, or the guard's ask. The summary of the call's input
    is masked like the journal's; the request ends approved, denied (with the owner's
    message), answered in the terminal, timed out, or gone with its hook."""

    session = models.ForeignKey(
        Session, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    task = models.ForeignKey(
        Task, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    project = models.ForeignKey(
        Project, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    agent = models.CharField(max_length=40)
    agent_session_id = models.CharField(max_length=AGENT_ID_MAX, blank=True, default="")
    source = models.CharField(max_length=10, choices=[(s, s) for s in APPROVAL_SOURCES])
    tool = models.CharField(max_length=200)
    summary = models.CharField(max_length=APPROVAL_SUMMARY_MAX, blank=True, default="")
    # the guard's ask: the stand, the capability level and the rule, and its reason
    stand = models.CharField(max_length=100, blank=True, default="")
    level = models.CharField(max_length=40, blank=True, default="")
    rule = models.CharField(max_length=200, blank=True, default="")
    reason = models.CharField(max_length=APPROVAL_SUMMARY_MAX, blank=True, default="")
    requested_at = models.DateTimeField()
    deadline = models.DateTimeField()  # the hook is answered by then, whatever happens
    state = models.CharField(
        max_length=10, choices=[(s, s) for s in APPROVAL_STATES], default=PENDING
    )
    message = models.CharField(max_length=APPROVAL_MESSAGE_MAX, blank=True, default="")
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=NAME_MAX, blank=True, default="")

    class Meta:
        indexes = [
            models.Index(fields=["state", "requested_at"], name="approval_pending"),
            models.Index(fields=["session", "state"], name="approval_session"),
        ]

    def __str__(self) -> str:
        return f"approval #{self.pk} ({self.state}): {self.tool}"
