"""The database's last line (core/no_secrets.py under core/sqlite): a token shape in any
written value that no service's door let through refuses the write (§9.9)."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.utils import timezone

from core import no_secrets
from core.errors import SecretRefused
from tasks.models import Event, Project
from tests.support import tokens

pytestmark = pytest.mark.django_db

GHP = tokens.github()
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlMTIz"


def make_project(name: str) -> Project:
    now = timezone.now()
    return Project.objects.create(slug="acme", name=name, created_at=now, updated_at=now)


def test_a_write_no_service_checked_is_refused_naming_the_column_never_the_value() -> None:
    with pytest.raises(SecretRefused) as refused, transaction.atomic():
        make_project(f"Acme {GHP}")
    message = str(refused.value)
    assert message.startswith("Refused: project name looks like it contains a secret value")
    assert "(github-token)" in message
    assert GHP not in message
    assert not Project.objects.exists()


def test_an_update_and_a_json_value_are_read_too() -> None:
    project = make_project("Acme")
    with pytest.raises(SecretRefused, match="project description"), transaction.atomic():
        Project.objects.filter(pk=project.pk).update(description=f"see {JWT}")
    with pytest.raises(SecretRefused, match=r"\(jwt\)"), transaction.atomic():
        Event.objects.create(
            kind="project.updated",
            project=project,
            actor="x",
            payload={"deep": [{"token": JWT}]},
            created_at=timezone.now(),
        )


def test_raw_sql_and_many_rows_go_through_the_same_cursor() -> None:
    project = make_project("Acme")
    with pytest.raises(SecretRefused), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE tasks_project SET name = %s WHERE id = %s", [GHP, project.pk])
    with pytest.raises(SecretRefused), transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(
            "UPDATE tasks_project SET name = %s WHERE id = %s",
            [["fine", project.pk], [JWT, project.pk]],
        )
    assert Project.objects.get().name == "Acme"


def test_a_read_passes_and_a_token_let_through_is_written() -> None:
    assert not Project.objects.filter(name=GHP).exists()
    no_secrets.let_through([GHP.lower()])
    assert make_project(f"Acme {GHP}").name == f"Acme {GHP}"


@pytest.mark.django_db(transaction=True)
def test_a_token_let_through_lives_as_long_as_its_transaction() -> None:
    """Issue 38: the allowance was thread-wide, so a token allowed for one write stayed
    allowed for every later write on that thread."""
    with transaction.atomic():
        no_secrets.let_through([JWT])
        make_project(f"Acme {JWT}")
    with pytest.raises(SecretRefused), transaction.atomic():
        Project.objects.update(description=f"again {JWT}")

    def let_through_then_fail() -> None:
        with transaction.atomic():
            no_secrets.let_through([JWT])
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        let_through_then_fail()
    with pytest.raises(SecretRefused), transaction.atomic():
        Project.objects.update(description=f"after a rollback {JWT}")
    assert Project.objects.get().description == ""


def test_core_rows_statements_run_on_a_plain_cursor_that_checks_too() -> None:
    """core/rows runs its statements on a checked cursor without Django's wrappers (when no
    one captures them): the last line holds there, and Django's errors are the ones raised."""
    from django.db import DatabaseError

    from core.rows import fetch_one, insert, update

    project = make_project("Acme")
    assert not connection.queries_logged
    plain = connection.plain_cursor()
    assert plain is not None
    assert type(plain).__name__ == "CheckedCursor"
    plain.close()
    with pytest.raises(SecretRefused, match="project name"), transaction.atomic():
        update(Project, {"name": f"Acme {GHP}"}, where={"id": project.pk})
    with pytest.raises(SecretRefused, match=r"\(jwt\)"), transaction.atomic():
        insert(
            Event(
                kind="project.updated",
                project=project,
                actor="x",
                payload={"deep": [{"token": JWT}]},
                created_at=timezone.now(),
            )
        )
    with pytest.raises(DatabaseError):  # Django's, as the on-loop write's lock check needs
        fetch_one("SELECT nothing FROM tasks_project WHERE id = %s", [project.pk])
    assert fetch_one("SELECT name FROM tasks_project WHERE id > %s", [0]) == ("Acme",)
    assert Project.objects.get().name == "Acme"


def test_a_captured_statement_goes_through_djangos_cursor() -> None:
    from django.test.utils import CaptureQueriesContext

    from core.rows import fetch_one

    with CaptureQueriesContext(connection) as captured:
        assert connection.plain_cursor() is None
        fetch_one("SELECT count(*) FROM tasks_project WHERE id > %s", [0])
    assert [q["sql"] for q in captured.captured_queries] == [
        "SELECT count(*) FROM tasks_project WHERE id > 0"
    ]
