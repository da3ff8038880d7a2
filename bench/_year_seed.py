"""Seeding of bench/year.py: a year of use in one data folder (issue 33).

Runs in a child process with the server's own settings (RELAYBAY_HOME is the folder). Rows
whose shape matters (projects, tasks and their moves, sessions and bindings, stands, the
busy task's reports and comments, a few documents and notes) go through the services, as
the MCP tools write them; rows where only volume matters (the event log's top-up to a
million, memory items, reports, comments) are bulk-inserted in the shapes the services
write, and the search index is rebuilt over them at the end. Each part runs only when its
marker is missing, so an interrupted seeding continues and a finished folder is reused.
"""

from __future__ import annotations

import os
import random
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from _year_words import ACTOR, PROJECTS, text

# YEAR_BENCH_SCALE=0.01 seeds a hundredth of everything: a quick check of the seeding.
SCALE = float(os.environ.get("YEAR_BENCH_SCALE", "1"))


def _n(count: int) -> int:
    return max(int(count * SCALE), 1)


MAIN = PROJECTS[0]
# Per project: 2,000 tasks, most of them done over the year (20,000 in all).
STAGES = {
    s: max(_n(n), 12)
    for s, n in {"plan": 40, "dev": 40, "review": 25, "test": 25, "live": 30, "done": 1840}.items()
}
EVENTS_TOTAL = _n(1_000_000)
BUSY_EVENTS = 2_000  # the task whose page and dialog read a long history
SESSIONS = min(_n(500), 50) if SCALE < 1 else 500
DOCUMENTS, VERSIONS = _n(1_000), 5
DECISIONS = _n(15_000)
NOTES = max(_n(34_000), 1_100)  # documents + decisions + notes = 50,000 memory items
COMMENTS = _n(5_000)
# The bulk mix of the event log (kind: weight), after what the services wrote.
MIX = {
    "session.status_changed": 26,
    "task.updated": 18,
    "report.added": 10,
    "session.todo_updated": 8,
    "memory.added": 8,
    "session.seen": 5,
    "task.stage_changed": 5,
    "live.action": 5,
    "comment.added": 4,
    "decision.added": 3,
    "document.updated": 3,
    "comment.read": 2,
    "plan.step_updated": 3,
}


def seed(home: Path) -> None:
    """Every part whose marker file is missing (see the module doc)."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    parts = [
        ("tasks", seed_tasks),
        ("stands", seed_stands),
        ("sessions", seed_sessions),
        ("busy", seed_busy_task),
        ("memory", seed_memory),
        ("events", seed_events),
        ("index", seed_index),
    ]
    for name, fn in parts:
        marker = home / f".year-seeded-{name}"
        if marker.exists():
            continue
        began = time.perf_counter()
        fn()
        marker.write_text("done\n")
        print(f"seeded {name} in {time.perf_counter() - began:.0f} s", flush=True)


def seed_tasks() -> None:
    """10 projects × 2,000 tasks through task_create and task_set_stage, done ones closed over
    the last year; a third of the open ones wait on the owner."""
    from core.clock import set_back
    from tasks import services
    from tasks.models import Project

    rng = random.Random(33)
    for slug in PROJECTS:
        if Project.objects.filter(slug=slug).exists():
            continue  # an interrupted run: a project is made whole or not at all
        services.project_upsert(slug=slug, name=slug.replace("-", " ").title(), actor=ACTOR)
        for stage, count in STAGES.items():
            for i in range(count):
                age = rng.uniform(0, 365) if stage == "done" else rng.uniform(0, 30)
                with set_back(timedelta(days=age)):
                    _one_task(services, rng, slug, stage, i)
        print(f"  {slug}: {sum(STAGES.values())} tasks", flush=True)


def _one_task(services: Any, rng: random.Random, slug: str, stage: str, i: int) -> None:
    task = services.task_create(
        project=slug,
        title=f"{stage.title()} {i}: {text(rng, 6)}",
        stage="plan",
        waiting_on=rng.choice(["owner", "", "agent"]) if stage != "done" else "",
        branch=f"feat/{stage}-{i}",
        next_step=f"Measure {text(rng, 4)}, then fix the slowest request",
        tracker_name="Jira",
        tracker_ref=f"{slug[-1]}-{stage[:2].upper()}{i}",
        tracker_logged=stage == "done",
        actor=ACTOR,
    ).obj
    if stage != "plan":
        services.task_set_stage(key=task.key, stage=stage, actor=ACTOR)


def seed_stands() -> None:
    """The main project's local, test and live stands (Stands & access, live.action)."""
    from environments.services import Change, environment_save

    for name, kind in (("local", "local"), ("test", "test"), ("live", "live")):
        change = Change(environment=name, kind=kind, base_url=f"https://{name}.example")
        environment_save(project=MAIN, change=change, actor=ACTOR, confirmed=True)


def seed_sessions() -> None:
    """500 named sessions, each bound to an open task; a fifth of them moved on to another
    task (binding history); hook statuses set in bulk (only the list's look depends on it)."""
    from django.utils import timezone

    from sessions import services as session_services
    from sessions.models import Session
    from tasks.models import Task

    open_tasks = list(
        Task.objects.exclude(stage="done").order_by("id").values_list("key", flat=True)
    )
    rng = random.Random(5)
    rng.shuffle(open_tasks)
    for n in range(SESSIONS):
        name = f"agent-{n:03d}"
        session_services.task_bind_session(task=open_tasks[n], session=name, actor=ACTOR)
        if n % 5 == 0:
            session_services.task_bind_session(
                task=open_tasks[SESSIONS + n], session=name, actor=ACTOR
            )
    now = timezone.now()
    statuses = ["working", "waiting", "idle", "ended", "ended", "idle"]
    for n, session in enumerate(Session.objects.order_by("id")):
        Session.objects.filter(pk=session.pk).update(
            hook_status=statuses[n % len(statuses)],
            activity=f"Bash: make test ({text(rng, 3)})",
            activity_at=now - timedelta(minutes=n * 7),
            last_seen_at=now - timedelta(minutes=n * 7),
            cwd=f"/home/dev/{PROJECTS[n % len(PROJECTS)]}",
        )


def busy_key() -> str:
    from tasks.models import Task

    return Task.objects.filter(project__slug=MAIN, stage="dev").order_by("id").first().key


def seed_busy_task() -> None:
    """One dev task of the main project with reports, a thread, decisions and rebindings
    through the services; the bulk events of seed_events top its history up to 2,000."""
    from sessions import services as session_services
    from tasks import services
    from tasks.extensions import CallerRef

    rng = random.Random(9)
    key = busy_key()
    for n in range(120):
        services.report_add(
            key=key,
            body=f"changed · M · {text(rng, 8)}\n\n{text(rng, 80)}",
            actor=CallerRef(session=f"agent-{n % 7:03d}"),
            next_step=f"Then {text(rng, 5)}",
        )
    for n in range(30):
        services.owner_comment_add(key=key, body=f"Owner: {text(rng, 20)}")
        services.comment_add(
            key=key, body=f"Reply {n}: {text(rng, 20)}", actor=CallerRef(session="agent-001")
        )
    for _ in range(12):
        services.decision_add(project=MAIN, task=key, text=f"Decided: {text(rng, 15)}", actor=ACTOR)
    for n in range(6):
        session_services.task_bind_session(task=key, session=f"busy-{n}", actor=ACTOR)


def seed_memory() -> None:
    """50,000 memory items in bulk (documents with versions, decisions with supersede chains,
    notes with supersede chains; global and role notes), a few through the services too, and
    one report per task (reports are what task_get and the search also read)."""
    from _year_bulk import (
        bulk_comments,
        bulk_decisions,
        bulk_documents,
        bulk_notes,
        bulk_reports,
    )

    from memory import services as memory_services

    rng = random.Random(11)
    bulk_documents(rng, DOCUMENTS, VERSIONS)
    bulk_decisions(rng, DECISIONS)
    bulk_notes(rng, NOTES)
    bulk_reports(rng)
    bulk_comments(rng, COMMENTS)
    for slug in PROJECTS:
        memory_services.doc_update(
            project=slug,
            name="runbook",
            title="Runbook",
            text=f"# Runbook\n\n## Deploy\n\n{text(rng, 60)}\n\n## Rollback\n\n{text(rng, 60)}\n",
            base_version=0,
            actor=ACTOR,
        )


def seed_events() -> None:
    """The log topped up to EVENTS_TOTAL rows (see _year_bulk.bulk_events)."""
    from _year_bulk import bulk_events

    bulk_events(random.Random(4), EVENTS_TOTAL, MIX, busy_key(), BUSY_EVENTS)


def seed_index() -> None:
    """The search index over everything the bulk parts wrote."""
    from memory import search

    search.rebuild()
