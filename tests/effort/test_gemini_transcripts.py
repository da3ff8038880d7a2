"""Gemini CLI's chat files → counts, on the captured files (tests/fixtures/gemini-cli-0.61.0/
transcripts): a response written twice (without, then with its tool calls) counts once, a
`--resume` that rewrites the whole history with `$set.messages` counts nothing again, each
response keeps its own time, model and tokens, and only Gemini's own file is a session's."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agents.gemini_cli import transcripts as gemini
from core import prices
from effort import readers
from effort.reader import Cursor, read_step
from effort.transcripts import timestamp

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gemini-cli-0.61.0" / "transcripts"
SESSION = "5fe3fccf-eb77-4c98-a91e-efe83e125ece"


@pytest.fixture(autouse=True)
def _gemini_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """Gemini's reader, registered for this test only (agents/registry.py may not list it)."""
    monkeypatch.setitem(readers._readers, gemini.AGENT, gemini.READER)


def read_all(path: Path, limit: int = 1_000_000) -> tuple[list, Cursor]:
    cursor, found = Cursor(), []
    while True:
        step = read_step(gemini.AGENT, str(path), cursor, limit=limit)
        found += step.responses
        cursor = step.cursor
        if not step.more:
            return found, cursor


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_p_and_resume_count_each_response_once_with_its_own_time_model_and_tokens() -> None:
    path = FIXTURES / "session.p-and-resume.jsonl"
    found, cursor = read_all(path)
    messages = [r for r in records(path) if r.get("type") == "gemini"]
    ids = list(dict.fromkeys(m["id"] for m in messages))
    assert len(messages) == 12  # five written twice (with their tool calls), two once
    assert len(found) == len(ids) == 7  # six of `gemini -p`, one of `--resume`
    first = {m["id"]: m for m in reversed(messages)}  # each id's own record
    assert [r.at for r in found] == [timestamp(first[i]["timestamp"]) for i in ids]
    assert {r.model for r in found} == {"gemini-3.8-flash"}
    # 5000 + 5100 + … + 5600 prompt tokens, of which 1000 + … + 1600 cached
    assert sum(r.input for r in found) == sum(5000 + 100 * n for n in range(7)) - 9100
    assert sum(r.cache_read for r in found) == 9100
    assert sum(r.reasoning for r in found) == sum(10 + n for n in range(7))
    assert sum(r.output for r in found) == sum(60 + 2 * n for n in range(7))  # text + thoughts
    total = sum(first[i]["tokens"]["total"] for i in ids)
    assert sum(r.input + r.output + r.cache_read for r in found) == total
    assert cursor.offset == os.path.getsize(path)


def test_a_resume_rewriting_the_history_adds_nothing_read_in_small_steps() -> None:
    path = FIXTURES / "session.p-and-resume.jsonl"
    whole = read_all(path)[0]
    stepped = read_all(path, limit=2000)[0]  # the $set of the resume comes in its own step
    assert {r.key for r in stepped} == {r.key for r in whole}
    assert len({r.key for r in stepped}) == 7


def test_a_compression_counts_the_responses_and_not_its_summary() -> None:
    found, _ = read_all(FIXTURES / "session.compressed.jsonl")
    assert [r.input + r.cache_read for r in found] == [2000, 300000, 2100]
    tui, _ = read_all(FIXTURES / "session.tui-before-clear.jsonl")
    assert len(tui) == 4
    assert all(r.cache_read == 1024 and r.reasoning == 17 for r in tui)


def test_only_geminis_own_chat_file_is_a_sessions_transcript() -> None:
    name = "session-2026-12-07T12-27-5fe3fccf.jsonl"
    assert gemini.names_session(("tmp", "acme-shop", "chats", name), SESSION)
    assert not gemini.names_session(("tmp", "acme-shop", "chats", name), "0" + SESSION)
    assert not gemini.names_session(("tmp", "acme-shop", name), SESSION)
    assert not gemini.names_session(("other", "acme-shop", "chats", name), SESSION)
    assert not gemini.names_session(("tmp", "acme-shop", "chats", "notes.jsonl"), SESSION)
    assert gemini.folder({"HOME": "/home/dev"}) == "/home/dev/.gemini"
    assert gemini.folder({"HOME": "/home/dev", "GEMINI_CLI_HOME": "/srv/g"}) == "/srv/g/.gemini"


def test_a_shipped_gemini_price_prices_a_response() -> None:
    table = dict(gemini.READER.prices)
    flash = prices.price_of("gemini-2.5-flash", table)
    lite = prices.price_of("gemini-2.5-flash-lite-preview", table)
    assert flash is not None
    assert lite is not None
    assert lite.input < flash.input  # the longer key wins
    assert prices.price_of("gemini-3.8-flash", table) is None  # never a guessed price
    cost = prices.cost({"input": 4000, "output": 60, "cache_read": 1000}, flash)
    assert cost == pytest.approx((4000 * 0.30 + 60 * 2.50 + 1000 * 0.03) / 1_000_000)
