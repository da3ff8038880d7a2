"""`relaybay demo`: a made-up workspace seeded through the domain services (§5).

Every row comes from the same functions real use calls (project_upsert, task_create,
report_add, plan_set, hook_event, …), so the events, versions and plan revisions are real.
The tasks are made over the last days, Django's clock set back while each is (SCENE_GAP).
`prepare_database` runs before Django opens the database: it refuses a database that
already holds a project or an event, or (with force) renames it aside with its WAL files.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import struct
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from core.actor import OWNER
from core.clock import set_back
from relaybay_site import demo_agents, demo_effort, demo_memory, demo_stands, sql
from relaybay_site.demo_data import (
    DESKTOP,
    LAST_REPORT,
    POLICY_LAYER,
    POLICY_PROPOSAL,
    POLICY_PROPOSAL_AGENT,
    POLICY_PROPOSAL_REASON,
    PROJECTS,
    REPO_PATH,
    SCENES,
    Step,
)

DB_SIDE_FILES = ("-wal", "-shm")
BACKUP_INFIX = ".before-demo-"


class DemoRefused(Exception):
    """The data folder already holds work and --force was not given."""


# --- the database file ----------------------------------------------------------------


def has_content(db: Path) -> bool:
    """Whether the database holds a project or an event (read-only, no Django connection)."""
    if not db.exists():
        return False
    uri = f"{db.resolve().as_uri()}?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as con:
            for table in ("tasks_project", "tasks_event"):
                try:
                    if con.execute(sql.any_row(table)).fetchone():
                        return True
                except sqlite3.OperationalError:
                    continue  # no such table yet
    except sqlite3.Error:
        return True  # unreadable: never seed over it
    return False


def prepare_database(db: Path, *, force: bool, now: datetime) -> list[Path]:
    """Refuse a database with work in it, or move it (and its WAL files) aside with force.

    Returns the new names of the files moved. The attachments folder goes along with the
    database, since the next start deletes every stored file no row of the new one names.
    """
    if not force:
        if has_content(db):
            raise DemoRefused(
                f"{db} already holds projects or events: the demo seeds an empty data folder. "
                "Pass --force to rename the database aside and seed a new one, or use another "
                "--home."
            )
        return []
    if not any(Path(f"{db}{s}").exists() for s in ("", *DB_SIDE_FILES)):
        return []
    stamp = now.strftime("%Y%m%d-%H%M%S")
    moved: list[Path] = []
    for suffix in ("", *DB_SIDE_FILES):
        source = Path(f"{db}{suffix}")
        if source.exists():
            target = Path(f"{db}{BACKUP_INFIX}{stamp}{suffix}")
            os.replace(source, target)
            moved.append(target)
    attachments = db.parent / "attachments"
    if attachments.is_dir() and not attachments.is_symlink():
        target = db.parent / f"attachments{BACKUP_INFIX}{stamp}"
        os.replace(attachments, target)
        moved.append(target)
    return moved


# --- generated screenshots ------------------------------------------------------------


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(width: int, height: int, colour: tuple[int, int, int], bar: tuple[int, int, int]) -> bytes:
    """A small RGB PNG: a coloured page with a bar across its top fifth (no Pillow)."""
    top = b"\x00" + bytes(bar) * width
    rest = b"\x00" + bytes(colour) * width
    rows = [top if y < height // 5 else rest for y in range(height)]
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + _chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + _chunk(b"IEND", b"")
    )


# --- hook payloads (the shapes of Claude Code 2.1.332) ---------------------------------


def _hook_base(agent_id: str, event: str) -> dict[str, Any]:
    folder = REPO_PATH.replace("/", "-")
    return {
        "session_id": agent_id,
        "transcript_path": f"/home/dev/.claude/projects/{folder}/{agent_id}.jsonl",
        "cwd": REPO_PATH,
        "hook_event_name": event,
    }


def session_start_payload(agent_id: str, desktop_id: str) -> dict[str, Any]:
    return {
        **_hook_base(agent_id, "SessionStart"),
        "source": "startup",
        "relaybay_host_session": desktop_id,
    }


def todo_write_payload(agent_id: str, todos: list[dict[str, str]]) -> dict[str, Any]:
    return {
        **_hook_base(agent_id, "PostToolUse"),
        "permission_mode": "default",
        "tool_name": "TodoWrite",
        "tool_input": {"todos": todos},
        "tool_response": {"oldTodos": [], "newTodos": todos},
        "tool_use_id": "toolu_demo0000000000000000000001",
    }


# --- seeding --------------------------------------------------------------------------


@dataclass
class Seeded:
    projects: list[str]
    tasks: dict[str, str]  # role → key


def seed() -> Seeded:
    """Write the demo workspace through the services; the keys of the tasks by role."""
    from tasks.services import project_upsert, task_create

    for project in PROJECTS:
        project_upsert(**project, actor=OWNER)
    calls = _calls()
    keys: dict[str, str] = {}
    known = {DESKTOP: f"local_{uuid.uuid4()}"}  # what a step's args leave to the run
    started, later = _now(), []
    for n, scene in enumerate(SCENES):  # the days before: each task made (and bound)
        binds = [i for i, step in enumerate(scene.steps) if step.verb == "bind"]
        then = scene.steps[: binds[0] + 1] if binds else ()
        # Each scene's writes stamped its days before now (core/clock.py).
        with set_back(SCENE_GAP * (len(SCENES) - n) + (_now() - started)):
            created = task_create(
                project=scene.project, title=scene.title, actor=scene.by, **scene.fields
            )
            key = keys[scene.role] = created.obj.key
            for step in then:
                _step(calls, known, key, step)
        later.append((key, scene.steps[len(then) :]))
    for key, steps in later:  # now: the rest of each scene, in order
        for step in steps:
            _step(calls, known, key, step)
    _seed_policy(OWNER)
    demo_stands.seed(OWNER)
    demo_stands.seed_ask(keys["todo"])
    demo_memory.seed()
    from django.conf import settings

    demo_agents.seed(settings.RELAYBAY.home_path)  # first: Claude Code's effort skips theirs
    demo_effort.seed(settings.RELAYBAY.home_path)
    return Seeded(projects=[project["slug"] for project in PROJECTS], tasks=keys)


# The story of the last days: each task made (and bound, when its scene binds it) a SCENE_GAP
# after the one before, the last a SCENE_GAP ago; then the rest of every scene (reports,
# moves, plans, hooks) happens now, scene after scene. So the board's ages and the Effort
# page's cost per day (the transcripts' responses fall between a task's binding and now) have
# days to show, and the agents' latest writes are recent, as for sessions at work.
SCENE_GAP = timedelta(hours=20)


def _step(
    calls: dict[str, Callable[..., Any]], known: dict[str, str], key: str, step: Step
) -> None:
    """One step of a scene: its args with what the run knows filled in, through its service."""
    args = {k: known.get(v, v) if isinstance(v, str) else v for k, v in step.args.items()}
    done = calls[step.verb](key, step.by, **args)
    if step.verb == "report":
        known[LAST_REPORT] = str(done)


def _now() -> datetime:
    from django.utils import timezone

    return timezone.now()


def _calls() -> dict[str, Callable[..., Any]]:
    """The service each verb of demo_data's steps calls, given the task's key and the actor."""
    from agents.claude_code.hooks import hook_event
    from plans.services import plan_accept, plan_set, plan_step_update
    from reviews.services import attach_file, review_steps_set
    from sessions.services import session_touch, task_bind_session
    from tasks.services import decision_add, report_add, task_set_stage, task_update

    return {
        "report": lambda key, by, **a: report_add(key=key, actor=by, **a).obj.id,
        "decision": lambda key, by, **a: decision_add(task=key, actor=by, **a),
        "bind": lambda key, by, **a: task_bind_session(task=_task(key), actor=by, **a),
        "touch": lambda _key, by, **a: session_touch(actor=by, **a),
        "stage": lambda key, by, **a: task_set_stage(key=key, actor=by, **a),
        "update": lambda key, by, **a: task_update(key=key, actor=by, **a),
        "plan": lambda key, by, **a: plan_set(key=key, actor=by, **a),
        "accept": lambda key, by: plan_accept(key=key, actor=by),
        "step": lambda key, by, **a: plan_step_update(key=key, actor=by, **a),
        "checklist": lambda key, by, **a: review_steps_set(key=key, actor=by, **a),
        "screenshot": lambda key, by, page, bar, **a: attach_file(
            key=key, actor=by, content=png(64, 40, page, bar), **a
        ),
        "session_start": lambda _key, _by, desktop: hook_event(
            payload=session_start_payload(str(uuid.uuid4()), desktop)
        ),
        "todos": lambda _key, _by, hook_session, todos: hook_event(
            payload=todo_write_payload(hook_session, todos)
        ),
    }


def _seed_policy(owner: str) -> None:
    """Through the services, as the editor and policy_propose write them (§7)."""
    from policy.services import policy_layer_save, policy_propose
    from tasks.extensions import CallerRef

    policy_layer_save(scope="acme-shop", text=json.dumps(POLICY_LAYER, indent=2), actor=owner)
    policy_propose(
        scope="acme-shop",
        patch=POLICY_PROPOSAL,
        reason=POLICY_PROPOSAL_REASON,
        actor=CallerRef(session=POLICY_PROPOSAL_AGENT),
    )


def _task(key: str) -> Any:
    from tasks.models import Task

    return Task.objects.get(key=key)
