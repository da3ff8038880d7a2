"""A tally names the last event stepped into it, so a step left for after a write's answer
(effort/services/tally.py) is taken once and in order. Every tally so far was stepped in its event's
own transaction: it is as of its task's newest time event."""

from django.apps.registry import Apps
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce


def as_of_newest(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from effort.intervals import TIME_EVENTS

    event = apps.get_model("tasks", "Event")
    newest = (
        event.objects.filter(task_id=OuterRef("task_id"), kind__in=TIME_EVENTS)
        .order_by("-id")
        .values("id")[:1]
    )
    apps.get_model("effort", "TaskEffort").objects.update(event_id=Coalesce(Subquery(newest), 0))


class Migration(migrations.Migration):
    dependencies = [("effort", "0002_replay_older_tasks")]

    operations = [
        migrations.AddField(
            model_name="taskeffort",
            name="event_id",
            field=models.BigIntegerField(default=0),
        ),
        migrations.RunPython(as_of_newest, migrations.RunPython.noop),
    ]
