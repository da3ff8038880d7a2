"""The small pieces of the MCP markdown (tasks.render_md) that need no server."""

from __future__ import annotations

from datetime import UTC, datetime

from tasks import render_md
from tasks.models import Task
from tasks.services import Outcome

NOW = datetime(2026, 5, 1, 14, 3, 30, tzinfo=UTC)


def test_the_tracker_mark_says_whether_the_work_is_logged() -> None:
    task = Task(tracker_ref="ABC-1", tracker_name="Jira", tracker_logged=True)
    assert render_md.tracker_mark(task) == "Jira ABC-1 ✓"
    task.tracker_logged = False
    task.tracker_name = ""
    assert render_md.tracker_mark(task) == "ABC-1 (not logged)"
    assert render_md.tracker_mark(Task()) == ""


def test_long_text_is_flattened_and_cut_with_an_ellipsis() -> None:
    assert render_md.one_line("a\n  b\tc") == "a b c"
    cut = render_md.one_line("word " * 100, 20)
    assert len(cut) <= 20
    assert cut.endswith("…")


def test_a_write_answer_prefixes_rule_warnings_and_keeps_hints_and_notes_whole() -> None:
    task = Task(key="acme-3", title="Fix", stage="test", version=7)
    outcome = Outcome(
        obj=task,
        changed=("stage", "next_step"),
        warnings=("moving to test usually needs a report since the last stage change",),
        hints=("Hint: write the Owner check.",),
        notes=("Tracker mark cleared on acme-3 (moved back from done to test): …",),
        moved=("dev", "test"),
        caller_notes=("Note from the session resolver.",),
    )
    text = render_md.task_write_md(outcome)
    assert text.splitlines() == [
        "Moved acme-3 dev → test; updated next_step (version 7).",
        "Warning (rules): moving to test usually needs a report since the last stage change",
        "Hint: write the Owner check.",
        "Tracker mark cleared on acme-3 (moved back from done to test): …",
        "Note from the session resolver.",
    ]


def test_a_no_op_write_says_so_once() -> None:
    task = Task(key="acme-3", title="Fix", stage="dev", version=4)
    note = "Nothing changed: acme-3 already has these values (version 4)."
    assert render_md.task_write_md(Outcome(obj=task, notes=(note,))) == note
    assert render_md.task_write_md(Outcome(obj=task)) == ("Nothing changed on acme-3 (version 4).")


def test_events_since_without_events_repeats_the_id_to_pass() -> None:
    assert render_md.events_md([], 42, 100) == "No events after #42. Next time pass after_id=42."
