"""What the board and MCP say of a task's effort (issue 31): the time tally kept event by
event, tokens priced from the price table (config.toml over the shipped defaults), "cost
unknown" for a model without a price, and task_get's and project_snapshot's lines."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from core.config import load_config
from effort import figures, words
from effort.models import TaskEffort, TokenUsage
from effort.paths import Roots
from effort.services.tally import effort_backfill
from tasks import services as task_services
from tasks.extensions import project_lines, task_sections
from tests.effort.effort_support import (
    api_error,
    assistant,
    bind,
    captured_assistant,
    claude_session,
    counted,
    say,
)
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db


def test_each_time_event_steps_the_tally_and_a_replay_agrees(roots: Roots) -> None:
    task = make_task(make_project("acme"), "Login")
    alice = claude_session("alice", roots)  # its prompt made it "working"
    bind(task, alice)
    task_services.task_set_stage(key=task.key, stage="dev", actor="tester")
    row = TaskEffort.objects.get(task=task)
    assert (row.stage, row.agents_open, row.sessions, row.turns) == ("dev", 1, 1, 1)

    kept = figures.effort(task, now=row.as_of + timedelta(minutes=5)).times
    TaskEffort.objects.all().delete()  # as for a task from before issue 31: replayed
    effort_backfill()  # the one-time step (migration effort 0002)
    replayed = figures.effort(task, now=row.as_of + timedelta(minutes=5)).times

    assert replayed.agent_seconds == pytest.approx(kept.agent_seconds)
    assert kept.agent_seconds >= 300
    assert replayed.stage_seconds.keys() == kept.stage_seconds.keys()


def test_tokens_are_priced_with_the_shipped_table(roots: Roots) -> None:
    task = make_task(make_project("acme"))
    alice = claude_session("alice", roots)
    bind(task, alice)
    t = alice.bindings.get().bound_at + timedelta(seconds=1)
    say(alice, *(assistant(f"m{i}", t) for i in range(9)))  # the lifecycle fixture's shape
    counted(alice, roots)

    found = figures.effort(task)

    assert found.tokens.total == 900 + 180
    assert found.cost.known
    assert found.cost.usd == pytest.approx(0.0072)  # Claude Code's own figure for them
    assert words.cost(found.cost, found.tokens) == "$0.0072"


def test_a_model_without_a_price_shows_its_tokens_and_cost_unknown(roots: Roots) -> None:
    task = make_task(make_project("acme"))
    alice = claude_session("alice", roots)
    bind(task, alice)
    t = alice.bindings.get().bound_at + timedelta(seconds=1)
    say(alice, assistant("a", t), assistant("b", t, model="mystery-9"))
    counted(alice, roots)

    found = figures.effort(task)

    assert found.tokens.total == 240
    assert found.cost.unpriced == ("mystery-9",)
    assert words.cost(found.cost, found.tokens) == (
        "$0.0008 + cost unknown (mystery-9 has no price)"
    )


def test_an_api_error_line_leaves_the_cost_known_and_the_responses_as_they_were(
    roots: Roots,
) -> None:
    """After an HTTP error Claude Code writes an assistant line of its own: built here from
    a real captured line (tests/fixtures/claude-code-2.1.332) with only `message.model`
    ("<synthetic>"), `isApiErrorMessage` and the usage (all 0) changed. No model wrote it."""
    task = make_task(make_project("acme"))
    alice = claude_session("alice", roots)
    bind(task, alice)
    t = alice.bindings.get().bound_at + timedelta(seconds=1)
    say(alice, captured_assistant(0, t), api_error(captured_assistant(1, t)))
    counted(alice, roots)

    found = figures.effort(task)

    assert (found.tokens.responses, found.tokens.total) == (1, 120)
    assert found.cost.known
    assert words.cost(found.cost, found.tokens) == "$0.0008"
    assert set(TokenUsage.objects.values_list("model", flat=True)) == {"claude-opus-5-5"}


def test_config_prices_are_laid_over_the_defaults(roots: Roots, settings, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[prices."mystery-9"]\ninput = 1000.0\noutput = 0\n[prices."claude-opus-*"]\ninput = 10.0\n'
    )
    settings.RELAYBAY = load_config(environ={"RELAYBAY_HOME": str(home)})
    task = make_task(make_project("acme"))
    alice = claude_session("alice", roots)
    bind(task, alice)
    t = alice.bindings.get().bound_at + timedelta(seconds=1)
    say(alice, assistant("a", t), assistant("b", t, model="mystery-9"))
    counted(alice, roots)

    found = figures.effort(task)

    # opus: 100 in at $10 (given) + 20 out at $15 (kept); mystery-9: 100 in at $1000
    assert found.cost.known
    assert found.cost.usd == pytest.approx(0.001 + 0.0003 + 0.1)


def test_task_get_and_project_snapshot_carry_the_effort(roots: Roots) -> None:
    project = make_project("acme")
    idle, task = make_task(project, "Idle"), make_task(project, "Busy")
    assert "Effort: nothing counted yet" in "\n".join(task_sections(idle))
    alice = claude_session("alice", roots)
    bind(task, alice)
    t = alice.bindings.get().bound_at + timedelta(seconds=1)
    say(alice, assistant("a", t, input_=1000, output=200))
    counted(alice, roots)

    [line] = [s for s in task_sections(task) if s.startswith("Effort:")]
    [total] = [s for s in project_lines(project) if s.startswith("Effort of all")]

    assert "1 session, 1 turn ·" in line
    assert "1,200 tokens" in line
    assert line.endswith("$0.0080")
    assert total.startswith("Effort of all 2 tasks: agent ")
    assert total.endswith("1,200 tokens · $0.0080")
