"""Tasks made before time tallies were kept get theirs, replayed from their events: once,
here, so that no read of the effort ever writes (effort.services.tally.effort_backfill)."""

from django.apps.registry import Apps
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor


def backfill(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from effort.services.tally import effort_backfill

    effort_backfill(
        task_model=apps.get_model("tasks", "Task"),
        event_model=apps.get_model("tasks", "Event"),
        effort_model=apps.get_model("effort", "TaskEffort"),
    )


class Migration(migrations.Migration):
    dependencies = [("effort", "0001_initial")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
