"""The resume brief of the demo workspace, byte for byte (issue 32).

`relaybay demo` seeds the same tasks, texts, plans and stage moves on every run, and the brief
shows no time and no id of the demo's rows but keys, so its text is fixed: each open task's
brief, and the brief of the bound tasks together, are kept under tests/snapshots/resume_brief/
and any byte of difference fails. After a deliberate change of the brief or the demo, write
them again with

    SNAPSHOTS_UPDATE=1 .venv/bin/python -m pytest -n 1 -p no:cacheprovider \\
        tests/sessions/test_resume_brief_demo.py

and read the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agents.claude_code.hooks import hook_event
from relaybay_site import demo
from relaybay_site.demo_data import TODO_HOOK_SESSION
from sessions import brief
from sessions.models import TaskBinding
from tasks.models import Task
from tests.sessions.hook_payloads import payload

pytestmark = pytest.mark.django_db

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots" / "resume_brief"
UPDATE = os.environ.get("SNAPSHOTS_UPDATE") == "1"
BOUND = "bound-together"  # the demo's bound tasks in one brief: three shown, one named


def _check(name: str, text: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if UPDATE:
        SNAPSHOTS.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode() + b"\n")
    assert path.exists(), f"no snapshot {path.name}: run with SNAPSHOTS_UPDATE=1"
    assert path.read_bytes() == text.encode() + b"\n", f"{path.name} differs"


def _tasks(keys: list[str]) -> list[Task]:
    by_key = Task.objects.select_related("project").in_bulk(keys, field_name="key")
    return [by_key[key] for key in keys]


def test_every_open_demo_task_and_the_bound_ones_together_match_their_snapshots():
    seeded = demo.seed()
    briefs = {}
    for role, task in zip(seeded.tasks, _tasks(list(seeded.tasks.values())), strict=True):
        briefs[role] = brief.brief([task])
    assert {role for role, text in briefs.items() if not text} == {"logged", "api-done"}
    for role, text in briefs.items():
        if text:
            _check(role, text)
    bound = TaskBinding.objects.filter(unbound_at=None).order_by("task_id")
    keys = list(bound.values_list("task__key", flat=True))
    together = brief.brief(_tasks(keys))
    assert together.count("\n## ") == brief.MAX_TASKS
    _check(BOUND, together)
    names = {p.stem for p in SNAPSHOTS.glob("*.txt")}
    assert names == {role for role, text in briefs.items() if text} | {BOUND}


def test_the_demo_agent_resuming_gets_its_snapshot_after_its_other_lines():
    seeded = demo.seed()
    answer = hook_event(payload=payload("SessionStart.resume.print", session_id=TODO_HOOK_SESSION))
    context = answer.answer["hookSpecificOutput"]["additionalContext"]
    kept = (SNAPSHOTS / "todo.txt").read_bytes().decode()
    assert context.endswith("\n" + kept.removesuffix("\n"))
    assert seeded.tasks["todo"] in kept
