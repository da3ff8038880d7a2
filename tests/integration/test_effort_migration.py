"""A database from before effort was an app of its own keeps every effort row: the models
moved in Django's state only (agent_sessions 0009, effort 0001), the tables keep their
`agent_sessions_*` names, and effort 0002 gives a task that had no time tally its tally,
once, so that no read has to."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.support.server import RelaybayServer, run_cli

pytestmark = pytest.mark.integration

AT = "2026-12-01 10:00:00"
EFFORT_TABLES = ("tokenusage", "taskeffort", "usageseen", "processcost", "transcriptcursor")


def seed_before(db: Path) -> None:
    """A project with two tasks (one tallied, one from before tallies), a session with its
    counted tokens, seen responses, a process total and its transcript's cursor."""
    with closing(sqlite3.connect(db)) as con:
        con.execute(
            "INSERT INTO tasks_project (id, slug, name, repo_path, description, next_number,"
            " created_at, updated_at) VALUES (1, 'acme', 'Acme', '', '', 3, ?, ?)",
            (AT, AT),
        )
        for number, title in ((1, "Tallied"), (2, "Older")):
            con.execute(
                "INSERT INTO tasks_task (id, number, key, title, stage, stage_note, waiting_on,"
                " next_step, branch, document_path, description, progress, priority, size,"
                " tracker_ref, tracker_name, tracker_url, tracker_logged, plan_status,"
                " plan_accepted_by, version, created_at, updated_at, stage_changed_at,"
                " project_id) VALUES (?, ?, ?, ?, 'dev', '', '', '', '', '', '', '', '', '', '',"
                " '', '', 0, '', '', 1, ?, ?, ?, 1)",
                (number, number, f"acme-{number}", title, AT, AT, AT),
            )
            payload = json.dumps({"stage": "dev", "title": title})
            con.execute(
                "INSERT INTO tasks_event (kind, actor, payload, created_at, project_id, task_id)"
                " VALUES ('task.created', 'owner', ?, ?, 1, ?)",
                (payload, AT, number),
            )
        con.execute(
            "INSERT INTO agent_sessions_session (id, name, kind, title, hook_status, activity,"
            " cwd, unlinked_reason, created_at, stop_blocks, agent, transcript_path,"
            " agent_exact, agent_link) VALUES (1, 'alice', 'named', '', 'idle', '', '', '', ?,"
            " 0, 'claude-code', '', 0, '')",
            (AT,),
        )
        con.execute(
            "INSERT INTO agent_sessions_tokenusage (day, model, responses, shared, input, output,"
            " cache_write, cache_read, reasoning, session_id, task_id)"
            " VALUES ('2026-12-01', 'claude-opus-5-5', 9, 0, 900, 180, 0, 0, 0, 1, 1)"
        )
        con.execute(
            "INSERT INTO agent_sessions_taskeffort (task_id, as_of, stage, stage_seconds,"
            " agent_seconds, wall_seconds, waiting_seconds, agents_open, waiting_open, sessions,"
            " turns, state, project_id) VALUES (1, ?, 'dev', '{\"dev\": 60.0}', 600.0, 600.0,"
            " 0.0, 0, 0, 1, 2, '{}', 1)",
            (AT,),
        )
        con.execute("INSERT INTO agent_sessions_usageseen (session_id, digest) VALUES (1, 42)")
        con.execute(
            "INSERT INTO agent_sessions_processcost (session_id, started, total_usd)"
            " VALUES (1, 1, 0.0072)"
        )
        con.execute(
            "INSERT INTO agent_sessions_transcriptcursor (session_id, path, device, inode,"
            " offset, model, read_at) VALUES (1, '/x.jsonl', 1, 2, 3456, '', ?)",
            (AT,),
        )
        con.commit()


def rows(db: Path) -> dict[str, list[tuple]]:
    with closing(sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)) as con:
        return {
            table: con.execute(f"SELECT * FROM agent_sessions_{table} ORDER BY 1").fetchall()
            for table in EFFORT_TABLES
        }


def test_serve_migrates_a_database_with_effort_rows_and_keeps_every_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    before = run_cli("migrate", "agent_sessions", "0008_agent_names", home=home)
    assert before.returncode == 0, before.stderr
    db = home / "relaybay.sqlite"
    seed_before(db)
    kept = rows(db)

    server = RelaybayServer(home=home, seed=False).start()  # migrates at start
    try:
        assert "migration failed" not in server.log()
    finally:
        server.stop()

    after = rows(db)
    assert {t: after[t] for t in EFFORT_TABLES if t != "taskeffort"} == {
        t: kept[t] for t in EFFORT_TABLES if t != "taskeffort"
    }
    tallied, older = after["taskeffort"]
    # as it was, no row copied or rewritten; now as of its task's newest time event (effort 0003)
    assert tallied[:-1] == kept["taskeffort"][0]
    assert tallied[-1] == 1
    assert (older[0], older[2], older[-1]) == (2, "dev", 2)  # the older task got its tally, once
    with closing(sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)) as con:
        applied = con.execute("SELECT name FROM django_migrations WHERE app = 'effort'").fetchall()
        names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert [r[0] for r in applied] == [
        "0001_initial",
        "0002_replay_older_tasks",
        "0003_tally_event_id",
    ]
    assert not any(name.startswith("effort_") for name in names)  # no table made, none copied
