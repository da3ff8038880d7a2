"""What reviews adds to task_get, the card badge, the Inbox "Review queue" and move facts."""

from __future__ import annotations

import pytest

from reviews import extensions as review_extensions
from reviews import services
from tasks import extensions
from tasks import services as task_services
from tasks.models import Task
from tests.tasks.factories import ACTOR, make_project, make_task, reload

pytestmark = pytest.mark.django_db

STEPS = ["Open the shop", {"title": "Login with 2FA", "details": "Use the test phone"}, "Pay"]


def checked(task: Task, accept: tuple[int, ...] = (), reject: tuple[int, ...] = ()) -> Task:
    services.review_steps_set(key=task.key, steps=STEPS, actor=ACTOR)
    for n in accept:
        services.review_step_decide(key=task.key, step=n, decision="accept", actor="owner")
    for n in reject:
        services.review_step_decide(
            key=task.key, step=n, decision="reject", comment="no", actor="owner"
        )
    return reload(task)


def badge(task: Task) -> tuple[str, str, str]:
    [extra] = review_extensions.card_extras([task]).values()
    return extra.badges[0]


def test_task_get_section_shows_counts_and_steps() -> None:
    task = checked(make_task(), accept=(1,), reject=(2,))
    [section] = [s for s in extensions.task_sections(task) if s.startswith("## Owner check")]
    lines = section.splitlines()
    assert lines[0] == "## Owner check — 1 of 3 accepted · 1 rejected"
    assert lines[2] == "1. [accepted] Open the shop"
    assert lines[3].startswith("   accepted by owner ")
    assert "2. [rejected] Login with 2FA" in lines
    assert "   Use the test phone" in lines


def test_a_task_without_a_checklist_has_no_section_and_no_badge() -> None:
    task = make_task()
    assert not any(s.startswith("## Owner check") for s in extensions.task_sections(task))
    assert review_extensions.card_extras([task]) == {}


def test_the_card_badge_counts_and_links_to_the_review_tab() -> None:
    project = make_project("shop")
    task = checked(make_task(project), accept=(1, 2))
    text, css, href = badge(task)
    assert (text, css) == ("Review 2/3", "review-badge")
    assert href == f"/p/shop?task={task.key}&tab=review"


def test_the_badge_is_green_when_all_are_accepted_and_red_tinted_while_one_is_rejected() -> None:
    done = checked(make_task(), accept=(1, 2, 3))
    assert badge(done)[1] == "review-badge review-accepted"
    rejected = checked(make_task(), accept=(1,), reject=(3,))
    assert badge(rejected)[:2] == ("Review 1/3", "review-badge review-rejected")


def test_the_review_queue_lists_review_and_test_tasks_longest_waiting_first() -> None:
    a, b = make_project("alpha", name="Alpha Shop"), make_project("beta", name="Beta API")
    newer = checked(make_task(a, title="Newer", stage="dev"), accept=(1,))
    older = checked(make_task(b, title="Older", stage="dev"), reject=(2,))
    checked(make_task(a, title="Still in dev", stage="dev"))
    make_task(a, title="No checklist", stage="review")
    # Moved first, so it has waited longer (test data only through services).
    task_services.task_set_stage(key=older.key, stage="test", actor=ACTOR)
    task_services.task_set_stage(key=newer.key, stage="review", actor=ACTOR)
    assert reload(older).stage_changed_at < reload(newer).stage_changed_at
    [group] = [g for g in extensions.inbox_groups() if g.id == "review-queue"]
    assert group.title == "Review queue"
    # Rows read like the other groups' rows: key and title apart, the project's name.
    assert [(r.key, r.title, r.project, r.detail, r.href) for r in group.rows] == [
        (
            older.key,
            "Older",
            "Beta API",
            "In Test · 0/3 accepted · 1 rejected",
            f"/p/beta?task={older.key}&tab=review",
        ),
        (
            newer.key,
            "Newer",
            "Alpha Shop",
            "In Review · 1/3 accepted",
            f"/p/alpha?task={newer.key}&tab=review",
        ),
    ]


def test_the_move_fact_says_whether_a_checklist_exists() -> None:
    task = make_task()
    assert extensions.move_fact(task, "has_review_steps") is False
    checked(task)
    assert extensions.move_fact(task, "has_review_steps") is True
