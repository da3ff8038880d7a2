"""The memory's search index (memory/search.py) made with the schema, FTS5 when SQLite has it
(else the plain table the LIKE fallback reads), so the write path never has to ask whether
it exists: each indexed write and each search used to spend a query on that."""

from django.db import migrations


def create(apps, schema_editor):  # type: ignore[no-untyped-def]
    from memory import search

    search.forget()
    search.ensure_table()


def drop(apps, schema_editor):  # type: ignore[no-untyped-def]
    from memory import search

    schema_editor.execute(f"DROP TABLE IF EXISTS {search.TABLE}")
    search.forget()


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0001_initial"),
        ("tasks", "0005_event_task_kind_index"),
    ]

    operations = [migrations.RunPython(create, drop)]
