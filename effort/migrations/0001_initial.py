"""The effort models, moved here from sessions (its migration 0009) in Django's state only:
their tables keep their `agent_sessions_*` names and their rows; nothing is created."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("agent_sessions", "0009_effort_moves_out"),
        ("tasks", "0007_event_fk_indexes_covered"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="TranscriptCursor",
                    fields=[
                        (
                            "session",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="transcript_cursor",
                                serialize=False,
                                to="agent_sessions.session",
                            ),
                        ),
                        ("path", models.CharField(blank=True, default="", max_length=1000)),
                        ("device", models.BigIntegerField(default=0)),
                        ("inode", models.BigIntegerField(default=0)),
                        ("offset", models.BigIntegerField(default=0)),
                        ("model", models.CharField(blank=True, default="", max_length=100)),
                        ("read_at", models.DateTimeField(blank=True, null=True)),
                    ],
                    options={
                        "db_table": "agent_sessions_transcriptcursor",
                    },
                ),
                migrations.CreateModel(
                    name="ProcessCost",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("started", models.BigIntegerField()),
                        ("total_usd", models.FloatField()),
                        (
                            "session",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="agent_sessions.session",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "agent_sessions_processcost",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("session", "started"), name="process_cost_once"
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="TaskEffort",
                    fields=[
                        (
                            "task",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="+",
                                serialize=False,
                                to="tasks.task",
                            ),
                        ),
                        ("as_of", models.DateTimeField()),
                        ("stage", models.CharField(blank=True, default="", max_length=10)),
                        ("stage_seconds", models.JSONField(default=dict)),
                        ("agent_seconds", models.FloatField(default=0)),
                        ("wall_seconds", models.FloatField(default=0)),
                        ("waiting_seconds", models.FloatField(default=0)),
                        ("agents_open", models.PositiveSmallIntegerField(default=0)),
                        ("waiting_open", models.BooleanField(default=False)),
                        ("sessions", models.PositiveIntegerField(default=0)),
                        ("turns", models.PositiveIntegerField(default=0)),
                        ("state", models.JSONField(default=dict)),
                        (
                            "project",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="tasks.project",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "agent_sessions_taskeffort",
                        "indexes": [
                            models.Index(
                                fields=["project", "agents_open", "agent_seconds", "as_of"],
                                name="effort_total_figures",
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="TokenUsage",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("day", models.DateField()),
                        ("model", models.CharField(max_length=100)),
                        ("responses", models.PositiveIntegerField(default=0)),
                        ("shared", models.PositiveIntegerField(default=0)),
                        ("input", models.BigIntegerField(default=0)),
                        ("output", models.BigIntegerField(default=0)),
                        ("cache_write", models.BigIntegerField(default=0)),
                        ("cache_read", models.BigIntegerField(default=0)),
                        ("reasoning", models.BigIntegerField(default=0)),
                        (
                            "session",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="agent_sessions.session",
                            ),
                        ),
                        (
                            "task",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="tasks.task",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "agent_sessions_tokenusage",
                        "indexes": [
                            models.Index(fields=["task", "day"], name="token_usage_task_day"),
                            models.Index(
                                fields=[
                                    "day",
                                    "model",
                                    "task",
                                    "input",
                                    "output",
                                    "cache_write",
                                    "cache_read",
                                ],
                                name="token_usage_day_model",
                            ),
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                condition=models.Q(("task__isnull", False)),
                                fields=("session", "task", "day", "model"),
                                name="token_usage_row",
                            ),
                            models.UniqueConstraint(
                                condition=models.Q(("task__isnull", True)),
                                fields=("session", "day", "model"),
                                name="token_usage_row_no_task",
                            ),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="UsageSeen",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("digest", models.BigIntegerField()),
                        (
                            "session",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="agent_sessions.session",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "agent_sessions_usageseen",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("session", "digest"), name="usage_seen_once"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        )
    ]
