"""review_steps_set, review_step_update and review_step_decide: the rules of §1 Review
checklist, the exact decision texts, idempotence and the hint on moves to review or test."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import InvalidField, NotFound
from reviews import selectors, services
from reviews.models import ReviewStep
from tasks import services as task_services
from tasks.events import describe
from tasks.models import Comment, Event, Task
from tests.tasks.factories import ACTOR, make_task

pytestmark = pytest.mark.django_db

THREE = [
    {"title": "Open the shop", "details": "Go to /"},
    {"title": "Login with 2FA", "details": "Use the test phone"},
    {"title": "Checkout", "details": "Pay with the test card"},
]


def set_steps(task: Task, steps: list[Any]) -> Any:
    return services.review_steps_set(key=task.key, steps=steps, actor=ACTOR)


def decide(task: Task, step: int, decision: str, comment: str | None = None) -> Any:
    return services.review_step_decide(
        key=task.key, step=step, decision=decision, comment=comment, actor="owner"
    )


def states(task: Task) -> list[tuple[str, str]]:
    return [(s.title, s.status) for s in selectors.review_steps(task)]


def review_events(task: Task) -> list[Event]:
    return list(Event.objects.filter(task=task, kind__startswith="review.").order_by("id"))


def owner_comments(task: Task) -> list[Comment]:
    return list(Comment.objects.filter(task=task, author_kind="owner").order_by("id"))


# --- review_steps_set keep/reset, table-driven -------------------------------------------------

# Before: step 1 accepted, step 2 rejected, step 3 open. Each row: the new list and the result.
KEEP_RESET = [
    pytest.param(
        THREE,
        [("Open the shop", "accepted"), ("Login with 2FA", "rejected"), ("Checkout", "open")],
        id="same title and details keep the status",
    ),
    pytest.param(
        ["Open the shop", "Login with 2FA", "Checkout"],
        [("Open the shop", "accepted"), ("Login with 2FA", "rejected"), ("Checkout", "open")],
        id="details left out keep the status and the details",
    ),
    pytest.param(
        [THREE[0], {"title": "Login with 2FA", "details": "Use the app"}, THREE[2]],
        [("Open the shop", "accepted"), ("Login with 2FA", "open"), ("Checkout", "open")],
        id="changed details open the step again",
    ),
    pytest.param(
        [{"title": "Open the home page", "details": "Go to /"}, THREE[1], THREE[2]],
        [("Open the home page", "open"), ("Login with 2FA", "rejected"), ("Checkout", "open")],
        id="a changed title opens the step again",
    ),
    pytest.param(
        [THREE[1], THREE[0], THREE[2]],
        [("Login with 2FA", "open"), ("Open the shop", "open"), ("Checkout", "open")],
        id="step N is judged by position, so a reorder opens both",
    ),
    pytest.param(
        THREE[:1],
        [("Open the shop", "accepted")],
        id="steps past the new end are removed",
    ),
    pytest.param(
        [*THREE, "Logout"],
        [
            ("Open the shop", "accepted"),
            ("Login with 2FA", "rejected"),
            ("Checkout", "open"),
            ("Logout", "open"),
        ],
        id="a new step at the end is open",
    ),
    pytest.param([], [], id="an empty list removes the checklist"),
]


@pytest.mark.parametrize(("new", "expected"), KEEP_RESET)
def test_review_steps_set_keeps_or_resets_each_step_by_the_rules(
    new: list[Any], expected: list[tuple[str, str]]
) -> None:
    task = make_task()
    set_steps(task, THREE)
    decide(task, 1, "accept")
    decide(task, 2, "reject", "The code never arrives")
    set_steps(task, new)
    assert states(task) == expected


def test_a_kept_accepted_step_keeps_who_decided_and_a_reset_one_forgets_it() -> None:
    task = make_task()
    set_steps(task, THREE)
    decide(task, 1, "accept")
    decide(task, 2, "accept")
    set_steps(task, [THREE[0], "Login with SMS", THREE[2]])
    first, second, _ = selectors.review_steps(task)
    assert (first.decided_by, first.decided_at is not None) == ("owner", True)
    assert (second.status, second.decided_by, second.decided_at) == ("open", "", None)


def test_a_write_that_changes_nothing_is_not_kept() -> None:
    task = make_task()
    set_steps(task, THREE)
    before = Event.objects.count()
    outcome = set_steps(task, THREE)
    assert outcome.changed == ()
    assert outcome.notes == (f"Nothing changed: {task.key} already has these 3 step(s).",)
    assert Event.objects.count() == before


def test_set_records_added_updated_and_removed_events_with_small_payloads() -> None:
    task = make_task()
    set_steps(task, THREE)
    decide(task, 2, "accept")
    set_steps(task, [THREE[0], "Login with SMS"])
    kinds = [(e.kind, e.payload) for e in review_events(task)]
    assert kinds[:3] == [
        ("review.step_added", {"position": n, "title": t, "status": "open", "by": ACTOR})
        for n, t in ((1, "Open the shop"), (2, "Login with 2FA"), (3, "Checkout"))
    ]
    assert kinds[4:] == [
        (
            "review.step_updated",
            {
                "position": 2,
                "title": "Login with SMS",
                "status": "open",
                "by": ACTOR,
                "previous": "accepted",
            },
        ),
        (
            "review.step_removed",
            {"position": 3, "title": "Checkout", "status": "open", "by": ACTOR},
        ),
    ]
    event = review_events(task)[4]
    assert describe(event.kind, event.payload) == (
        f"review step 2 'Login with SMS' updated (accepted → open) by {ACTOR}"
    )


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ("nope", "steps must be a list"),
        ([{"title": ""}], "Step 1 has no title"),
        ([{"title": "A", "why": "x"}], "1 unknown key: why; a step takes only title and"),
        ([{"title": "A", "details": "x" * 4001}], "at most 4000"),
        ([f"S{i}" for i in range(31)], "at most 30 steps"),
    ],
)
def test_bad_steps_are_refused_with_what_to_do(steps: Any, message: str) -> None:
    task = make_task()
    with pytest.raises(InvalidField, match=message):
        set_steps(task, steps)


def test_an_unknown_task_is_not_found() -> None:
    with pytest.raises(NotFound):
        services.review_steps_set(key="nope-1", steps=["A"], actor=ACTOR)


# --- review_step_update ----------------------------------------------------------------------


def test_status_open_asks_for_a_new_look_after_a_rejection() -> None:
    task = make_task()
    set_steps(task, THREE)
    decide(task, 2, "reject", "No code")
    outcome = services.review_step_update(key=task.key, step=2, status="open", actor=ACTOR)
    assert outcome.changed == ("step",)
    assert states(task)[1] == ("Login with 2FA", "open")
    last = review_events(task)[-1]
    assert (last.kind, last.payload["previous"], last.payload["status"]) == (
        "review.step_updated",
        "rejected",
        "open",
    )


def test_agents_cannot_accept_or_reject() -> None:
    task = make_task()
    set_steps(task, THREE)
    for status in ("accepted", "rejected"):
        with pytest.raises(InvalidField, match="owner accepts or rejects"):
            services.review_step_update(key=task.key, step=1, status=status, actor=ACTOR)


def test_changing_a_steps_text_opens_it_and_an_unchanged_update_is_a_no_op() -> None:
    task = make_task()
    set_steps(task, THREE)
    decide(task, 1, "accept")
    services.review_step_update(key=task.key, step=1, details="Go to /shop", actor=ACTOR)
    assert states(task)[0] == ("Open the shop", "open")
    before = Event.objects.count()
    outcome = services.review_step_update(key=task.key, step=1, status="open", actor=ACTOR)
    assert outcome.changed == ()
    assert Event.objects.count() == before


def test_an_unknown_step_says_how_many_there_are() -> None:
    task = make_task()
    with pytest.raises(NotFound, match="no Owner check yet"):
        services.review_step_update(key=task.key, step=1, status="open", actor=ACTOR)
    set_steps(task, THREE)
    with pytest.raises(NotFound, match="has no step 7: its checklist has 3 step"):
        services.review_step_update(key=task.key, step=7, status="open", actor=ACTOR)


# --- review_step_decide: the exact texts -----------------------------------------------------


def test_accepting_names_the_next_step_not_accepted() -> None:
    task = make_task()
    set_steps(task, THREE)
    decide(task, 2, "accept")
    assert (
        owner_comments(task)[-1].body == "Step 2 'Login with 2FA' accepted — continue with step 3"
    )


def test_accepting_the_last_open_step_says_all_are_accepted() -> None:
    task = make_task()
    set_steps(task, THREE)
    decide(task, 1, "accept")
    decide(task, 3, "accept")
    assert owner_comments(task)[-1].body == "Step 3 'Checkout' accepted — continue with step 2"
    decide(task, 2, "accept")
    assert owner_comments(task)[-1].body == (
        "Step 2 'Login with 2FA' accepted — all 3 steps accepted"
    )


def test_reject_reopen_and_comment_texts() -> None:
    task = make_task()
    set_steps(task, THREE)
    decide(task, 2, "reject", "The code never arrives")
    decide(task, 2, "reopen")
    decide(task, 2, "comment", "Try the staging phone")
    assert [c.body for c in owner_comments(task)] == [
        "Step 2 'Login with 2FA' rejected: The code never arrives",
        "Step 2 'Login with 2FA' reopened",
        "On step 2 'Login with 2FA': Try the staging phone",
    ]


def test_each_decision_is_an_owner_comment_linked_to_the_step_with_its_event() -> None:
    task = make_task()
    set_steps(task, THREE)
    outcome = decide(task, 2, "reject", "No code")
    step = ReviewStep.objects.get(task=task, position=2)
    comment = outcome.obj
    assert (comment.author_kind, comment.author_name, comment.step_id) == (
        "owner",
        "owner",
        step.id,
    )
    assert (step.status, step.decided_by) == ("rejected", "owner")
    event = review_events(task)[-1]
    assert event.kind == "review.step_rejected"
    assert event.payload == {
        "position": 2,
        "title": "Login with 2FA",
        "status": "rejected",
        "by": "owner",
        "previous": "open",
        "comment_id": comment.id,
    }
    assert describe(event.kind, event.payload) == (
        "review step 2 'Login with 2FA' rejected by owner"
    )
    assert Event.objects.filter(task=task, kind="comment.added").count() == 1


def test_a_double_click_writes_and_delivers_nothing() -> None:
    task = make_task()
    set_steps(task, THREE)
    decide(task, 1, "accept")
    before = (Event.objects.count(), Comment.objects.count())
    outcome = decide(task, 1, "accept")
    assert outcome.obj is None
    assert outcome.notes == ("Nothing changed: step 1 is already accepted.",)
    assert (Event.objects.count(), Comment.objects.count()) == before
    decide(task, 2, "reopen")  # already open
    assert (Event.objects.count(), Comment.objects.count()) == before


def test_a_decision_the_step_has_with_a_comment_is_a_comment_on_the_step() -> None:
    task = make_task()
    set_steps(task, THREE)
    decide(task, 2, "reject", "No code")
    decide(task, 2, "reject", "Still no code")
    assert owner_comments(task)[-1].body == "On step 2 'Login with 2FA': Still no code"
    assert [e.kind for e in review_events(task)].count("review.step_rejected") == 1


def test_a_comment_decision_needs_text_and_an_unknown_decision_is_refused() -> None:
    task = make_task()
    set_steps(task, THREE)
    with pytest.raises(InvalidField, match="comment is empty"):
        decide(task, 1, "comment", " ")
    with pytest.raises(InvalidField, match="decision must be one of"):
        decide(task, 1, "approve")


# --- the hint on moves to review or test -----------------------------------------------------

HINT = (
    "Hint: {key} has no Owner check yet: write it with review_steps_set (what the owner "
    "should check by eye), then attach screenshots with attach_file."
)


@pytest.mark.parametrize("stage", ["review", "test"])
def test_moving_to_review_or_test_without_a_checklist_adds_the_hint(stage: str) -> None:
    task = make_task(stage="dev")
    outcome = task_services.task_set_stage(key=task.key, stage=stage, actor=ACTOR)
    assert HINT.format(key=task.key) in outcome.hints
    assert not any("Owner check" in w for w in outcome.warnings)


def test_moving_with_a_checklist_or_to_another_stage_adds_no_hint() -> None:
    task = make_task(stage="dev")
    set_steps(task, THREE)
    outcome = task_services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    assert not any("Owner check" in h for h in outcome.hints)
    other = make_task(stage="plan")
    outcome = task_services.task_set_stage(key=other.key, stage="live", actor=ACTOR)
    assert not any("Owner check" in h for h in outcome.hints)


def test_an_acceptance_with_a_comment_and_a_rejection_without_one() -> None:
    task = make_task()
    set_steps(task, THREE)
    decide(task, 1, "accept", "Looks great")
    decide(task, 3, "reject")
    assert [c.body for c in owner_comments(task)] == [
        "Step 1 'Open the shop' accepted — continue with step 2\n\nLooks great",
        "Step 3 'Checkout' rejected",
    ]
