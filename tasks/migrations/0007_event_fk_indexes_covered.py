"""The event log's project and task columns lose their single-column indexes: (project, id)
and (task, id) serve every lookup by either column (docs/storage.md).

Written by hand: Django's AlterField(db_index=False) rebuilds the whole table on SQLite,
twice — a copy of every event on upgrade. Dropping the two indexes is all it takes.
"""

import django.db.models.deletion
from django.db import migrations, models

INDEXES = (
    ("tasks_event_project_id_1eda179d", "project_id"),
    ("tasks_event_task_id_9f848980", "task_id"),
)


class Migration(migrations.Migration):
    dependencies = [
        ("tasks", "0006_year_of_use_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="event",
                    name="project",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tasks.project",
                    ),
                ),
                migrations.AlterField(
                    model_name="event",
                    name="task",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tasks.task",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{name}"',
                    reverse_sql=f'CREATE INDEX "{name}" ON "tasks_event" ("{column}")',
                )
                for name, column in INDEXES
            ],
        ),
    ]
