"""The ledgers of hand-written SQL (docs/architecture.md §6): every statement of an app's
sql.py names its row type and a test that holds it to its ORM twin or a golden result, and
the statements no older test held are held here, against the real SQLite."""

from __future__ import annotations

import ast
import json
import sqlite3
from datetime import date, timedelta
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import Count, Max, Q, Sum
from django.db.models.base import ModelBase

from core import prices
from core.actor import OWNER
from core.rows import Statement, fetch_all, fetch_one
from effort import sql as effort_sql
from effort.figures import SUMMED
from effort.models import TokenUsage
from plans.models import DONE, PlanStep
from plans.services import plan_set
from policy import selectors as policy_selectors
from policy import services as policy_services
from policy.models import PolicyLayer
from policy.selectors import Scope
from relaybay_site import sql as roof_sql
from sessions import services as session_services
from tasks.models import Event, Task
from tests.environments.factories import make_environment
from tests.tasks.factories import ACTOR, make_project, make_task

ROOT = Path(__file__).resolve().parent.parent
LEDGERS = sorted(
    p for p in ROOT.glob("**/sql.py") if ".venv" not in p.parts and "tests" not in p.parts
)


def _module(path: Path) -> Any:
    return import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))


def _entries() -> list[tuple[str, str, Any]]:
    """(ledger, name, Statement or shape) of every ledger."""
    found = []
    for path in LEDGERS:
        module = _module(path)
        for name, value in vars(module).items():
            shaped = hasattr(value, "twin") and not isinstance(value, type)
            if isinstance(value, Statement) or shaped:
                found.append((str(path.relative_to(ROOT)), name, value))
    return found


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def test_the_ledgers_are_found() -> None:
    names = {str(p.relative_to(ROOT)) for p in LEDGERS}
    assert {"tasks/sql.py", "sessions/sql.py", "memory/sql.py", "policy/sql.py"} <= names


def test_every_statement_names_a_twin_test_that_exists() -> None:
    missing = []
    for ledger, name, entry in _entries():
        file, _, test = entry.twin.partition("::")
        path = ROOT / file
        if not (path.exists() and test in _tests_in(path)):
            missing.append(f"{ledger} {name}: {entry.twin}")
    assert missing == [], "twins that are not there:\n" + "\n".join(missing)


def _is_row_type(row: Any) -> bool:
    if isinstance(row, tuple):
        return all(isinstance(part, type) for part in row)
    named = isinstance(row, type) and issubclass(row, tuple) and hasattr(row, "_fields")
    return named or isinstance(row, ModelBase)


def test_a_statement_with_rows_names_their_type_and_one_without_names_none() -> None:
    wrong = []
    for ledger, name, entry in _entries():
        text = entry.text if isinstance(entry, Statement) else None
        reads = text is None or text.lstrip().startswith(("SELECT", "WITH"))
        if (entry.row is None) if reads else (entry.row is not None):
            wrong.append(f"{ledger} {name}")
        elif entry.row is not None and not _is_row_type(entry.row):
            wrong.append(f"{ledger} {name}: {entry.row!r}")
    assert wrong == [], "rows: a NamedTuple, a model or a tuple of them:\n" + "\n".join(wrong)


@pytest.mark.django_db
def test_a_named_row_has_a_field_for_every_column_the_statement_selects() -> None:
    """Each read of the Django connection run with NULL for every parameter: its columns are
    its NamedTuple's fields, one for one."""
    wrong = []
    for ledger, name, entry in _entries():
        row = entry.row
        if not (isinstance(entry, Statement) and hasattr(row, "_fields")):
            continue
        if ledger == "relaybay_site/sql.py" or not entry.text.startswith("SELECT"):
            continue
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(entry.text, [None] * entry.text.count("%s"))
            width = len(cursor.description)
        if width != len(row._fields):
            wrong.append(f"{ledger} {name}: {width} columns, {len(row._fields)} fields")
    assert wrong == [], "\n".join(wrong)


# --- golden results of the statements no older test held -------------------------------------


@pytest.mark.django_db
def test_the_newest_event_id_is_the_logs_last() -> None:
    from tasks import sql

    make_task(make_project("acme"), "One")
    row = fetch_one(sql.NEWEST_EVENT_ID.text, [])
    assert row == (Event.objects.aggregate(newest=Max("id"))["newest"],)


@pytest.mark.django_db
def test_the_plan_step_counts_equal_the_orms() -> None:
    from plans import sql

    project = make_project("acme")
    planned, bare = make_task(project, "Planned"), make_task(project, "Bare")
    plan_set(key=planned.key, steps=["one", "two", "three"], actor=ACTOR)
    rows = fetch_all(sql.STEP_COUNTS.text, [json.dumps([planned.id, bare.id])])
    orm = (
        PlanStep.objects.filter(task_id__in=[planned.id, bare.id])
        .values_list("task_id")
        .annotate(done=Count("id", filter=Q(status=DONE)), steps=Count("id"))
    )
    assert [sql.StepCounts._make(r) for r in rows] == [sql.StepCounts(*r) for r in orm]
    assert rows == [(planned.id, 0, 3)]


@pytest.mark.django_db
def test_the_layer_stamps_equal_the_orms() -> None:
    project = make_project("acme")
    staging = make_environment("acme", "staging", kind="test")
    layer = json.dumps({"guard": {"mode": "warn"}})
    for scope in ("acme", "acme/staging"):
        policy_services.policy_layer_save(scope=scope, text=layer, actor=OWNER)
    for environment in (None, staging):
        stamps = policy_selectors._layer_stamps(Scope(project, environment))
        layers = PolicyLayer.objects.filter(project=project)
        if environment is None:
            layers = layers.filter(environment__isnull=True)
        else:
            layers = layers.filter(Q(environment__isnull=True) | Q(environment=environment))
        orm = [(i, at.replace(tzinfo=None)) for i, at in layers.values_list("id", "changed_at")]
        assert sorted(stamps) == sorted(orm)  # the raw cursor's datetimes: naive, in UTC
        assert len(stamps) == (1 if environment is None else 2)


def _usage(project_tasks: list[Task]) -> None:
    """Token rows over three days and two models, as the effort service stores them."""
    session = session_services.session_touch(session="alice", actor=ACTOR).session
    day = date(2026, 12, 1)
    rows = [
        TokenUsage(
            session=session,
            task=task,
            day=day + timedelta(days=d),
            model=model,
            responses=1 + d,
            input=100 * (d + 1),
            output=10,
            cache_write=5,
            cache_read=7,
        )
        for task in project_tasks
        for d in range(3)
        for model in ("claude-opus-5-5", "mystery-9")
    ]
    TokenUsage.objects.bulk_create(rows)


@pytest.mark.django_db
def test_the_token_sums_equal_the_orms() -> None:
    project = make_project("acme")
    tasks = [make_task(project, t) for t in ("One", "Two")]
    _usage(tasks)
    since, until = "2026-12-02", "2026-12-03"
    in_range = TokenUsage.objects.filter(task__project=project, day__gte=since, day__lte=until)
    sums = {k: Sum(k) for k in SUMMED}
    orm = in_range.values_list("task_id", "model").annotate(**sums).order_by("task_id", "model")
    got = fetch_all(effort_sql.usage(), [project.id, since, until])
    assert sorted(got) == [tuple(r) for r in orm]
    kinds = {k: Sum(k) for k in prices.KINDS}
    per_day = in_range.values_list("day", "model").annotate(**kinds).order_by("day", "model")
    got = fetch_all(effort_sql.per_day(), [since, until, project.id, "", ""])
    assert sorted(got) == [(d.isoformat(), m, *s) for d, m, *s in per_day]
    drawn = in_range.filter(task=tasks[0]).values_list("day", "task_id", "model")
    drawn = drawn.annotate(**kinds).order_by("day", "task_id", "model")
    got = fetch_all(effort_sql.drawn_per_day(), [json.dumps([tasks[0].id]), since, until])
    assert sorted(got) == [(d.isoformat(), t, m, *s) for d, t, m, *s in drawn]


@pytest.mark.django_db
def test_the_effort_lines_read_what_the_orm_holds() -> None:
    project = make_project("acme")
    tasks = [make_task(project, t) for t in ("One", "Two", "Three")]
    got = fetch_all(effort_sql.effort_lines(), [project.id, "", "", "", "", ""])
    rows = [effort_sql.LineRow._make(r) for r in got]
    assert [r.id for r in rows] == [t.id for t in sorted(tasks, key=lambda t: -t.number)]
    for row, task in zip(rows, sorted(tasks, key=lambda t: -t.number), strict=True):
        assert (row.key, row.title, row.stage, row.number) == (
            task.key, task.title, task.stage, task.number
        )  # fmt: skip
        assert row.created_at == task.created_at.replace(tzinfo=None).isoformat(" ")
    assert rows[0].tally_agent_seconds is not None or rows[0].tally_as_of is None


def test_the_roofs_statements_read_a_database_without_django(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE django_migrations (app TEXT, name TEXT)")
        con.execute("INSERT INTO django_migrations VALUES ('tasks', '0001_initial')")
        con.execute("CREATE TABLE tasks_project (id INTEGER)")
    with sqlite3.connect(db) as con:
        applied = [roof_sql.Applied._make(r) for r in con.execute(roof_sql.APPLIED_MIGRATIONS.text)]
        assert applied == [roof_sql.Applied("tasks", "0001_initial")]
        assert con.execute(roof_sql.any_row("tasks_project")).fetchone() is None
        assert con.execute(roof_sql.any_row("django_migrations")).fetchone() == (1,)
    con.close()
