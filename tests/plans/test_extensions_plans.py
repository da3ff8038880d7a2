"""What plans adds to task_get, the task lines, the card badge and the event describers."""

from __future__ import annotations

import dataclasses

import pytest

from core import tokens
from core.security import COOKIE_NAME, current_token
from plans import services
from plans.extensions import badge_parts, badge_text
from plans.selectors import PlanSummary
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
    assert [tuple(b[:3]) for b in badges] == [
        (
            "Plan 2/5 · draft · 1 deviation · now: UI",
            "plan-badge plan-draft plan-deviation",
            f"/p/{task.project.slug}?task={task.key}&tab=plan",
        )
    ]
    # The number of deviations is its own, highlighted part (§2 Cards).
    assert ("1 deviation", "plan-deviations") in badges[0].parts


def summary(**changes: object) -> PlanSummary:
    base = PlanSummary(status="accepted", total=4, done=2, deviations=0, blocked=0, now="",
                       accepted_by="owner", accepted_at=None)  # fmt: skip
    return dataclasses.replace(base, **changes)


@pytest.mark.parametrize(
    ("deviations", "text"),
    [(0, "Plan 2/4"), (1, "Plan 2/4 · 1 deviation"), (2, "Plan 2/4 · 2 deviations")],
)
def test_the_badge_counts_deviations_singular_for_one(deviations: int, text: str) -> None:
    s = summary(deviations=deviations)
    assert badge_text(s) == text
    highlighted = [t for t, css in badge_parts(s) if css == "plan-deviations"]
    assert highlighted == ([text.split(" · ")[1]] if deviations else [])
    assert "".join(t for t, _ in badge_parts(s)) == badge_text(s)


def test_the_board_card_shows_the_deviation_count_highlighted(client) -> None:
    task, _ = planned_task()
    services.plan_step_update(
        key=task.key, step=4, status="done", conformance="deviation: skipped", actor=ACTOR
    )
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    card = client.get(f"/p/{task.project.slug}/card/{task.key}").content.decode()
    assert '<span class="plan-deviations">2 deviations</span>' in card
    assert "Plan 3/5 · draft · <span" in card


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
