"""Transcripts → counts (issue 31): both agents' real transcripts to known totals, and a
generated corpus of what real files do — responses written twice, unknown line types, a
half-written last line, a file that shrank or was replaced, 100,000 lines."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agents.claude_code.transcripts import CLAUDE, claude_line
from agents.codex.transcripts import CODEX
from core import prices
from effort import readers
from effort.reader import Cursor, read_step
from effort.transcripts import UNKNOWN_MODEL, model_name, timestamp
from tests.effort.effort_support import api_error, captured_assistant

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CC = FIXTURES / "claude-code-2.1.332" / "transcripts"
CX = FIXTURES / "codex-0.169.0" / "transcripts"


def read_all(agent: str, path: Path, cursor: Cursor | None = None, limit: int = 1_000_000):
    """Every step to the end: (responses, totals, cursor)."""
    cursor = cursor or Cursor()
    responses, totals = [], []
    while True:
        step = read_step(agent, str(path), cursor, limit=limit)
        responses += step.responses
        totals += step.totals
        cursor = step.cursor
        if not step.more:
            return responses, totals, cursor


def tokens(responses) -> dict[str, int]:
    kinds = ("input", "output", "cache_write", "cache_read", "reasoning")
    return {k: sum(getattr(r, k) for r in responses) for k in kinds}


# --- the real transcripts -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "responses", "input_", "output", "claude_usd"),
    [
        ("print-mode-lifecycle.jsonl", 9, 900, 180, 0.0072),
        ("print-mode-mcp-calls.jsonl", 4, 400, 80, 0.0032),
    ],
)
def test_claude_code_transcripts_come_to_their_known_totals_and_to_claude_codes_own_cost(
    name: str, responses: int, input_: int, output: int, claude_usd: float
) -> None:
    found, totals, cursor = read_all(CLAUDE, CC / name)

    assert len(found) == len({r.key for r in found}) == responses
    assert tokens(found) == {
        "input": input_,
        "output": output,
        "cache_write": 0,
        "cache_read": 0,
        "reasoning": 0,
    }
    assert {r.model for r in found} == {"claude-opus-5-5"}
    assert cursor.offset == os.path.getsize(CC / name)
    [total] = totals
    assert total.total_usd == pytest.approx(claude_usd)
    # relaybay's price of the same tokens agrees with Claude Code's own figure
    price = prices.price_of("claude-opus-5-5", readers.shipped_prices())
    assert price is not None
    assert prices.cost(tokens(found), price) == pytest.approx(total.total_usd)


def test_the_codex_rollout_comes_to_its_running_total_across_exec_resume() -> None:
    found, totals, _ = read_all(CODEX, CX / "rollout.exec-and-resume.jsonl")

    assert len(found) == 5
    assert {r.model for r in found} == {"gpt-5.5"}  # named by each turn's turn_context
    assert tokens(found) == {
        "input": 6000,
        "output": 100,
        "cache_write": 0,
        "cache_read": 0,
        "reasoning": 0,
    }
    last_total = [
        json.loads(line)["payload"]["info"]["total_token_usage"]["total_tokens"]
        for line in (CX / "rollout.exec-and-resume.jsonl").read_text().splitlines()
        if '"token_count"' in line
    ][-1]
    assert sum(r.input + r.output + r.cache_read for r in found) == last_total
    assert totals == []  # Codex writes no cost of its own


def test_a_codex_response_is_dated_by_its_own_record_before_its_tool_call_ran() -> None:
    """Codex writes a response's `token_count` only after the tool it called ran, so a
    response that bound or unbound a task would be dated on the wrong side of it; the
    `token_usage_record` line written as the response came carries its own time."""
    lines = [
        json.loads(raw) for raw in (CX / "rollout.exec-and-resume.jsonl").read_text().splitlines()
    ]
    records = [timestamp(x["timestamp"]) for x in lines if x["type"] == "token_usage_record"]
    ran = [  # when the tool calls of the first and the third response started
        datetime.fromtimestamp(x["payload"]["started_at_ms"] / 1000, UTC)
        for x in lines
        if x["payload"].get("type") == "item_completed"
        and x["payload"]["item"]["type"] in ("CommandExecution", "McpToolCall")
    ]

    found = read_all(CODEX, CX / "rollout.exec-and-resume.jsonl")[0]

    assert [r.at for r in found] == records
    assert found[0].at < ran[0] < found[1].at < found[2].at < ran[1] < found[3].at


def test_codex_cached_input_is_counted_as_cache_read_not_twice(tmp_path: Path) -> None:
    rollout = tmp_path / "r.jsonl"
    write(rollout, [codex_turn("gpt-5.5"), codex_count(1000, 1000, cached=600, reasoning=30)])

    [response] = read_all(CODEX, rollout)[0]

    assert (response.input, response.cache_read, response.output) == (400, 600, 50)
    assert response.reasoning == 30


def test_a_line_claude_code_writes_itself_after_an_api_error_is_no_response(
    tmp_path: Path,
) -> None:
    """The error line is built from a real captured assistant line (tests/fixtures/
    claude-code-2.1.332) with only its model, isApiErrorMessage and usage changed."""
    at = datetime(2026, 12, 5, 21, 29, 41, tzinfo=UTC)
    real, error = captured_assistant(0, at), api_error(captured_assistant(1, at))
    path = tmp_path / "t.jsonl"
    write(path, [real, error])

    assert claude_line(error) is None
    [response] = read_all(CLAUDE, path)[0]
    assert (response.model, response.input, response.output) == ("claude-opus-5-5", 100, 20)


# --- a generated corpus ---------------------------------------------------------------------


def assistant(message_id: str, input_: int = 100, output: int = 20, **usage: int) -> dict:
    return {
        "type": "assistant",
        "timestamp": "2026-12-05T21:29:56.048Z",
        "message": {
            "id": message_id,
            "model": "claude-opus-5-5",
            "role": "assistant",
            "content": [{"type": "text", "text": "not stored"}],
            "usage": {"input_tokens": input_, "output_tokens": output, **usage},
        },
    }


def codex_turn(model: str) -> dict:
    return {
        "timestamp": "2026-12-05T21:58:54.904Z",
        "type": "turn_context",
        "payload": {"model": model},
    }


def codex_count(total: int, input_: int, cached: int = 0, output: int = 50, reasoning: int = 0):
    last = {
        "input_tokens": input_,
        "cached_input_tokens": cached,
        "output_tokens": output,
        "reasoning_output_tokens": reasoning,
    }
    return {
        "timestamp": "2026-12-05T21:58:55.147Z",
        "type": "event_msg",
        "payload": {
            "type": "token_count",
            "info": {"total_token_usage": {"total_tokens": total}, "last_token_usage": last},
        },
    }


def write(path: Path, lines: list[dict | str], *, end: str = "\n") -> None:
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines)
    path.write_text(text + end)


def test_a_response_written_as_several_lines_is_one_key(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write(path, [assistant("msg_a"), assistant("msg_a"), assistant("msg_b"), assistant("msg_a")])

    found = read_all(CLAUDE, path)[0]

    assert len(found) == 4  # the reader reports lines; the service counts each key once
    assert len({r.key for r in found}) == 2


def test_unknown_types_keys_and_broken_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    weird = assistant("msg_c", input_=7)
    weird["message"]["usage"]["brand_new_counter"] = 99
    weird["future_key"] = {"nested": [1, 2]}
    write(
        path,
        [
            {"type": "future-line-type", "assistant": "no"},
            "not json at all, says assistant",
            "[1, 2, 3]",
            '{"type": "assistant", "message": "a string"}',
            assistant("msg_a"),
            {"type": "assistant", "message": {"id": "msg_x", "usage": {"input_tokens": "9"}}},
            weird,
            {"type": "cost-state", "totalCostUSD": "free", "startTime": 1},
            "[" * 100_000 + "assistant",
        ],
    )

    found, totals, _ = read_all(CLAUDE, path)

    assert [(r.input, r.output) for r in found] == [(100, 20), (7, 20)]
    assert totals == []


def test_a_half_written_last_line_waits_for_the_next_read(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    whole, half = json.dumps(assistant("msg_a")), json.dumps(assistant("msg_b"))
    path.write_text(whole + "\n" + half[:40])

    step = read_step(CLAUDE, str(path), Cursor())
    assert len(step.responses) == 1
    assert step.cursor.offset == len(whole) + 1
    again = read_step(CLAUDE, str(path), step.cursor)
    assert again.responses == []
    assert again.cursor.offset == step.cursor.offset

    with path.open("a") as handle:
        handle.write(half[40:] + "\n")
    later = read_step(CLAUDE, str(path), again.cursor)
    assert [r.key for r in later.responses] == [read_all(CLAUDE, path)[0][1].key]


def test_a_file_that_shrank_or_was_replaced_is_read_again_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write(path, [assistant(f"msg_{i}") for i in range(10)])
    _, _, cursor = read_all(CLAUDE, path)

    write(path, [assistant("msg_0"), assistant("msg_new")])  # shorter: truncated and rewritten
    step = read_step(CLAUDE, str(path), cursor)
    assert step.restarted
    assert len(step.responses) == 2

    replacement = tmp_path / "new.jsonl"
    write(replacement, [assistant(f"msg_{i}") for i in range(12)])
    os.replace(replacement, path)  # another file under the name: longer, another inode
    step = read_step(CLAUDE, str(path), step.cursor)
    assert step.restarted
    assert len(step.responses) == 12


def test_a_hundred_thousand_lines_are_read_in_bounded_steps(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    filler = {"type": "attachment", "attachment": {"content": "x" * 200}}
    lines: list[dict | str] = []
    for i in range(100_000):
        lines.append(assistant(f"msg_{i // 8}") if i % 4 == 0 else filler)  # each twice
    write(path, lines)

    cursor, steps, responses = Cursor(), 0, []
    while True:
        step = read_step(CLAUDE, str(path), cursor, limit=1_000_000)
        assert step.cursor.offset - cursor.offset <= 1_000_000
        responses += step.responses
        cursor, steps = step.cursor, steps + 1
        if not step.more:
            break

    assert steps >= os.path.getsize(path) // 1_000_000 > 10
    assert len(responses) == 25_000
    assert len({r.key for r in responses}) == 12_500
    assert cursor.offset == os.path.getsize(path)


def test_a_line_longer_than_a_step_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    big = assistant("msg_big")
    big["message"]["content"] = [{"type": "text", "text": "y" * 3_000_000}]
    write(path, [assistant("msg_a"), big, assistant("msg_b")])

    found = read_all(CLAUDE, path, limit=1_000_000)[0]

    assert len({r.key for r in found}) == 3


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("claude-opus-5-5", "claude-opus-5-5"),
        ("gpt-5.5", "gpt-5.5"),
        ("<script>", UNKNOWN_MODEL),
        ("a" * 101, UNKNOWN_MODEL),
        (None, UNKNOWN_MODEL),
        ("model with spaces", UNKNOWN_MODEL),
    ],
)
def test_only_a_plain_model_name_is_kept(raw: object, stored: str) -> None:
    assert model_name(raw) == stored
