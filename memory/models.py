"""The project memory (§8, §11 0012_memory): documents and their versions, memory notes and
blocks. Fields, constraints and Meta only: every write goes through memory's services.

The FTS5 table search_index is not a model: the search service creates and keeps it (§8).
"""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Lower

from tasks.models import Project

DOC_NAME_MAX = 80
TITLE_MAX = 200
DOC_TEXT_MAX = 200_000  # a document (or a section written alone), markdown
NOTE_SCOPES = ("global", "role", "project")
NOTE_KINDS = ("user", "feedback", "project", "reference")
BLOCK_LIMIT_DEFAULT = 2000
BLOCK_LIMIT_MAX = 20000


class Document(models.Model):
    """A project document (spec, runbook, adr …); every version is kept."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="documents")
    name = models.CharField(max_length=DOC_NAME_MAX)
    title = models.CharField(max_length=TITLE_MAX)
    kind = models.CharField(max_length=40, blank=True, default="")
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    updated_by = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["project_id", "name"]
        constraints = [
            models.UniqueConstraint("project", Lower("name"), name="document_name_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.project_id}/{self.name} v{self.version}"


class DocumentVersion(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    body = models.TextField()
    author = models.CharField(max_length=200, blank=True, default="")
    reason = models.CharField(max_length=500, blank=True, default="")
    base_version = models.PositiveIntegerField(default=0)
    section = models.CharField(max_length=200, blank=True, default="")  # the anchor replaced
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["document_id", "version"]
        constraints = [
            models.UniqueConstraint(fields=["document", "version"], name="document_version_once"),
        ]


class MemoryNote(models.Model):
    """A fact worth keeping across sessions: global, for a role, or for a project."""

    scope = models.CharField(max_length=10, choices=[(s, s) for s in NOTE_SCOPES])
    role = models.CharField(max_length=60, blank=True, default="")
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, null=True, blank=True, related_name="memory_notes"
    )
    kind = models.CharField(max_length=10, choices=[(k, k) for k in NOTE_KINDS])
    title = models.CharField(max_length=TITLE_MAX)
    body = models.TextField()
    tags = models.CharField(max_length=500, blank=True, default="")  # lowercased, comma separated
    source_kind = models.CharField(max_length=10, blank=True, default="")
    source_ref = models.CharField(max_length=200, blank=True, default="")
    source_text = models.CharField(max_length=500, blank=True, default="")
    review_at = models.DateTimeField(null=True, blank=True)
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_to = models.DateTimeField(null=True, blank=True)
    recorded_at = models.DateTimeField()
    superseded_at = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    last_read_at = models.DateTimeField(null=True, blank=True)
    read_count = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(default=1)
    author = models.CharField(max_length=200, blank=True, default="")
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["-id"]
        # The notes of a project's page (its own, global and role ones), current or
        # superseded, counted and listed newest first through these two (without
        # them each count read every note a year had written).
        indexes = [
            models.Index(fields=["project", "superseded_at"], name="memory_note_project_state"),
            models.Index(fields=["scope", "superseded_at"], name="memory_note_scope_state"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(scope__in=NOTE_SCOPES), name="memory_note_scope_known"
            ),
            models.CheckConstraint(
                condition=~models.Q(scope="project") | models.Q(project__isnull=False),
                name="memory_note_project_scope_has_project",
            ),
        ]


class MemoryBlock(models.Model):
    """A size-limited block of text, global or for one project; owner_only ones change
    only on the board."""

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, null=True, blank=True, related_name="memory_blocks"
    )
    label = models.CharField(max_length=80)
    description = models.CharField(max_length=500, blank=True, default="")
    body = models.TextField(blank=True, default="")
    char_limit = models.PositiveIntegerField(default=BLOCK_LIMIT_DEFAULT)
    owner_only = models.BooleanField(default=False)
    version = models.PositiveIntegerField(default=1)
    updated_at = models.DateTimeField()
    updated_by = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["project_id", "label"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "label"],
                condition=models.Q(project__isnull=False),
                name="memory_block_label_per_project",
            ),
            models.UniqueConstraint(
                fields=["label"],
                condition=models.Q(project__isnull=True),
                name="memory_block_label_global",
            ),
            models.CheckConstraint(
                condition=models.Q(char_limit__lte=BLOCK_LIMIT_MAX),
                name="memory_block_limit_max",
            ),
        ]
