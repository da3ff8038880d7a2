"""`relaybay serve` migrates at start (§11): a failing migration changes nothing and says so."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.support.server import RelaybayServer, free_port, run_cli

pytestmark = pytest.mark.integration


def make_clashing_database(path: Path) -> None:
    """A database whose tasks_project table has another shape than the first migration's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as con:
        con.execute("CREATE TABLE tasks_project (legacy_name TEXT NOT NULL)")
        con.execute("INSERT INTO tasks_project VALUES ('kept as it was')")
        con.commit()


def tables(path: Path) -> list[str]:
    with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as con:
        return sorted(
            r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")
        )


def test_a_failing_migration_stops_serve_with_one_line_and_leaves_the_database_as_it_was(tmp_path):
    home = tmp_path / "home"
    db = home / "relaybay.sqlite"
    make_clashing_database(db)
    before = db.read_bytes()

    result = run_cli("serve", "--port", str(free_port()), home=home, timeout=60)

    assert result.returncode != 0
    assert result.returncode != 2, "exit 2 is kept for bad settings"
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "migration failed" in lines[0]
    assert "tasks_project" in lines[0]
    assert "Traceback" not in result.stderr + result.stdout
    assert db.read_bytes() == before
    assert sorted(p.name for p in home.iterdir() if p.name.startswith("relaybay.sqlite")) == [
        "relaybay.sqlite"
    ], "no -wal/-shm left behind"
    assert not [p for p in home.iterdir() if p.name.startswith(".migrate-backup")]
    assert tables(db) == ["tasks_project"]


def test_serve_starts_again_on_the_database_it_made_before(tmp_path):
    home = tmp_path / "home"
    first = RelaybayServer(home=home, seed=False).start()  # migrates the empty folder itself
    token_id = first.healthz()["token_id"]
    first.stop()
    migrated = tables(home / "relaybay.sqlite")
    assert "django_migrations" in migrated
    assert "tasks_project" in migrated

    second = RelaybayServer(home=home).start()
    try:
        assert second.healthz()["token_id"] == token_id
        assert "migration failed" not in second.log()
    finally:
        second.stop()
    assert tables(home / "relaybay.sqlite") == migrated
