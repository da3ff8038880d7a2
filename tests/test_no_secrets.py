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
