"""Concurrent writers (docs/architecture.md §3, §6, §10): no lost write, no reused version, no
'database is locked'.

The writers run in a child process against a file-based SQLite database in a temp folder,
configured exactly like the server (WAL, BEGIN IMMEDIATE, busy timeout): the test database
of pytest-django is in-memory with a shared cache, whose table locks fail at once instead of
waiting, so it cannot show what the server does. Each thread has its own connection.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, threading
import django
django.setup()
from django.core.management import call_command
from django.db import connections
call_command("migrate", verbosity=0)
from core.errors import VersionConflict
from tasks import services
from tasks.models import Event, Report, Task
from tasks.selectors import get_task

THREADS, WRITES = 8, 20
services.project_upsert(slug="race", actor="setup")
key = services.task_create(project="race", title="shared", actor="setup").obj.key
versions, errors, created, conflicts = [], [], [], [0]
lock = threading.Lock()
barrier = threading.Barrier(THREADS)

def writer(i):
    try:
        barrier.wait()
        for j in range(WRITES):
            if j % 4 == 3:
                v = services.report_add(key=key, body=f"r {i} {j}", actor=f"w{i}").obj.task.version
            elif j % 4 == 2:
                while True:  # read, then write with expected_version; retry on conflict
                    seen = get_task(key).version
                    try:
                        v = services.task_update(
                            key=key, actor=f"w{i}", expected_version=seen, branch=f"b{i}-{j}"
                        ).obj.version
                        break
                    except VersionConflict:
                        with lock:
                            conflicts[0] += 1
            else:
                v = services.task_update(key=key, actor=f"w{i}", progress=f"w{i}-{j}").obj.version
            t = services.task_create(project="race", title=f"t{i}-{j}", actor=f"w{i}").obj
            with lock:
                versions.append(v)
                created.append(t.number)
    except Exception as exc:  # collected, the test asserts there are none
        with lock:
            errors.append(repr(exc))
    finally:
        connections.close_all()

threads = [threading.Thread(target=writer, args=(i,)) for i in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
task = Task.objects.get(key=key)
print(json.dumps({
    "errors": errors,
    "versions": versions,
    "final_version": task.version,
    "numbers": created,
    "updated_events": Event.objects.filter(task=task, kind="task.updated").count(),
    "reports": Report.objects.filter(task=task).count(),
    "conflicts": conflicts[0],
    "writes": THREADS * WRITES,
    "journal": connections["default"].cursor().execute("PRAGMA journal_mode").fetchone()[0],
}))
"""


def test_eight_concurrent_writers_lose_no_write_and_never_reuse_a_version(tmp_path):
    (tmp_path / "home").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBAY_")}
    env.update(
        RELAYBAY_HOME=str(tmp_path / "home"),
        DJANGO_SETTINGS_MODULE="relaybay_site.settings",
        PYTHONPATH=str(ROOT),
    )
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["errors"] == []
    assert "database is locked" not in done.stderr
    assert result["journal"] == "wal"
    writes = result["writes"]
    # Every write got its own version: 2 … writes + 1, each exactly once.
    assert sorted(result["versions"]) == list(range(2, writes + 2))
    assert result["final_version"] == writes + 1
    assert result["reports"] == writes // 4
    assert result["updated_events"] == writes - writes // 4
    # Task numbers of the concurrent creates are unique and leave no gap.
    assert sorted(result["numbers"]) == list(range(2, writes + 2))
