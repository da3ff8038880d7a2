"""plan_set, plan_step_update and plan_accept: every rule of §1 Plan and checkpoints."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import Forbidden, InvalidField, NotFound
from plans import selectors, services
from plans.models import PlanRevision, PlanStep
from sessions import services as session_services
from tasks import extensions
from tasks.events import describe
from tasks.extensions import CallerRef
from tasks.models import Event, Task
from tests.tasks.factories import ACTOR, add_report, make_project, make_task, reload

pytestmark = pytest.mark.django_db


def set_plan(task: Task, steps: list[Any], **kw: Any) -> Any:
    return services.plan_set(key=task.key, steps=steps, actor=ACTOR, **kw)


def update(task: Task, step: int | str, **kw: Any) -> Any:
    return services.plan_step_update(key=task.key, step=step, actor=ACTOR, **kw)


def steps_of(task: Task) -> list[tuple[str, str, bool]]:
    """(title, status, has a checkpoint) per step."""
    return [(s.title, s.status, s.done_at is not None) for s in selectors.plan_steps(task)]


def plan_events(task: Task) -> list[Event]:
    return list(Event.objects.filter(task=task, kind__startswith="plan.").order_by("id"))


def done(task: Task, position: int, **kw: Any) -> Any:
    return update(task, position, status="done", conformance="as planned", **kw)


# --- plan_set keep/reset, table-driven -------------------------------------------------------

# Before: A (done), B (in_progress), C (pending). Each row: the new list and the result.
KEEP_RESET = [
    pytest.param(
        ["A", "B", "C"],
        [("A", "done", True), ("B", "in_progress", False), ("C", "pending", False)],
        id="same titles keep everything",
    ),
    pytest.param(
        ["A", "B2", "C"],
        [("A", "done", True), ("B2", "pending", False), ("C", "pending", False)],
        id="a renamed step is pending again",
    ),
    pytest.param(
        ["A2", "B", "C"],
        [("A2", "pending", False), ("B", "in_progress", False), ("C", "pending", False)],
        id="a renamed done step loses its checkpoint",
    ),
    pytest.param(
        ["A", "B"], [("A", "done", True), ("B", "in_progress", False)],
        id="steps past the new end are removed",
    ),
    pytest.param(
        ["A", "B", "C", "D"],
        [("A", "done", True), ("B", "in_progress", False), ("C", "pending", False),
         ("D", "pending", False)],
        id="a new step at the end is pending",
    ),
    pytest.param(
        ["B", "A", "C"],
        [("B", "pending", False), ("A", "pending", False), ("C", "pending", False)],
        id="reordering renames both positions",
    ),
    pytest.param([], [], id="an empty list removes the plan"),
]  # fmt: skip


@pytest.mark.parametrize(("new", "expected"), KEEP_RESET)
def test_plan_set_keeps_or_resets_each_step_by_its_title(new: list[str], expected: list) -> None:
    task = make_task()
    set_plan(task, ["A", "B", "C"])
    done(task, 1, outcome="model written")
    update(task, 2, status="in_progress")
    set_plan(task, new)
    assert steps_of(task) == expected
    if not new:
        assert reload(task).plan_status == "none"


def test_a_kept_done_step_keeps_its_whole_checkpoint() -> None:
    task = make_task()
    report = add_report(task)
    set_plan(task, ["A", "B"])
    done(task, 1, outcome="it works", link=f"#{report.id}")
    before = selectors.plan_steps(task)[0]
    set_plan(task, [{"title": "A", "details": "new why"}, "B", "C"])
    after = selectors.plan_steps(task)[0]
    assert (after.done_at, after.outcome, after.link, after.conformance) == (
        before.done_at,
        "it works",
        f"report:{report.id}",
        "as planned",
    )
    assert after.details == "new why"


def test_a_renamed_step_clears_outcome_link_and_conformance() -> None:
    task = make_task()
    set_plan(task, ["A"])
    done(task, 1, outcome="x", link="https://example.com/pr/1")
    set_plan(task, ["A renamed"])
    step = selectors.plan_steps(task)[0]
    assert (step.status, step.done_at, step.outcome, step.link, step.conformance) == (
        "pending",
        None,
        "",
        "",
        "",
    )


def test_details_left_out_keep_and_a_dash_clears_them() -> None:
    task = make_task()
    set_plan(task, [{"title": "A", "details": "why"}])
    result = set_plan(task, ["A"])
    assert result.changed == ()
    assert selectors.plan_steps(task)[0].details == "why"
    set_plan(task, [{"title": "A", "details": "-"}])
    assert selectors.plan_steps(task)[0].details == ""


def test_the_first_plan_is_a_draft_with_one_revision_and_one_event() -> None:
    task = make_task()
    version = task.version
    set_plan(task, ["Write the model", "Write the tool"], reason="from PLAN.md")
    task = reload(task)
    assert task.plan_status == "draft"
    assert task.version == version + 1
    rev = PlanRevision.objects.get(task=task)
    assert (rev.revision, rev.author, rev.reason) == (1, ACTOR, "from PLAN.md")
    assert [s["title"] for s in rev.body["steps"]] == ["Write the model", "Write the tool"]
    assert rev.body["status"] == "draft"
    [event] = plan_events(task)
    assert event.kind == "plan.set"
    assert event.payload == {
        "steps": 2,
        "status": "draft",
        "previous_status": "none",
        "titles_changed": True,
        "reason": "from PLAN.md",
    }
    assert describe(event.kind, event.payload) == "plan set: 2 step(s), draft — from PLAN.md"


def test_a_write_that_changes_nothing_is_not_kept() -> None:
    task = make_task()
    set_plan(task, ["A", "B"])
    version = reload(task).version
    result = set_plan(task, ["A", {"title": "B"}])
    assert result.changed == ()
    assert result.notes == (f"Nothing changed: {task.key} already has these 2 step(s).",)
    assert PlanRevision.objects.filter(task=task).count() == 1
    assert len(plan_events(task)) == 1
    assert reload(task).version == version


def test_removing_no_plan_changes_nothing() -> None:
    task = make_task()
    result = set_plan(task, [])
    assert result.notes == (f"Nothing changed: {task.key} already has no plan.",)
    assert plan_events(task) == []


PLAN_BACK_TO_DRAFT = [
    pytest.param(["B", "A"], "draft", True, id="reordering"),
    pytest.param(["A", "B2"], "draft", True, id="a renamed title"),
    pytest.param(["A", "B", "C"], "draft", True, id="a step added"),
    pytest.param(["A"], "draft", True, id="a step removed"),
    pytest.param([{"title": "A", "details": "more"}, "B"], "accepted", False, id="details"),
]


@pytest.mark.parametrize(("new", "status", "note"), PLAN_BACK_TO_DRAFT)
def test_an_accepted_plan_goes_back_to_draft_only_when_titles_or_order_change(
    new: list, status: str, note: bool
) -> None:
    task = make_task()
    set_plan(task, ["A", "B"])
    services.plan_accept(key=task.key, actor="owner")
    result = set_plan(task, new)
    task = reload(task)
    assert task.plan_status == status
    assert bool(result.notes) == note
    if note:
        assert "so it is a draft again" in result.notes[0]
        assert (task.plan_accepted_at, task.plan_accepted_by) == (None, "")
        event = plan_events(task)[-1]
        assert (event.payload["previous_status"], event.payload["titles_changed"]) == (
            "accepted",
            True,
        )
    else:
        assert task.plan_accepted_by == "owner"


def test_step_statuses_do_not_turn_an_accepted_plan_back_to_draft() -> None:
    task = make_task()
    set_plan(task, ["A", "B"])
    services.plan_accept(key=task.key, actor="owner")
    done(task, 1)
    update(task, 2, status="blocked", outcome="waiting for the API key")
    assert reload(task).plan_status == "accepted"


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ("A", "steps must be a list"),
        ([""], "Step 1 has no title"),
        ([{"details": "x"}], "Step 1 has no title"),
        (
            [{"title": "A", "detials": "x"}],
            "Step 1 has 1 unknown key: detials; a step takes only title and details. "
            "Did you mean details?",
        ),
        ([{"title": "A", "details": "x" * 2001}], "at most 2000"),
        (["x"] * 31, "at most 30 steps"),
        ([3], "must be a title or {title, details}"),
    ],
)
def test_plan_set_refuses_malformed_steps(steps: Any, message: str) -> None:
    task = make_task()
    with pytest.raises(InvalidField, match=message.replace("[", r"\[").replace("]", r"\]")):
        set_plan(task, steps)
    assert PlanStep.objects.filter(task=task).count() == 0


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (
            {"title": "A", "why": "x", "owner": "y"},
            "Step 2 has 2 unknown keys: why, owner; a step takes only title and details.",
        ),
        (
            {"title": "A", "AKIAQ7ZKM2WX4RT5HJ3N": "x", "notes": "y"},
            "Step 2 has 2 unknown keys: notes and 1 not shown (it looks like a value); a step "
            "takes only title and details.",
        ),
        (
            {"title": "A", "x" * 30: "y"},
            "Step 2 has 1 unknown key, not shown (it looks like a value); a step takes only "
            "title and details.",
        ),
    ],
)
def test_plan_set_refuses_unknown_step_keys_naming_the_plain_ones(
    step: dict[str, str], message: str
) -> None:
    # issue 38: an unknown key was dropped on the way (MCP), or refused without its name.
    task = make_task()
    with pytest.raises(InvalidField) as caught:
        set_plan(task, ["First", step])
    assert str(caught.value) == message
    assert PlanStep.objects.filter(task=task).count() == 0


def test_plan_set_on_an_unknown_task_says_how_to_find_keys() -> None:
    with pytest.raises(NotFound):
        services.plan_set(key="nope-1", steps=["A"], actor=ACTOR)


# --- plan_step_update -----------------------------------------------------------------------


@pytest.mark.parametrize("conformance", [None, "", "fine", "deviation:", "deviation:   "])
def test_done_needs_as_planned_or_a_deviation_with_a_reason(conformance: str | None) -> None:
    task = make_task()
    set_plan(task, ["A"])
    with pytest.raises(InvalidField, match='done needs conformance "as planned" or "deviation'):
        update(task, 1, status="done", conformance=conformance)
    assert selectors.plan_steps(task)[0].status == "pending"


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("as planned", "as planned"),
        ("  As Planned ", "as planned"),
        ("deviation: used SQLite FTS", "deviation: used SQLite FTS"),
        ("Deviation:kept the old API", "deviation: kept the old API"),
    ],
)
def test_conformance_is_normalised(given: str, stored: str) -> None:
    task = make_task()
    set_plan(task, ["A"])
    update(task, 1, status="done", conformance=given)
    assert selectors.plan_steps(task)[0].conformance == stored


def test_done_records_the_checkpoint_and_the_event() -> None:
    task = make_task()
    set_plan(task, ["A"])
    update(task, 1, status="done", conformance="deviation: no cache", outcome="works")
    step = selectors.plan_steps(task)[0]
    assert step.done_at is not None
    event = plan_events(task)[-1]
    assert event.kind == "plan.step_updated"
    assert event.payload == {
        "position": 1,
        "title": "A",
        "status": "done",
        "previous": "pending",
        "conformance": "deviation: no cache",
        "outcome": "works",
    }
    assert describe(event.kind, event.payload) == (
        "plan step 1 'A': pending → done (deviation: no cache): works"
    )
    assert PlanRevision.objects.filter(task=task).count() == 2


@pytest.mark.parametrize("given", ["{id}", "#{id}", "report:{id}", "Report:{id}"])
def test_a_report_link_is_stored_as_report_id(given: str) -> None:
    task = make_task()
    report = add_report(task)
    set_plan(task, ["A"])
    done(task, 1, link=given.format(id=report.id))
    assert selectors.plan_steps(task)[0].link == f"report:{report.id}"


def test_a_link_to_another_tasks_report_is_refused() -> None:
    task, other = make_task(), make_task()
    report = add_report(other)
    set_plan(task, ["A"])
    with pytest.raises(InvalidField, match=f"Report {report.id} is not a report of {task.key}"):
        done(task, 1, link=str(report.id))


@pytest.mark.parametrize("link", ["ftp://x/y", "javascript:alert(1)", "the PR", "https://"])
def test_a_link_that_is_neither_a_report_nor_a_web_url_is_refused(link: str) -> None:
    task = make_task()
    set_plan(task, ["A"])
    with pytest.raises(InvalidField, match=r"12, #12 or report:12\) or an http\(s\) URL"):
        done(task, 1, link=link)


def test_a_web_url_link_is_kept() -> None:
    task = make_task()
    set_plan(task, ["A"])
    done(task, 1, link="https://github.com/acme/shop/pull/7")
    assert selectors.plan_steps(task)[0].link == "https://github.com/acme/shop/pull/7"


def test_an_outcome_is_one_line() -> None:
    task = make_task()
    set_plan(task, ["A"])
    with pytest.raises(InvalidField, match="outcome is one line"):
        done(task, 1, outcome="first\nsecond")


def test_leaving_done_clears_the_checkpoint() -> None:
    task = make_task()
    set_plan(task, ["A"])
    done(task, 1, outcome="x", link="https://example.com")
    update(task, 1, status="in_progress")
    step = selectors.plan_steps(task)[0]
    assert (step.status, step.done_at, step.outcome, step.link, step.conformance) == (
        "in_progress",
        None,
        "",
        "",
        "",
    )


def test_marking_a_done_step_done_again_keeps_its_done_at() -> None:
    task = make_task()
    set_plan(task, ["A"])
    done(task, 1)
    first = selectors.plan_steps(task)[0].done_at
    update(task, 1, status="done", conformance="deviation: split in two", outcome="later")
    step = selectors.plan_steps(task)[0]
    assert step.done_at == first
    assert step.conformance == "deviation: split in two"
    # done again without conformance keeps the one it has
    update(task, 1, status="done", outcome="again")
    assert selectors.plan_steps(task)[0].conformance == "deviation: split in two"


def test_an_outcome_may_say_why_a_step_is_blocked() -> None:
    task = make_task()
    set_plan(task, ["A"])
    update(task, 1, status="blocked", outcome="needs the owner's API key")
    step = selectors.plan_steps(task)[0]
    assert (step.status, step.outcome) == ("blocked", "needs the owner's API key")
    update(task, 1, status="in_progress")
    assert selectors.plan_steps(task)[0].outcome == ""


def test_link_and_conformance_belong_to_a_done_step() -> None:
    task = make_task()
    set_plan(task, ["A"])
    with pytest.raises(InvalidField, match="belong to a done step"):
        update(task, 1, status="in_progress", conformance="as planned")
    with pytest.raises(InvalidField, match="belongs to a done step"):
        update(task, 1, status="in_progress", outcome="x")


def test_a_step_update_that_changes_nothing_is_not_kept() -> None:
    task = make_task()
    set_plan(task, ["A"])
    update(task, 1, status="in_progress")
    count = PlanRevision.objects.filter(task=task).count()
    result = update(task, "#1", status="in_progress")
    assert result.changed == ()
    assert result.notes[0].startswith("Nothing changed")
    assert PlanRevision.objects.filter(task=task).count() == count


def test_unknown_step_numbers_and_statuses_say_what_to_do() -> None:
    task = make_task()
    with pytest.raises(NotFound, match="has no plan yet: write it with plan_set"):
        update(task, 1, status="done")
    set_plan(task, ["A", "B"])
    with pytest.raises(NotFound, match="has no step 3: its plan has 2 step"):
        update(task, 3, status="done")
    with pytest.raises(InvalidField, match="status must be one of pending, in_progress"):
        update(task, 1, status="finished")


def test_details_of_a_step_can_be_edited_and_cleared() -> None:
    task = make_task()
    set_plan(task, ["A"])
    update(task, 1, details="what and why")
    assert selectors.plan_steps(task)[0].details == "what and why"
    update(task, 1, details="-")
    assert selectors.plan_steps(task)[0].details == ""


# --- plan_accept ----------------------------------------------------------------------------


def test_plan_accept_records_who_and_when() -> None:
    task = make_task()
    set_plan(task, ["A"])
    services.plan_accept(key=task.key, actor="coordinator")
    task = reload(task)
    assert task.plan_status == "accepted"
    assert task.plan_accepted_by == "coordinator"
    assert task.plan_accepted_at is not None
    event = plan_events(task)[-1]
    assert (event.kind, event.payload) == ("plan.accepted", {"by": "coordinator"})
    rev = PlanRevision.objects.filter(task=task).order_by("-revision").first()
    assert (rev.reason, rev.body["status"], rev.body["accepted_by"]) == (
        "plan accepted",
        "accepted",
        "coordinator",
    )


def test_plan_accept_is_refused_for_the_session_bound_to_the_task() -> None:
    task = make_task()
    set_plan(task, ["A"])
    session_services.task_bind_session(task=task, session="worker", actor=ACTOR)
    with pytest.raises(Forbidden, match=r"bound to your session \(worker\)"):
        services.plan_accept(key=task.key, actor=CallerRef(session="worker"))
    assert reload(task).plan_status == "draft"
    session_services.task_bind_session(task=make_task(), session="coordinator", actor=ACTOR)
    services.plan_accept(key=task.key, actor=CallerRef(session="coordinator"))
    assert reload(task).plan_status == "accepted"


def test_plan_accept_without_a_plan_or_twice() -> None:
    task = make_task()
    with pytest.raises(InvalidField, match="has no plan to accept: write it with plan_set"):
        services.plan_accept(key=task.key, actor="owner")
    set_plan(task, ["A"])
    services.plan_accept(key=task.key, actor="owner")
    count = len(plan_events(task))
    result = services.plan_accept(key=task.key, actor="owner")
    assert result.changed == ()
    assert "already accepted by owner" in result.notes[0]
    assert len(plan_events(task)) == count


# --- the seams: move facts, rules and the dev hint ------------------------------------------


def test_move_facts_see_plan_steps() -> None:
    task = make_task()
    assert extensions.move_fact(task, "has_plan_steps") is False
    set_plan(task, ["A"])
    assert extensions.move_fact(task, "has_plan_steps") is True


def test_a_move_to_dev_warns_by_plan_state_and_hints_only_without_steps() -> None:
    from tasks import services as task_services

    project = make_project()
    task = make_task(project)
    moved = task_services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    assert "Write it with plan_set" in moved.warnings[0]
    assert moved.hints[0].startswith(f"Hint: {task.key} has no plan")

    task = make_task(project)
    set_plan(task, ["A"])
    moved = task_services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    assert "The plan is not accepted yet" in moved.warnings[0]
    assert moved.hints == ()

    task = make_task(project)
    set_plan(task, ["A"])
    services.plan_accept(key=task.key, actor="owner")
    moved = task_services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    assert (moved.warnings, moved.hints) == ((), ())


def test_strict_rules_refuse_dev_until_the_plan_is_accepted(settings, tmp_path) -> None:
    from core.errors import RuleRefusal
    from tasks import services as task_services
    from tests.tasks.factories import use_config

    use_config(settings, tmp_path / "home", mode="strict")
    task = make_task()
    set_plan(task, ["A"])
    with pytest.raises(RuleRefusal, match="The plan is not accepted yet"):
        task_services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    services.plan_accept(key=task.key, actor="owner")
    assert task_services.task_set_stage(key=task.key, stage="dev", actor=ACTOR).obj.stage == "dev"
