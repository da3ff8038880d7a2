"""TaskEffort rows carry their task's project, and a project's total reads them as one
stretch of an index (issue 33: project_snapshot at 2,000 tasks)."""

import django.db.models.deletion
from django.db import migrations, models

FILL = (
    'UPDATE "agent_sessions_taskeffort" SET "project_id" = '
    '(SELECT t."project_id" FROM "tasks_task" t WHERE t."id" = "agent_sessions_taskeffort"."task_id")'
)


class Migration(migrations.Migration):
    dependencies = [
        ("agent_sessions", "0006_token_usage_day_model"),
        ("tasks", "0007_event_fk_indexes_covered"),
    ]

    operations = [
        migrations.AddField(
            model_name="taskeffort",
            name="project",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="tasks.project",
            ),
        ),
        migrations.RunSQL(FILL, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name="taskeffort",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="tasks.project",
            ),
        ),
        migrations.AddIndex(
            model_name="taskeffort",
            index=models.Index(
                fields=["project", "agents_open", "agent_seconds", "as_of"],
                name="effort_total_figures",
            ),
        ),
    ]
