"""Hooks channel (§4): how a Claude Code id was linked, the Stop-block counter, the todo.

Links made before this migration: an exact one was made by the agent's hook_session
(the only exact link 0001 could make); a desktop or named session's other link is a guess.
"""

import django.db.models.deletion
from django.db import migrations, models


def backfill_links(apps, schema_editor):
    Session = apps.get_model("agent_sessions", "Session")
    linked = Session.objects.filter(cc_session_id__isnull=False)
    linked.filter(cc_exact=True).update(cc_link="agent")
    # a hook row's own id is no guess about another session: its link stays ""
    linked.filter(cc_exact=False).exclude(kind="hook").update(cc_link="guess")


class Migration(migrations.Migration):
    dependencies = [
        ("agent_sessions", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="SessionTodo",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("cc_session_id", models.CharField(max_length=100)),
                ("item_id", models.CharField(max_length=100)),
                ("subject", models.CharField(max_length=200)),
                ("status", models.CharField(default="pending", max_length=20)),
                ("active_form", models.CharField(blank=True, default="", max_length=200)),
                ("position", models.PositiveIntegerField(default=0)),
            ],
            options={
                "ordering": ["position", "id"],
            },
        ),
        migrations.AddField(
            model_name="session",
            name="cc_link",
            field=models.CharField(
                blank=True,
                choices=[("", "-"), ("agent", "agent"), ("env", "env"), ("guess", "guess")],
                default="",
                max_length=10,
            ),
        ),
        migrations.AddField(
            model_name="session",
            name="stop_blocks",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddConstraint(
            model_name="session",
            constraint=models.CheckConstraint(
                condition=models.Q(("cc_link__in", ("", "agent", "env", "guess"))),
                name="session_link_known",
            ),
        ),
        migrations.AddField(
            model_name="sessiontodo",
            name="session",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="todo_items",
                to="agent_sessions.session",
            ),
        ),
        migrations.AddIndex(
            model_name="sessiontodo",
            index=models.Index(
                fields=["session", "cc_session_id", "position"], name="session_todo_list"
            ),
        ),
        migrations.AddConstraint(
            model_name="sessiontodo",
            constraint=models.UniqueConstraint(
                fields=("session", "cc_session_id", "item_id"), name="session_todo_item_unique"
            ),
        ),
        migrations.RunPython(backfill_links, migrations.RunPython.noop),
    ]
