"""A workspace that has been used for a while, for the query-count tests of issue 33.

`base()` makes one of everything through the services (so each row has its shape and its
events): two projects (acme with a live stand, quiet without), tasks in every stage, one
waiting on the owner, one whose move broke a working rule, a busy task with reports, a
thread, decisions and a binding, superseded decisions and notes, a document with two
versions, a live.action. `grow(world, n)` then adds `n` rows to every table that grows with
use — events of every kind, open tasks (some waiting on the owner), decisions, notes,
documents, comments, sessions with bindings, reports — in bulk, in the shapes the services
write (bench/_year_bulk.py does the same for the bench): writing 10,000 of each through the
services would take minutes, and only their number matters here. A read whose query count
is the same after grow(10) and after grow(10_000) does not grow with the data.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from core import actor as actors
from memory import search
from memory import services as memory_services
from memory.models import Document, DocumentVersion, MemoryNote
from sessions import services as session_services
from sessions.models import Session, TaskBinding
from tasks import services
from tasks.extensions import CallerRef
from tasks.models import Comment, Decision, Event, Project, Report, Task
from tests.environments.factories import make_environment
from tests.tasks.factories import ACTOR, add_decision, add_report, make_project, make_task

KINDS = (
    "task.updated",
    "report.added",
    "session.status_changed",
    "session.seen",
    "comment.added",
    "memory.added",
    "decision.added",
    "live.action",
)
_serial = itertools.count(1)


@dataclass
class World:
    acme: Project
    quiet: Project
    busy: Task  # the task whose page reads a long history
    grown: int = 0


def base() -> World:
    """One of everything, through the services."""
    from environments.services import live_action_record

    acme, quiet = make_project("acme", name="Acme"), make_project("quiet", name="Quiet")
    make_environment("acme", "live", "live", base_url="https://acme.example")
    busy = make_task(acme, "Busy task", stage="dev", waiting_on="owner", next_step="Ask")
    make_task(quiet, "Quiet task", waiting_on="owner")
    for stage in ("plan", "review", "test", "live"):
        make_task(acme, f"In {stage}", stage=stage)
    warned = make_task(acme, "Moved without a plan", size="M")
    services.task_set_stage(key=warned.key, stage="dev", actor="agent-1")
    done = make_task(acme, "Shipped", stage="dev")
    services.task_set_stage(key=done.key, stage="done", actor=actors.BOARD)
    add_report(busy, "changed · M · measured the page")
    services.owner_comment_add(key=busy.key, body="Which colour?")
    services.comment_add(key=busy.key, body="Blue.", actor=CallerRef(session="agent-1"))
    session_services.task_bind_session(task=busy, session="agent-1", actor=ACTOR)
    old = add_decision(acme, "Use Postgres")
    add_decision(acme, "Use SQLite", supersedes=old.id)
    note = memory_services.memory_add(
        scope="project", project="acme", title="Deploy path", body="x", kind="project", actor=ACTOR
    ).obj
    memory_services.memory_add(
        scope="project",
        project="acme",
        title="Deploy path, new",
        body="Deploy through **CI**",
        kind="project",
        actor=ACTOR,
        op="supersede",
        target=note.id,
    )
    memory_services.memory_add(
        scope="global", title="Small PRs", body="deploy small", kind="user", actor=ACTOR
    )
    memory_services.doc_update(
        project="acme",
        name="runbook",
        title="Runbook",
        text="# Deploy\n\nv1",
        base_version=0,
        actor=ACTOR,
    )
    memory_services.doc_update(
        project="acme", name="runbook", text="# Deploy\n\nv2 deploy", base_version=1, actor=ACTOR
    )
    live_action_record(
        project=acme,
        environment="live",
        task=busy,
        tool="Bash",
        command="ssh live uptime",
        decision="allow",
        level="read",
        rule="",
        actor="agent-1",
    )
    return World(acme=acme, quiet=quiet, busy=busy)


def grow(world: World, n: int) -> None:
    """`n` more rows in every table that grows with use (see the module doc)."""
    now = timezone.now()
    tasks = _tasks(world.acme, n, now)
    _events(world, tasks, n, now)
    Decision.objects.bulk_create(
        Decision(project=world.acme, text=f"Decision {i}: deploy", created_at=now) for i in range(n)
    )
    MemoryNote.objects.bulk_create(
        MemoryNote(
            scope="project" if i % 3 else "global",
            project=world.acme if i % 3 else None,
            kind="project",
            title=f"Note {next(_serial)} deploy",
            body="Why: *deploy*",
            recorded_at=now,
            updated_at=now,
        )
        for i in range(n)
    )
    _documents(world.acme, n, now)
    _threads(world, tasks, n, now)
    search.rebuild()
    world.grown += n


def _tasks(project: Project, n: int, now: object) -> list[Task]:
    project.refresh_from_db(fields=["next_number"])
    first = project.next_number
    rows = [
        Task(
            project=project,
            number=first + i,
            key=f"{project.slug}-{first + i}",
            title=f"Open task {first + i}",
            stage=("plan", "dev", "review", "test")[i % 4],
            waiting_on="owner" if i % 2 else "agent",
            next_step="Measure",
            created_at=now,
            updated_at=now,
            stage_changed_at=now,
        )
        for i in range(n)
    ]
    Task.objects.bulk_create(rows)
    Project.objects.filter(pk=project.pk).update(next_number=first + n)
    project.next_number = first + n
    return list(Task.objects.filter(project=project, number__gte=first))


def _events(world: World, tasks: list[Task], n: int, now: object) -> None:
    rows = []
    for i in range(n):
        kind = KINDS[i % len(KINDS)]
        on_busy = i % 5 == 0
        task = world.busy if on_busy else tasks[i % len(tasks)]
        payload = {"session": "agent-1", "from": "working", "to": "idle", "summary": "s"}
        rows.append(
            Event(
                kind=kind,
                project=world.acme,
                task=task if kind != "session.seen" else None,
                actor="agent-1",
                payload=payload,
                created_at=now,
            )
        )
    Event.objects.bulk_create(rows, batch_size=2000)


def _documents(project: Project, n: int, now: object) -> None:
    docs = [
        Document(
            project=project,
            name=f"doc-{next(_serial)}",
            title="A document",
            version=1,
            created_at=now,
            updated_at=now,
        )
        for _ in range(n)
    ]
    Document.objects.bulk_create(docs)
    made = Document.objects.filter(project=project, name__in=[d.name for d in docs])
    DocumentVersion.objects.bulk_create(
        DocumentVersion(document=d, version=1, body="# Deploy\n\ntext", created_at=now)
        for d in made
    )


def _threads(world: World, tasks: list[Task], n: int, now: object) -> None:
    later = now + timedelta(seconds=1)  # type: ignore[operator]
    Comment.objects.bulk_create(
        Comment(
            task=world.busy if i % 2 else tasks[i % len(tasks)],
            author_kind="owner" if i % 2 else "agent",
            author_name="owner" if i % 2 else "agent-1",
            body="deploy it",
            created_at=now,
            read_at=later,
        )
        for i in range(n)
    )
    Report.objects.bulk_create(
        Report(task=t, body="changed · S · deploy", summary="changed · S · deploy", created_at=now)
        for t in tasks
    )
    sessions = [
        Session(name=f"s-{next(_serial)}", kind="named", hook_status="idle", created_at=now)
        for _ in range(n)
    ]
    Session.objects.bulk_create(sessions)
    made = Session.objects.filter(name__in=[s.name for s in sessions]).order_by("id")
    TaskBinding.objects.bulk_create(
        TaskBinding(task=t, session=s, bound_at=now) for t, s in zip(tasks, made, strict=False)
    )
