"""What plans adds to task_get, the task lines, the card badge and the event describers."""

from __future__ import annotations

import pytest

from plans import services
from tasks import extensions
from tasks.events import describe
from tests.tasks.factories import ACTOR, add_report, make_task, reload

pytestmark = pytest.mark.django_db


def planned_task():
    task = make_task(title="Checkout")
    report = add_report(task)
    services.plan_set(
        key=task.key,
        steps=[{"title": "Model", "details": "why the model"}, "API", "UI", "Tests", "Docs"],
        actor=ACTOR,
    )
    services.plan_step_update(
        key=task.key, step=1, status="done", conformance="as planned", link=str(report.id),
        actor=ACTOR,
    )  # fmt: skip
    services.plan_step_update(
        key=task.key, step=2, status="done", conformance="deviation: no pagination",
        outcome="API up", actor=ACTOR,
    )  # fmt: skip
    services.plan_step_update(key=task.key, step=3, status="in_progress", actor=ACTOR)
    return reload(task), report


def test_task_get_section_shows_state_counts_steps_and_checkpoints() -> None:
    task, report = planned_task()
    [section] = [s for s in extensions.task_sections(task) if s.startswith("## Plan")]
    lines = section.splitlines()
    assert lines[0] == "## Plan — draft · 2 of 5 done · 1 deviation"
    assert lines[2] == "1. [done] Model"
    assert lines[3].startswith(f"   Checkpoint: as planned · report:{report.id} · done ")
    assert lines[4] == "   why the model"
    assert lines[5] == "2. [done] API ⚠"
    assert lines[6].startswith("   Checkpoint: deviation: no pagination · API up · done ")
    assert lines[7] == "3. [in_progress] UI ← now"
    assert lines[-1].startswith("Draft: the owner accepts it on the board")


def test_a_task_without_a_plan_has_no_plan_section() -> None:
    task = make_task()
    assert not [s for s in extensions.task_sections(task) if s.startswith("## Plan")]


def test_task_lines_get_a_plan_suffix() -> None:
    task, _ = planned_task()
    plain = make_task()
    suffixes = extensions.task_line_suffixes([task, plain])
    assert "plan 2/5 (draft)" in suffixes[task.id]
    assert not any(s.startswith("plan") for s in suffixes[plain.id])
    services.plan_accept(key=task.key, actor="owner")
    assert "plan 2/5" in extensions.task_line_suffixes([reload(task)])[task.id]


def test_the_card_badge_names_count_draft_deviations_and_the_current_step() -> None:
    task, _ = planned_task()
    extras = extensions.card_extras([task])[task.id]
    badges = [b for e in extras for b in e.badges if b[0].startswith("Plan")]
    assert badges == [
        (
            "Plan 2/5 · draft · deviations · now: UI",
            "plan-badge plan-draft plan-deviation",
            f"/p/{task.project.slug}?task={task.key}&tab=plan",
        )
    ]


def test_plan_events_describe_themselves() -> None:
    assert describe("plan.accepted", {"by": "owner"}) == "plan accepted by owner"
    assert describe(
        "plan.set",
        {"steps": 2, "status": "draft", "previous_status": "accepted", "titles_changed": True,
         "reason": "split the API step"},
    ) == "plan set: 2 step(s), draft again (titles changed) — split the API step"  # fmt: skip
    assert describe("plan.set", {"steps": 0, "status": "none", "reason": "plan removed"}) == (
        "plan removed"
    )
