"""An agent is not always Claude Code: the link columns say agent_*, not cc_* (issue 39).

The constraints and the index that name the old columns are dropped first and made again
over the new names, so the model state and the tables agree."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("agent_sessions", "0007_effort_project")]

    operations = [
        migrations.RemoveConstraint(model_name="session", name="session_link_known"),
        migrations.RemoveConstraint(model_name="sessiontodo", name="session_todo_item_unique"),
        migrations.RemoveIndex(model_name="sessiontodo", name="session_todo_list"),
        migrations.RenameField("session", "cc_session_id", "agent_session_id"),
        migrations.RenameField("session", "cc_exact", "agent_exact"),
        migrations.RenameField("session", "cc_link", "agent_link"),
        migrations.RenameField("sessiontodo", "cc_session_id", "agent_session_id"),
        migrations.AddConstraint(
            model_name="session",
            constraint=models.CheckConstraint(
                condition=models.Q(("agent_link__in", ("", "agent", "env", "guess"))),
                name="session_link_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="sessiontodo",
            constraint=models.UniqueConstraint(
                fields=("session", "agent_session_id", "item_id"),
                name="session_todo_item_unique",
            ),
        ),
        migrations.AddIndex(
            model_name="sessiontodo",
            index=models.Index(
                fields=["session", "agent_session_id", "position"], name="session_todo_list"
            ),
        ),
    ]
