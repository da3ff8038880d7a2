"""report_add, the report first line (§1 Report, Task size) and decision_add (§1 Decision)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import InvalidField, NotFound
from tasks import services
from tasks.models import Decision, Event, Report
from tasks.rules import SIZES, STATES
from tasks.services import ReportHead, parse_first_line, report_summary
from tests.tasks.factories import ACTOR, make_project, make_task, reload

pytestmark = pytest.mark.django_db


# --- summary -----------------------------------------------------------------------------


def test_the_summary_is_the_first_non_empty_line_stripped():
    assert report_summary("\n\n   changed · M · login\nmore\n") == "changed · M · login"


def test_a_long_first_line_is_cut_to_200_characters():
    summary = report_summary("x" * 300 + "\nrest")
    assert len(summary) == 200
    assert summary.endswith("…")


def test_a_first_line_of_exactly_200_characters_is_kept_whole():
    assert report_summary("y" * 200) == "y" * 200


# --- first line --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "head"),
    [
        ("changed · M · added login", ReportHead("changed", "M", "added login")),
        ("verified locally · S · tests pass", ReportHead("verified", "S", "tests pass", "locally")),
        ("Committed · l · big one", ReportHead("committed", "L", "big one")),
        ("pushed | M | ascii bar", ReportHead("pushed", "M", "ascii bar")),
        ("blocked - S - waiting on owner", ReportHead("blocked", "S", "waiting on owner")),
        ("inspected — M — em dash", ReportHead("inspected", "M", "em dash")),
        ("changed•S•bullet", ReportHead("changed", "S", "bullet")),
        ("## changed · M · heading", ReportHead("changed", "M", "heading")),
        ("**changed · M · bold**", ReportHead("changed", "M", "bold")),
        ("changed · M · gist · with a dot", ReportHead("changed", "M", "gist · with a dot")),
        ("changed · M", ReportHead("changed", "M", "")),
        ("changed · M · re-run the build", ReportHead("changed", "M", "re-run the build")),
    ],
)
def test_first_lines_that_follow_the_format_are_parsed(line, head):
    assert parse_first_line(line) == head


@pytest.mark.parametrize(
    "line",
    [
        "",
        "Did the login form",
        "finished · M · unknown state",
        "changed · XL · unknown size",
        "changed · soon · no size",
        "changed",
        "verified very locally · S · three words",
        "changed-M-no spaces around dashes",
        "· M · no state",
    ],
)
def test_first_lines_that_do_not_follow_the_format_give_no_head(line):
    assert parse_first_line(line) is None


def test_the_states_and_sizes_of_the_rules_limit_what_is_recognised():
    assert parse_first_line("verified · M · x", states=("changed",)) is None
    assert parse_first_line("changed · L · x", sizes=("S", "M")) is None
    assert parse_first_line("changed · M · x", states=("changed",), sizes=("M",)) is not None


SEPARATORS = st.sampled_from([" · ", "·", " | ", "|", " - ", " — ", " – ", "  ·  "])
# Words without whitespace joined by single spaces; no decoration at either end.
GIST = (
    st.lists(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp", "Zs")),
            min_size=1,
            max_size=8,
        ),
        max_size=5,
    )
    .map(" ".join)
    .filter(lambda g: g == g.strip(" \t*_`"))
)
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=10)


@given(
    state=st.sampled_from(STATES),
    size=st.sampled_from(SIZES),
    gist=GIST,
    sep1=SEPARATORS,
    sep2=SEPARATORS,
    upper=st.booleans(),
    second=st.one_of(st.just(""), WORD),
)
def test_any_well_formed_first_line_gives_its_canonical_state_and_size(
    state, size, gist, sep1, sep2, upper, second
):
    state_part = state.upper() if upper else state
    if second:
        state_part += f" {second}"
    line = f"{state_part}{sep1}{size.lower() if upper else size}"
    if gist:
        line += f"{sep2}{gist}"
    head = parse_first_line(line)
    assert head is not None
    assert (head.state, head.size, head.qualifier, head.gist) == (state, size, second, gist)


@given(first=WORD.filter(lambda w: w not in STATES), rest=st.text(max_size=40))
def test_a_first_word_that_is_no_state_never_parses(first, rest):
    assert parse_first_line(f"{first} · M · {rest}") is None


@given(body=st.text(max_size=300))
def test_the_summary_is_always_one_line_of_at_most_200_characters(body):
    summary = report_summary(body)
    assert len(summary) <= 200
    assert "\n" not in summary
    assert summary == summary.strip()


# --- report_add --------------------------------------------------------------------------


def test_a_report_is_stored_with_its_summary_state_size_and_author():
    task = make_task()
    out = services.report_add(
        key=task.key, body="verified locally · M · login works\n\nDetails", actor="sess-1"
    )
    report = Report.objects.get()
    assert out.obj == report
    assert out.created
    assert (report.summary, report.state, report.size, report.author) == (
        "verified locally · M · login works",
        "verified",
        "M",
        "sess-1",
    )
    assert report.body == "verified locally · M · login works\n\nDetails"


def test_a_report_without_the_format_keeps_no_state_or_size():
    task = make_task()
    report = services.report_add(key=task.key, body="Looked around.", actor=ACTOR).obj
    assert (report.summary, report.state, report.size) == ("Looked around.", "", "")


def test_a_report_bumps_the_task_version_by_one():
    task = make_task()
    out = services.report_add(key=task.key, body="notes", actor=ACTOR)
    assert reload(task).version == 2
    assert out.obj.task.version == 2


def test_a_report_size_sets_the_size_of_a_task_without_one():
    task = make_task()
    out = services.report_add(key=task.key, body="changed · L · big", actor=ACTOR)
    assert reload(task).size == "L"
    assert out.changed == ("size",)
    assert f"Size L taken from the report for {task.key}." in out.notes
    assert Event.objects.last().payload == {"fields": ["size"]}


def test_a_report_size_keeps_a_size_already_set():
    task = make_task(size="S")
    out = services.report_add(key=task.key, body="changed · L · big", actor=ACTOR)
    assert reload(task).size == "S"
    assert out.changed == ()
    assert Event.objects.last().kind == "report.added"


def test_report_add_saves_next_step_waiting_on_and_progress_in_the_same_write():
    task = make_task()
    out = services.report_add(
        key=task.key,
        body="changed · M · x",
        actor=ACTOR,
        next_step="Test it",
        waiting_on="owner",
        progress="Half",
    )
    fresh = reload(task)
    assert (fresh.next_step, fresh.waiting_on, fresh.progress, fresh.size) == (
        "Test it",
        "owner",
        "Half",
        "M",
    )
    assert fresh.version == 2
    assert out.changed == ("waiting_on", "next_step", "progress", "size")
    assert Event.objects.last().payload == {
        "fields": ["waiting_on", "next_step", "progress", "size"],
        "waiting_on": "owner",  # whom it waits on from now: the effort's owner time (#31)
    }


def test_report_add_clears_fields_given_as_a_dash():
    task = make_task(waiting_on="owner", next_step="x")
    services.report_add(key=task.key, body="b", actor=ACTOR, waiting_on="-", next_step="")
    fresh = reload(task)
    assert (fresh.waiting_on, fresh.next_step, fresh.next_step_at) == ("", "", None)


@pytest.mark.parametrize("body", ["", "   \n  ", None])
def test_an_empty_report_is_refused_with_an_example_first_line(body):
    task = make_task()
    with pytest.raises(InvalidField, match="body is empty") as exc:
        services.report_add(key=task.key, body=body, actor=ACTOR)
    assert "changed · M ·" in str(exc.value)
    assert Report.objects.count() == 0


def test_an_oversize_report_is_refused_naming_the_limit():
    task = make_task()
    with pytest.raises(InvalidField, match="body is 50001 characters long; the limit is 50000"):
        services.report_add(key=task.key, body="x" * 50_001, actor=ACTOR)


def test_an_invalid_field_in_a_report_write_stores_no_report():
    task = make_task()
    with pytest.raises(InvalidField, match="waiting_on"):
        services.report_add(key=task.key, body="b", actor=ACTOR, waiting_on="x" * 201)
    assert Report.objects.count() == 0
    assert reload(task).version == 1


def test_a_report_on_an_unknown_task_says_how_to_find_the_keys():
    with pytest.raises(NotFound, match="Call task_list"):
        services.report_add(key="nope-1", body="b", actor=ACTOR)


def test_a_project_override_with_fewer_states_parses_only_those():
    acme = make_project("acme")
    services.set_project_rules(
        project="acme", body='{"report_format": {"states": ["changed"]}}', actor=ACTOR
    )
    task = make_task(acme)
    report = services.report_add(key=task.key, body="verified · M · x", actor=ACTOR).obj
    assert (report.state, report.size) == ("", "")


# --- decisions ---------------------------------------------------------------------------


def test_a_project_decision_is_recorded_with_who_decided():
    make_project("acme")
    out = services.decision_add(project="acme", text="Use SQLite", actor=ACTOR, decided_by="owner")
    decision = Decision.objects.get()
    assert out.obj == decision
    assert (decision.text, decision.decided_by, decision.task) == ("Use SQLite", "owner", None)
    event = Event.objects.last()
    assert (event.kind, event.payload, event.task) == (
        "decision.added",
        {"text": "Use SQLite", "decision_id": decision.id},
        None,
    )


def test_a_task_decision_is_linked_to_its_task_and_event():
    acme = make_project("acme")
    task = make_task(acme)
    decision = services.decision_add(project="acme", text="x", actor=ACTOR, task=task.key).obj
    assert decision.task == task
    assert Event.objects.last().task_id == task.id


def test_a_task_of_another_project_is_refused():
    make_project("acme")
    other = make_task(make_project("beta"))
    with pytest.raises(InvalidField) as exc:
        services.decision_add(project="acme", text="x", actor=ACTOR, task=other.key)
    assert str(exc.value) == (
        f"Task {other.key} belongs to project beta, not acme. Pass project=beta or a task of acme."
    )
    assert Decision.objects.count() == 0


@pytest.mark.parametrize("text", ["", "  ", "-"])
def test_a_decision_needs_text(text):
    make_project("acme")
    with pytest.raises(InvalidField, match="text is empty"):
        services.decision_add(project="acme", text=text, actor=ACTOR)


def test_an_oversize_decision_is_refused():
    make_project("acme")
    with pytest.raises(InvalidField, match="text is 2001 characters long; the limit is 2000"):
        services.decision_add(project="acme", text="x" * 2001, actor=ACTOR)


def test_a_decision_for_an_unknown_project_or_task_is_refused():
    with pytest.raises(NotFound, match="Unknown project"):
        services.decision_add(project="nope", text="x", actor=ACTOR)
    make_project("acme")
    with pytest.raises(NotFound, match="Unknown task acme-9"):
        services.decision_add(project="acme", text="x", actor=ACTOR, task="acme-9")
