"""Stage moves (§1 Stage), the working-rules checks on them (§6) and next-step freshness."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest

from core import actor as actors
from core.errors import InvalidField, RuleRefusal
from tasks import extensions, services
from tasks.models import STAGES, Event, Task
from tasks.selectors import is_next_step_stale
from tests.tasks.factories import ACTOR, add_report, make_project, make_task, reload, use_config

pytestmark = pytest.mark.django_db

PLAN_WARNING = (
    "moving to dev usually needs an accepted plan (not needed for size S). "
    "Write it with plan_set (2-5 steps), then ask for acceptance."
)
REPORT_WARNING = "moving to test usually needs a report since the last stage change"


@pytest.fixture
def strict(settings, tmp_path):
    use_config(settings, tmp_path / "strict-home", mode="strict")


@pytest.fixture
def move_facts():
    """Register extension facts for one test (the plans and sessions apps do it for real)."""
    saved = list(extensions._move_facts)
    facts: dict[str, object] = {}
    extensions.register_move_facts(lambda task: dict(facts))
    yield facts
    extensions._move_facts[:] = saved


def stage_events(task: Task) -> list[Event]:
    return list(Event.objects.filter(task=task, kind="task.stage_changed"))


def set_plan_status(task: Task, status: str) -> None:
    # The plans app owns this column and its service; the tasks tests only need the fact.
    Task.objects.filter(pk=task.pk).update(plan_status=status)


# --- moving ------------------------------------------------------------------------------


@pytest.mark.parametrize(("start", "target"), list(itertools.permutations(STAGES, 2)))
def test_any_transition_is_allowed(start, target):
    task = make_task(stage=start, size="S", progress="p")
    out = services.task_set_stage(key=task.key, stage=target, actor=ACTOR)
    assert reload(task).stage == target
    assert out.changed[0] == "stage"
    event = stage_events(task)[-1]
    assert (event.payload["from"], event.payload["to"], event.payload["stage"]) == (
        start,
        target,
        target,
    )


def test_moving_to_done_sets_closed_at_and_leaving_done_clears_it():
    task = make_task(progress="p")
    services.task_set_stage(key=task.key, stage="done", actor=ACTOR)
    closed = reload(task)
    assert closed.closed_at == closed.stage_changed_at
    services.task_set_stage(key=task.key, stage="test", actor=ACTOR)
    assert reload(task).closed_at is None


def test_every_stage_change_sets_stage_changed_at():
    task = make_task()
    services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    first = reload(task).stage_changed_at
    assert first > task.stage_changed_at
    services.task_set_stage(key=task.key, stage="plan", actor=ACTOR)
    assert reload(task).stage_changed_at > first


def test_setting_the_stage_a_task_is_in_is_not_a_move():
    task = make_task(stage="review")
    out = services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    assert out.changed == ()
    assert out.notes == (f"{task.key} was already in review; the stage did not change.",)
    fresh = reload(task)
    assert (fresh.version, fresh.stage_changed_at) == (1, task.stage_changed_at)
    assert stage_events(task) == []


def test_setting_the_same_stage_still_saves_the_other_fields():
    task = make_task(stage="review")
    out = services.task_set_stage(key=task.key, stage="review", actor=ACTOR, waiting_on="owner")
    assert out.changed == ("waiting_on",)
    assert reload(task).waiting_on == "owner"


@pytest.mark.parametrize("stage", ["qa", "", "Done!"])
def test_an_unknown_stage_is_refused_with_the_list(stage):
    task = make_task()
    with pytest.raises(InvalidField, match=r"Stages: plan, dev, review, test, live, done\."):
        services.task_set_stage(key=task.key, stage=stage, actor=ACTOR)


def test_a_stage_is_matched_whatever_its_case():
    task = make_task()
    services.task_set_stage(key=task.key, stage=" Review ", actor=ACTOR)
    assert reload(task).stage == "review"


def test_task_set_stage_saves_note_next_step_and_waiting_on_with_the_move():
    task = make_task()
    out = services.task_set_stage(
        key=task.key,
        stage="review",
        actor=ACTOR,
        note="Waiting for CI",
        next_step="Owner checks the login",
        waiting_on="owner",
    )
    fresh = reload(task)
    assert (fresh.stage_note, fresh.next_step, fresh.waiting_on) == (
        "Waiting for CI",
        "Owner checks the login",
        "owner",
    )
    assert fresh.version == 2
    assert set(out.changed) == {"stage", "stage_note", "next_step", "waiting_on"}
    move, update = Event.objects.filter(task=task).order_by("id")[1:]
    assert move.payload == {
        "from": "plan",
        "to": "review",
        "stage": "review",
        "note": "Waiting for CI",
    }
    assert update.payload == {"fields": ["waiting_on", "next_step"], "waiting_on": "owner"}


def test_task_update_with_a_stage_is_a_move_like_task_set_stage():
    task = make_task()
    out = services.task_update(key=task.key, actor=ACTOR, stage="dev", branch="b")
    assert out.warnings == (PLAN_WARNING,)
    assert reload(task).stage == "dev"
    assert stage_events(task)[0].payload["warnings"] == [PLAN_WARNING]


def test_task_patch_with_a_stage_is_checked_too(strict):
    task = make_task()
    with pytest.raises(RuleRefusal):
        services.task_patch(key=task.key, fields={"stage": "dev"}, actor=ACTOR)


# --- working rules: warn -----------------------------------------------------------------


def test_in_warn_mode_a_move_missing_a_rule_succeeds_with_the_warning_in_answer_and_event():
    task = make_task()
    out = services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    assert reload(task).stage == "dev"
    assert out.warnings == (PLAN_WARNING,)
    assert not any(w.startswith("Warning") for w in out.warnings)
    assert stage_events(task)[0].payload["warnings"] == [PLAN_WARNING]


def test_a_move_that_meets_the_rules_has_no_warnings_key_in_its_event():
    task = make_task(size="S")
    out = services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    assert out.warnings == ()
    assert "warnings" not in stage_events(task)[0].payload


def test_a_draft_plan_warns_that_it_is_not_accepted_yet():
    task = make_task(size="M")
    set_plan_status(task, "draft")
    out = services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    assert out.warnings == (
        "moving to dev usually needs an accepted plan (not needed for size S). The plan is not "
        "accepted yet: the owner accepts it on the board, the coordinator with plan_accept.",
    )


def test_an_accepted_plan_meets_the_dev_rule():
    task = make_task(size="L")
    set_plan_status(task, "accepted")
    assert services.task_set_stage(key=task.key, stage="dev", actor=ACTOR).warnings == ()


def test_a_size_set_in_the_same_write_counts_for_the_move():
    task = make_task()
    out = services.task_update(key=task.key, actor=ACTOR, stage="dev", size="S")
    assert out.warnings == ()


def test_moving_to_test_needs_a_report_since_the_last_stage_change():
    task = make_task(size="S")
    add_report(task)  # written in plan, before the move to dev
    services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    out = services.task_set_stage(key=task.key, stage="test", actor=ACTOR)
    assert out.warnings == (REPORT_WARNING,)


def test_a_report_in_the_current_stage_meets_the_test_rule():
    task = make_task(size="S")
    services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    add_report(task)
    assert services.task_set_stage(key=task.key, stage="test", actor=ACTOR).warnings == ()


def test_moving_to_done_needs_progress():
    task = make_task()
    out = services.task_set_stage(key=task.key, stage="done", actor=actors.BOARD)
    assert out.warnings == ("moving to done usually needs progress",)


def test_progress_given_in_the_same_write_meets_the_done_rule():
    task = make_task()
    out = services.task_update(
        key=task.key, actor=actors.BOARD, stage="done", progress="All shipped"
    )
    assert out.warnings == ()


def test_an_agent_moving_to_done_is_warned_that_only_the_owner_does():
    task = make_task(progress="All shipped")
    out = services.task_set_stage(key=task.key, stage="done", actor=ACTOR)
    assert out.warnings == ("only the owner moves a task to done",)
    assert reload(task).stage == "done"  # warn mode: the move happened
    assert Event.objects.filter(kind="task.stage_changed").last().payload["warnings"] == [
        "only the owner moves a task to done"
    ]


@pytest.mark.parametrize("who", [actors.BOARD, actors.OWNER])
def test_the_owner_moves_to_done_freely(who):
    task = make_task(progress="All shipped")
    assert services.task_set_stage(key=task.key, stage="done", actor=who).warnings == ()


def test_owner_only_stages_come_from_the_rules(settings, tmp_path):
    use_config(settings, tmp_path / "h", rules_toml='[rules]\nowner_only_stages = ["live"]\n')
    task = make_task(progress="All shipped")
    assert services.task_set_stage(key=task.key, stage="done", actor=ACTOR).warnings == ()
    out = services.task_set_stage(key=task.key, stage="live", actor=ACTOR)
    assert out.warnings == ("only the owner moves a task to live",)


def test_rules_are_checked_on_moves_only():
    task = make_task()
    out = services.task_update(key=task.key, actor=ACTOR, description="d")
    assert out.warnings == ()


# --- working rules: strict ---------------------------------------------------------------


def test_in_strict_mode_a_move_missing_a_rule_is_refused_and_nothing_changes(strict):
    task = make_task(next_step="old")
    events = Event.objects.count()
    with pytest.raises(RuleRefusal) as exc:
        services.task_set_stage(
            key=task.key, stage="done", actor=ACTOR, next_step="new", waiting_on="owner"
        )
    assert str(exc.value) == (
        "Rules: only the owner moves a task to done; moving to done usually needs progress. "
        "Nothing changed."
    )
    fresh = reload(task)
    assert (fresh.stage, fresh.version, fresh.next_step, fresh.waiting_on) == ("plan", 1, "old", "")
    assert Event.objects.count() == events


def test_a_strict_refusal_keeps_the_plan_message_whole(strict):
    task = make_task()
    with pytest.raises(RuleRefusal) as exc:
        services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    assert str(exc.value) == f"Rules: {PLAN_WARNING[:-1]}. Nothing changed."


def test_a_strict_refusal_names_every_unmet_requirement(settings, tmp_path):
    rules = (
        "[rules.stage_requirements]\n"
        'review = [{kind = "field_present", field = "branch"}, '
        '{kind = "report_since_stage_change"}]\n'
    )
    use_config(settings, tmp_path / "h", mode="strict", rules_toml="[rules]\n" + rules)
    task = make_task()
    with pytest.raises(RuleRefusal) as exc:
        services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    assert str(exc.value) == (
        "Rules: moving to review usually needs branch; moving to review usually needs a report "
        "since the last stage change. Nothing changed."
    )


def test_in_strict_mode_a_move_that_meets_the_rules_succeeds(strict):
    task = make_task(size="S")
    out = services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    assert (reload(task).stage, out.warnings) == ("dev", ())


def test_in_strict_mode_writes_without_a_move_are_not_checked(strict):
    task = make_task()
    services.task_update(key=task.key, actor=ACTOR, description="d")
    assert reload(task).description == "d"


def test_a_project_override_adds_requirements_for_its_tasks_only():
    acme, beta = make_project("acme"), make_project("beta")
    body = '{"stage_requirements": {"review": [{"kind": "field_present", "field": "branch"}]}}'
    services.set_project_rules(project="acme", body=body, actor=ACTOR)
    a, b = make_task(acme), make_task(beta)
    assert services.task_set_stage(key=a.key, stage="review", actor=ACTOR).warnings == (
        "moving to review usually needs branch",
    )
    assert services.task_set_stage(key=b.key, stage="review", actor=ACTOR).warnings == ()


def test_a_project_override_can_drop_a_stage_requirement():
    acme = make_project("acme")
    services.set_project_rules(
        project="acme", body='{"stage_requirements": {"dev": []}}', actor=ACTOR
    )
    task = make_task(acme)
    assert services.task_set_stage(key=task.key, stage="dev", actor=ACTOR).warnings == ()


def test_in_strict_mode_an_agents_move_to_done_is_refused_and_the_owners_is_not(strict):
    task = make_task(progress="All shipped")
    with pytest.raises(RuleRefusal, match="only the owner moves a task to done"):
        services.task_set_stage(key=task.key, stage="done", actor=ACTOR)
    assert reload(task).stage == "plan"
    assert services.task_set_stage(key=task.key, stage="done", actor=actors.BOARD).warnings == ()


def test_a_broken_project_override_is_ignored_and_the_global_rules_apply(strict):
    acme = make_project("acme")
    services.set_project_rules(
        project="acme", body='{"stage_requirements": {"done": "progress"}}', actor=ACTOR
    )
    task = make_task(acme)
    with pytest.raises(RuleRefusal, match="needs progress"):
        services.task_set_stage(key=task.key, stage="done", actor=ACTOR)


def test_the_global_rules_layer_from_config_applies_to_moves(settings, tmp_path):
    use_config(
        settings,
        tmp_path / "h",
        rules_toml='[rules.stage_requirements]\ntest = []\nlive = [{kind = "field_present", '
        'field = "tracker_ref"}]\n',
    )
    task = make_task(size="S")
    assert services.task_set_stage(key=task.key, stage="test", actor=ACTOR).warnings == ()
    assert services.task_set_stage(key=task.key, stage="live", actor=ACTOR).warnings == (
        "moving to live usually needs tracker_ref",
    )


# --- the dev hint ------------------------------------------------------------------------


def dev_hint(key: str) -> str:
    return (
        f"Hint: {key} has no plan and no todo yet: write down what you are going to do "
        "(todo or 2-3 steps with plan_set)."
    )


def review_hint(key: str) -> str:
    return (
        f"Hint: {key} has no Owner check yet: write it with review_steps_set (what the owner "
        "should check by eye), then attach screenshots with attach_file."
    )


@pytest.mark.parametrize("size", ["", "S", "L"])
def test_a_move_to_dev_without_plan_steps_or_todo_adds_the_hint_whatever_the_size(size):
    task = make_task(size=size or None)
    out = services.task_set_stage(key=task.key, stage="dev", actor=ACTOR)
    assert out.hints == (dev_hint(task.key),)
    assert all(dev_hint(task.key) not in w for w in out.warnings)


@pytest.mark.parametrize("fact", ["has_plan_steps", "has_todo"])
def test_plan_steps_or_a_todo_from_the_extensions_silence_the_dev_hint(move_facts, fact):
    move_facts[fact] = True
    task = make_task(size="S")
    assert services.task_set_stage(key=task.key, stage="dev", actor=ACTOR).hints == ()


@pytest.mark.parametrize("stage", ["review", "test", "plan", "live", "done"])
def test_moves_to_other_stages_add_no_hint(move_facts, stage):
    move_facts["has_review_steps"] = True  # the Owner check hint has its own tests below
    task = make_task(stage="dev" if stage == "plan" else "plan", progress="p")
    assert services.task_set_stage(key=task.key, stage=stage, actor=ACTOR).hints == ()


@pytest.mark.parametrize("stage", ["review", "test"])
def test_a_move_to_review_or_test_without_review_steps_adds_the_owner_check_hint(move_facts, stage):
    move_facts["has_review_steps"] = False  # reviews supplies this fact for real (§1)
    task = make_task(stage="dev", progress="p")
    out = services.task_set_stage(key=task.key, stage=stage, actor=ACTOR)
    assert out.hints == (review_hint(task.key),)
    assert all("Owner check" not in w for w in out.warnings)


def test_the_dev_hint_comes_with_a_strict_move_that_succeeds(strict):
    task = make_task(size="S")
    assert services.task_set_stage(key=task.key, stage="dev", actor=ACTOR).hints == (
        dev_hint(task.key),
    )


def test_a_task_created_in_dev_gets_the_hint():
    make_project("acme")
    out = services.task_create(project="acme", title="x", actor=ACTOR, stage="dev")
    assert out.hints == (dev_hint("acme-1"),)


# --- next-step freshness -----------------------------------------------------------------


def test_a_next_step_written_in_the_current_stage_is_fresh():
    task = make_task(next_step="Write tests")
    assert not is_next_step_stale(task)


def test_a_stage_change_makes_the_next_step_stale():
    task = make_task(next_step="Write tests")
    services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    assert is_next_step_stale(reload(task))


def test_an_empty_next_step_is_never_stale():
    task = make_task()
    services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    assert not is_next_step_stale(reload(task))


def test_writing_a_stale_next_step_again_unchanged_confirms_it():
    task = make_task(next_step="Write tests")
    services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    out = services.task_update(key=task.key, actor=ACTOR, next_step="Write tests")
    fresh = reload(task)
    assert not is_next_step_stale(fresh)
    assert out.changed == ("next_step",)
    assert fresh.version == 3
    event = Event.objects.last()
    assert (event.kind, event.payload) == (
        "task.updated",
        {"fields": [], "confirmed": ["next_step"]},
    )


def test_writing_a_fresh_next_step_again_unchanged_is_a_no_op():
    task = make_task(next_step="Write tests")
    events = Event.objects.count()
    out = services.task_update(key=task.key, actor=ACTOR, next_step="Write tests")
    assert out.changed == ()
    fresh = reload(task)
    assert (fresh.version, fresh.next_step_at) == (1, task.next_step_at)
    assert Event.objects.count() == events


def test_writing_the_same_next_step_with_a_stage_change_confirms_it():
    task = make_task(next_step="Write tests")
    out = services.task_set_stage(
        key=task.key, stage="review", actor=ACTOR, next_step="Write tests"
    )
    fresh = reload(task)
    assert not is_next_step_stale(fresh)
    assert fresh.next_step_at == fresh.stage_changed_at
    assert out.changed == ("stage", "next_step")
    assert fresh.version == 2
    assert Event.objects.last().payload == {"fields": [], "confirmed": ["next_step"]}


def test_a_new_next_step_text_is_written_with_its_time():
    task = make_task(next_step="a")
    services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    services.task_update(key=task.key, actor=ACTOR, next_step="b")
    fresh = reload(task)
    assert (fresh.next_step, is_next_step_stale(fresh)) == ("b", False)
    assert Event.objects.last().payload == {"fields": ["next_step"]}


def test_clearing_the_next_step_clears_its_time():
    task = make_task(next_step="a")
    services.task_update(key=task.key, actor=ACTOR, next_step="-")
    fresh = reload(task)
    assert (fresh.next_step, fresh.next_step_at) == ("", None)


def test_a_report_confirms_a_stale_next_step_written_again():
    task = make_task(next_step="a")
    services.task_set_stage(key=task.key, stage="review", actor=ACTOR)
    out = services.report_add(key=task.key, body="notes", actor=ACTOR, next_step="a")
    assert "next_step" in out.changed
    assert not is_next_step_stale(reload(task))


def test_staleness_compares_the_write_time_with_the_stage_change():
    task = make_task(next_step="a")
    task.next_step_at = task.stage_changed_at - timedelta(microseconds=1)
    assert is_next_step_stale(task)
    task.next_step_at = task.stage_changed_at
    assert not is_next_step_stale(task)
