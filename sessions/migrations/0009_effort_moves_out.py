"""The effort models move to the effort app (its migration 0001): forgotten here in Django's
state only. Their tables keep their names and rows; nothing in the database changes."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("agent_sessions", "0008_agent_names")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="TranscriptCursor"),
                migrations.DeleteModel(name="UsageSeen"),
                migrations.DeleteModel(name="TokenUsage"),
                migrations.DeleteModel(name="ProcessCost"),
                migrations.DeleteModel(name="TaskEffort"),
            ],
            database_operations=[],
        )
    ]
