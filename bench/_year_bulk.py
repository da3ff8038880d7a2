"""Bulk rows of bench/year.py's seeding, in the shapes the services write (issue 33).

Where only volume matters (the log's million events, 50,000 memory items, a report per
task), writing through the services would take hours and change what the tasks say; these
rows carry the same columns and payload keys (tests/test_event_contract.py pins them), and
their dates run forward over the last year with their ids, as a year of writes would.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from _year_words import ACTOR, PROJECTS, prose, text

YEAR = timedelta(days=365)
BATCH = 2_000


def _save(model: Any, rows: Iterable[Any]) -> None:
    model.objects.bulk_create(rows, batch_size=BATCH)


def _projects() -> list[Any]:
    from tasks.models import Project

    return list(Project.objects.filter(slug__in=PROJECTS).order_by("slug"))


def bulk_documents(rng: random.Random, count: int, versions: int) -> None:
    """`count` documents over the projects, each with `versions` versions (~2 KB each)."""
    from django.utils import timezone

    from memory.models import Document, DocumentVersion

    now = timezone.now()
    projects = _projects()
    docs = []
    for n in range(count):
        at = now - YEAR * rng.random()
        docs.append(
            Document(
                project=projects[n % len(projects)],
                name=f"doc-{n:05d}",
                title=f"{text(rng, 4).title()} ({n})",
                kind=rng.choice(["spec", "runbook", "adr", "brief", ""]),
                version=versions,
                created_at=at,
                updated_at=at,
                updated_by=f"agent-{n % 50:03d}",
            )
        )
    _save(Document, docs)
    made = list(Document.objects.filter(name__startswith="doc-").only("id", "updated_at"))
    rows = []
    for doc in made:
        for v in range(1, versions + 1):
            body = "\n\n".join(f"## {text(rng, 2).title()}\n\n{prose(rng, 50)}" for _ in range(4))
            rows.append(
                DocumentVersion(
                    document_id=doc.id,
                    version=v,
                    body=f"# Document\n\n{body}\n",
                    author=ACTOR,
                    reason=text(rng, 5),
                    base_version=v - 1,
                    created_at=doc.updated_at - timedelta(days=versions - v),
                )
            )
    _save(DocumentVersion, rows)


def bulk_decisions(rng: random.Random, count: int) -> None:
    """`count` decisions; in each project every third one replaces the one before it."""
    from django.utils import timezone

    from tasks.models import Decision

    now = timezone.now()
    projects = _projects()
    per = count // len(projects)
    for project in projects:
        rows = []
        for n in range(per):
            at = now - YEAR * (1 - n / per)
            rows.append(
                Decision(
                    project=project,
                    text=f"Decision {n}: {prose(rng, 18)}",
                    decided_by=rng.choice(["owner", "agent-001", ""]),
                    created_at=at,
                    recorded_at=at,
                    source_kind="message" if n % 4 == 0 else "",
                    source_ref=f"chat-{n}" if n % 4 == 0 else "",
                )
            )
        _save(Decision, rows)
        _chain(Decision, Decision.objects.filter(project=project).order_by("id"))


def _chain(model: Any, rows: Any) -> None:
    """Every third row supersedes the one before it (superseded_at/by on the older)."""
    from django.db import transaction

    stamp = "created_at" if hasattr(model, "created_at") else "recorded_at"
    ids = list(rows.values_list("id", stamp))
    with transaction.atomic():
        for n in range(2, len(ids), 3):
            (older, _), (newer, at) = ids[n - 1], ids[n]
            model.objects.filter(pk=older).update(superseded_at=at, superseded_by_id=newer)


def bulk_notes(rng: random.Random, count: int) -> None:
    """`count` memory notes: 500 global, 500 for roles, the rest per project; every third
    one of a place supersedes the one before it."""
    from django.utils import timezone

    from memory.models import MemoryNote

    now = timezone.now()
    projects = _projects()
    places: list[tuple[str, str, Any]] = [("global", "", None)] * 500
    places += [("role", rng.choice(["coordinator", "reviewer"]), None) for _ in range(500)]
    places += [("project", "", projects[n % len(projects)]) for n in range(count - 1000)]
    rows = []
    for n, (scope, role, project) in enumerate(places):
        at = now - YEAR * (1 - n / len(places))
        words = prose(rng, 8).split()
        rows.append(
            MemoryNote(
                scope=scope,
                role=role,
                project=project,
                kind=rng.choice(["user", "feedback", "project", "reference"]),
                title=f"Note {n}: {' '.join(words[:5])}",
                body=f"**Why:** {prose(rng, 25)}\n\n**How to apply:** {prose(rng, 25)}",
                tags=",".join(sorted(set(words[5:]))),
                recorded_at=at,
                updated_at=at,
                author=f"agent-{n % 50:03d}",
            )
        )
    _save(MemoryNote, rows)
    for project in [None, *projects]:
        found = MemoryNote.objects.filter(project=project).order_by("id")
        _chain(MemoryNote, found)


def bulk_reports(rng: random.Random) -> None:
    """One report per task that has none (the busy task has its own)."""
    from tasks.models import Report, Task

    rows = []
    for task_id, created in Task.objects.filter(reports__isnull=True).values_list(
        "id", "created_at"
    ):
        summary = f"changed · {rng.choice('SML')} · {text(rng, 6)}"
        rows.append(
            Report(
                task_id=task_id,
                body=f"{summary}\n\n{prose(rng, 60)}",
                summary=summary,
                state="changed",
                size=summary[10],
                author=f"agent-{task_id % 50:03d}",
                created_at=created + timedelta(hours=2),
            )
        )
    _save(Report, rows)


def bulk_comments(rng: random.Random, count: int) -> None:
    """`count` comments on open tasks, owner's and agents' by turns, all read by now."""
    from tasks.models import Comment, Task

    open_tasks = list(Task.objects.exclude(stage="done").values_list("id", "created_at"))
    rows = []
    for n in range(count):
        task_id, created = open_tasks[n % len(open_tasks)]
        at = created + timedelta(hours=1 + n % 24)
        owner = n % 2 == 0
        rows.append(
            Comment(
                task_id=task_id,
                author_kind="owner" if owner else "agent",
                author_name="owner" if owner else f"agent-{n % 50:03d}",
                body=prose(rng, 25),
                created_at=at,
                read_at=at + timedelta(minutes=5),
                read_by="agent" if owner else "owner",
            )
        )
    _save(Comment, rows)


def _payload(kind: str, rng: random.Random, n: int) -> dict[str, Any]:
    session = f"agent-{n % SESSION_NAMES:03d}"
    shapes: dict[str, dict[str, Any]] = {
        "session.status_changed": {
            "session": session,
            "from": "working",
            "to": rng.choice(["idle", "waiting", "working"]),
        },
        "task.updated": {"fields": ["next_step", "progress"]},
        "report.added": {
            "summary": f"changed · M · {text(rng, 5)}",
            "state": "changed",
            "size": "M",
            "report_id": n,
        },
        "session.todo_updated": {"session": session, "items": 5, "done": n % 5},
        "memory.added": {"note": n, "title": text(rng, 5), "scope": "project"},
        "session.seen": {"session": session, "kind": "named", "title": "", "created": True},
        "task.stage_changed": {"from": "live", "to": "done"},
        "live.action": {
            "environment": "live",
            "tool": "Bash",
            "command": f"ssh prod-alias {rng.choice(['uptime', 'tail -n 50 app.log'])}",
            "decision": rng.choice(["allow", "log", "deny"]),
            "level": "read",
            "rule": "",
            "agent": "claude-code",
            "sent": "allow",
        },
        "comment.added": {
            "comment_id": n,
            "author_kind": "agent",
            "author": session,
            "excerpt": text(rng, 10),
        },
        "decision.added": {"text": text(rng, 12), "decision_id": n},
        "document.updated": {"name": "runbook", "version": n % 40 + 1, "section": "", "reason": ""},
        "comment.read": {"comment_ids": [n], "author_kind": "agent", "by": "owner"},
        "plan.step_updated": {
            "position": 2,
            "title": "Measure",
            "status": "done",
            "previous": "doing",
        },
    }
    return shapes[kind]


SESSION_NAMES = 500


def bulk_events(
    rng: random.Random, total: int, mix: dict[str, int], busy: str, busy_events: int
) -> None:
    """Top the log up to `total` rows of `mix`'s kinds: the main project takes a third, the
    others share the rest, 2 % belong to no project; each row's task is one of its project's
    (a stage change one of its archived tasks, so no shown task's last move changes); the
    busy task gets what its history lacks up to `busy_events`. Only the main project has
    stands, so only it has live.action rows: the others' "Actions on live" find none."""
    from django.utils import timezone

    from tasks.models import Event, Task

    have = Event.objects.count()
    projects = _projects()
    tasks: dict[int, list[int]] = {p.id: [] for p in projects}
    archived: dict[int, list[int]] = {p.id: [] for p in projects}
    cutoff = timezone.now() - timedelta(days=30)
    for task_id, project_id, stage, closed in Task.objects.values_list(
        "id", "project_id", "stage", "closed_at"
    ):
        tasks[project_id].append(task_id)
        if stage == "done" and closed and closed < cutoff:
            archived[project_id].append(task_id)
    busy_task = Task.objects.get(key=busy)
    busy_more = max(0, busy_events - Event.objects.filter(task=busy_task).count())
    kinds, weights = list(mix), list(mix.values())
    weights_p = [4.5] + [1.0] * (len(projects) - 1)  # the main project: a third
    count = total - have
    step = YEAR / max(count, 1)
    start = timezone.now() - YEAR
    busy_at = set(rng.sample(range(count), busy_more)) if count and busy_more else set()
    rows: list[Any] = []
    for n in range(count):
        kind = rng.choices(kinds, weights)[0]
        project = rng.choices(projects, weights_p)[0] if rng.random() > 0.02 else None
        if kind == "live.action" and project is not projects[0]:
            kind = "task.updated"  # the guard journals only where a live stand is (year-0)
        task_id = None
        if n in busy_at:
            project, task_id = busy_task.project, busy_task.id
            kind = "task.updated" if kind == "task.stage_changed" else kind
        elif project is not None and kind not in ("session.seen", "memory.added"):
            pool = archived if kind == "task.stage_changed" else tasks
            task_id = rng.choice(pool[project.id])
        rows.append(
            Event(
                kind=kind,
                project=project,
                task_id=task_id,
                actor=f"agent-{n % SESSION_NAMES:03d}",
                payload=_payload(kind, rng, n),
                created_at=start + step * n,
            )
        )
        if len(rows) == 20_000:
            _save(Event, rows)
            rows = []
    _save(Event, rows)
