"""Counting a transcript on tasks (issue 31), on a real SQLite: each response once, on the
tasks bound to its session at its time, split evenly between tasks bound at once; where the
reading stands survives a restart; a path that is not the agent's own is never opened."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.db.models import Sum

from effort import services as effort
from effort.models import ProcessCost, TokenUsage, TranscriptCursor
from effort.paths import Roots
from effort.reader import open_plain
from sessions.models import TaskBinding
from tests.effort.effort_support import assistant, bind, claude_session, codex_session, say
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db
ROLLOUT = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "codex-0.169.0"
    / "transcripts"
    / "rollout.exec-and-resume.jsonl"
)
RAN_LS = datetime(2026, 12, 5, 21, 58, 55, 100_000, tzinfo=UTC)  # the 1st response's call
RAN_MCP = datetime(2026, 12, 5, 21, 58, 55, 223_000, tzinfo=UTC)  # the 3rd response's call


def read(session, roots: Roots, **kw) -> effort.ReadResult:
    """Every step to the end, as the worker would."""
    result = effort.ReadResult()
    while True:
        step = effort.transcript_read(session_id=session.id, roots=roots, **kw)
        result.task_ids |= step.task_ids
        result.responses += step.responses
        if not step.more:
            return result


def usage(task=None, **filters) -> dict[str, int]:
    rows = TokenUsage.objects.filter(**({"task": task} if task is not None else {}), **filters)
    sums = rows.aggregate(*(Sum(k) for k in ("responses", "shared", "input", "output")))
    return {k.removesuffix("__sum"): v or 0 for k, v in sums.items()}


def bound_at(task, session):
    return TaskBinding.objects.get(task=task, session=session, unbound_at__isnull=True).bound_at


def test_a_response_written_twice_is_counted_once_on_the_bound_task(roots: Roots) -> None:
    task = make_task(make_project("acme"))
    alice = claude_session("alice", roots)
    bind(task, alice)
    t = bound_at(task, alice) + timedelta(seconds=1)
    say(alice, assistant("msg_1", t), assistant("msg_1", t), assistant("msg_2", t, input_=50))

    result = read(alice, roots)

    assert result.task_ids == {task.id}
    assert result.responses == 2
    assert usage(task) == {"responses": 2, "shared": 0, "input": 150, "output": 40}


def test_responses_before_any_binding_belong_to_no_task(roots: Roots) -> None:
    task = make_task(make_project("acme"))
    alice = claude_session("alice", roots)
    bind(task, alice)
    t = bound_at(task, alice)
    say(alice, assistant("before", t - timedelta(seconds=5)), assistant("after", t))

    read(alice, roots)

    assert usage(task)["responses"] == 1
    assert usage(task__isnull=True)["responses"] == 1


def test_a_rebind_mid_turn_sends_each_response_to_the_task_bound_at_its_time(
    roots: Roots,
) -> None:
    project = make_project("acme")
    first, second = make_task(project, "First"), make_task(project, "Second")
    alice = claude_session("alice", roots)
    bind(first, alice)
    t1 = bound_at(first, alice)
    # The turn goes on while the task changes: the agent unbinds the first and binds the
    # second; the lines are written (and read) only afterwards.
    from sessions import services as session_services

    session_services.task_unbind_session(task=first, actor="tester")
    [u1] = TaskBinding.objects.filter(task=first).values_list("unbound_at", flat=True)
    bind(second, alice)
    t2 = bound_at(second, alice)
    say(
        alice,
        assistant("a", t1 + (u1 - t1) / 3),  # while the first was bound, however slow the
        assistant("b", t1 + 2 * (u1 - t1) / 3),  # machine: before its unbind, not t2
        assistant("c", t2 + timedelta(seconds=1)),
    )

    read(alice, roots)

    assert usage(first)["responses"] == 2
    assert usage(second)["responses"] == 1


@pytest.mark.parametrize(
    ("bound", "unbound", "on_task"),
    [
        (RAN_LS, None, 4),  # the 1st response's call bound it: the 2nd to the 5th
        (RAN_LS - timedelta(seconds=1), RAN_MCP, 3),  # the 3rd's call unbound it: 1st to 3rd
    ],
)
def test_the_codex_response_that_binds_or_unbinds_a_task_is_counted_where_it_was_made(
    roots: Roots, bound: datetime, unbound: datetime | None, on_task: int
) -> None:
    """The real rollout, its tool calls standing for task_bind_session and
    task_unbind_session: Codex writes a response's token_count after its call ran."""
    task = make_task(make_project("acme"))
    worker = codex_session("codex-worker", roots, ROLLOUT)
    bind(task, worker)
    TaskBinding.objects.filter(task=task).update(bound_at=bound, unbound_at=unbound)

    read(worker, roots)

    assert usage(task)["responses"] == on_task
    assert usage(task__isnull=True)["responses"] == 5 - on_task


def test_two_sessions_on_one_task_both_count(roots: Roots) -> None:
    task = make_task(make_project("acme"))
    alice, bob = claude_session("alice", roots), claude_session("bob", roots)
    bind(task, alice)
    t = bound_at(task, alice)
    bind(task, bob)  # the task's session is bob from now
    t2 = bound_at(task, bob)
    say(alice, assistant("a1", t + (t2 - t) / 2))  # while alice was on it
    say(bob, assistant("b1", t2 + timedelta(seconds=1), input_=10))
    say(alice, assistant("a2", t2 + timedelta(seconds=2)))  # alice no longer on it

    read(alice, roots)
    read(bob, roots)

    assert usage(task) == {"responses": 2, "shared": 0, "input": 110, "output": 40}
    assert usage(task__isnull=True)["responses"] == 1


def test_one_session_on_two_tasks_splits_each_response_evenly_and_says_so(
    roots: Roots,
) -> None:
    project = make_project("acme")
    first, second = make_task(project, "First"), make_task(project, "Second")
    alice = claude_session("alice", roots)
    bind(first, alice)
    bind(second, alice)
    t = bound_at(second, alice) + timedelta(seconds=1)
    say(alice, assistant("odd", t, input_=101, output=21))

    read(alice, roots)

    assert usage(first) == {"responses": 1, "shared": 1, "input": 51, "output": 11}
    assert usage(second) == {"responses": 1, "shared": 1, "input": 50, "output": 10}
    assert usage()["input"] == 101  # nothing lost, nothing counted twice


def test_a_restart_between_reads_loses_nothing_and_counts_nothing_twice(roots: Roots) -> None:
    task = make_task(make_project("acme"))
    alice = claude_session("alice", roots)
    bind(task, alice)
    t = bound_at(task, alice) + timedelta(seconds=1)
    say(alice, *(assistant(f"m{i}", t) for i in range(40)))

    first = effort.transcript_read(session_id=alice.id, roots=roots, limit=3000)
    assert first.more
    assert 0 < first.responses < 40
    # a restart: nothing is in memory, the cursor is in the database
    read(alice, roots, limit=3000)
    say(alice, assistant("m40", t), assistant("m3", t))  # one new, one written again
    read(alice, roots)
    assert usage(task)["responses"] == 41

    TranscriptCursor.objects.all().delete()  # read the whole file again from the start
    read(alice, roots)
    assert usage(task)["responses"] == 41


def test_claude_codes_own_cost_is_kept_per_process(roots: Roots) -> None:
    alice = claude_session("alice", roots)
    say(
        alice,
        {"type": "cost-state", "totalCostUSD": 0.001, "startTime": 1},
        {"type": "cost-state", "totalCostUSD": 0.004, "startTime": 1},  # the same process later
        {"type": "cost-state", "totalCostUSD": 0.002, "startTime": 2},
    )

    read(alice, roots)

    assert sorted(ProcessCost.objects.values_list("started", "total_usd")) == [
        (1, 0.004),
        (2, 0.002),
    ]


OUTSIDE = [
    "/etc/passwd",
    "{claude}/projects/-home-dev/../../../../etc/{id}.jsonl",
    "{claude}/projects/{id}.jsonl",  # not inside a project folder
    "{claude}/projects/a/b/{id}.jsonl",  # a folder too deep
    "{claude}/projects/-home-dev/other-session.jsonl",  # another session's file
    "{claude}/../elsewhere/projects/-home-dev/{id}.jsonl",
    "{claude}/projects/-home-dev/{id}.jsonl.bak",
    "relative/projects/-home-dev/{id}.jsonl",
    "{codex}/sessions/2026/12/05/rollout-x-{id}.jsonl",  # Codex's folder, a Claude session
]


@pytest.mark.parametrize("template", OUTSIDE)
def test_a_path_that_is_not_the_agents_own_transcript_is_never_opened(
    roots: Roots, template: str
) -> None:
    alice = claude_session("alice", roots)
    agent_id = alice.agent_session_id
    path = template.format(
        claude=roots.folder("claude-code"), codex=roots.folder("codex"), id=agent_id
    )
    alice.transcript_path = path
    alice.save(update_fields=["transcript_path"])  # as if a hook had named it
    opened: list[str] = []

    def opener(p: str):
        opened.append(p)
        return open_plain(p)

    result = effort.transcript_read(session_id=alice.id, roots=roots, opener=opener)

    assert opened == []
    assert not result.read


def test_a_symlink_in_the_projects_folder_is_not_followed(roots: Roots, tmp_path: Path) -> None:
    alice = claude_session("alice", roots)
    secret = tmp_path / "secret.jsonl"
    secret.write_text('{"type": "assistant"}\n')
    own = Path(alice.transcript_path)
    own.unlink()
    own.symlink_to(secret)
    opened: list[str] = []

    effort.transcript_read(
        session_id=alice.id, roots=roots, opener=lambda p: opened.append(p) or open_plain(p)
    )

    assert opened == []


def test_the_agents_own_transcript_is_opened(roots: Roots) -> None:
    alice = claude_session("alice", roots)
    opened: list[str] = []

    effort.transcript_read(
        session_id=alice.id, roots=roots, opener=lambda p: opened.append(p) or open_plain(p)
    )

    assert opened == [alice.transcript_path]


@pytest.mark.parametrize(
    "model", ["PGPASSWORD=Hunter2pw", "claude xoxb-1234567890-0987654321-abcDEF"]
)
def test_a_model_name_shaped_like_a_secret_is_kept_as_unknown_never_refused(
    roots: Roots, model: str
) -> None:
    """Issue 38: transcript data is an observation, masked, never refused."""
    task = make_task(make_project("acme"))
    alice = claude_session("alice", roots)
    bind(task, alice)
    t = bound_at(task, alice) + timedelta(seconds=1)
    say(alice, assistant("msg_1", t, model=model))

    assert read(alice, roots).responses == 1
    assert list(TokenUsage.objects.values_list("model", flat=True)) == [effort.UNKNOWN_MODEL]
    assert TranscriptCursor.objects.get().model in ("", effort.UNKNOWN_MODEL)
