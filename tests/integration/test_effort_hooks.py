"""Effort end to end (issue 31): a real `relaybay serve` whose agents' folders are throwaway
ones, the real transcripts of both agents (their lines stamped now, so they fall inside the
task's binding), a hook naming each, and what comes out: the tokens on the task in
task_get and project_snapshot, and a live `effort.updated` notice with no event id."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_events_stream import EventStream
from tests.sessions.codex_payloads import codex_payload
from tests.support.claude_code import CLAUDE_CODE
from tests.support.mcp_client import call_tools
from tests.support.server import RelaybayServer, read_only_db

pytestmark = pytest.mark.integration

FIXTURES = CLAUDE_CODE.parent
FOLDER = "-home-dev-acme-shop"


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    (tmp_path / "claude" / "projects" / FOLDER).mkdir(parents=True)
    (tmp_path / "codex" / "sessions" / "2026" / "12" / "05").mkdir(parents=True)
    return tmp_path


@pytest.fixture
def server(tmp_path: Path, agents: Path) -> Iterator[RelaybayServer]:
    env = {"CLAUDE_CONFIG_DIR": str(agents / "claude"), "CODEX_HOME": str(agents / "codex")}
    server = RelaybayServer(home=tmp_path / "home", env=env).start()
    try:
        yield server
    finally:
        server.stop()


def stamped_now(source: Path, target: Path) -> None:
    """The captured lines as they are, each `timestamp` made now (inside the binding)."""
    out = []
    for raw in source.read_text().splitlines():
        line = json.loads(raw)
        if "timestamp" in line:
            line["timestamp"] = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        out.append(json.dumps(line))
    target.write_text("\n".join(out) + "\n")


def post(server: RelaybayServer, path: str, body: dict[str, Any]) -> int:
    return server.post_hook(path, body)[0]


def call(server: RelaybayServer, *calls: tuple[str, dict[str, Any]]) -> list[str]:
    return call_tools(server.base_url, server.token, *calls)


def bound_task(server: RelaybayServer, session: str, agent_id: str) -> str:
    """A task bound to the named session whose agent linked `agent_id` (hook_session)."""
    _, created = call(
        server,
        ("project_upsert", {"slug": "acme-shop", "name": "Acme Shop"}),
        ("task_create", {"project": "acme-shop", "title": f"Work of {session}"}),
    )
    key = created.split()[1]
    call(
        server,
        ("task_bind_session", {"task": key, "session": session}),
        ("project_upsert", {"slug": "acme-shop", "session": session, "hook_session": agent_id}),
    )
    return key


def effort_of(server: RelaybayServer, key: str, want: str, within: float = 20) -> str:
    """task_get's effort line once it says `want` (the reading runs after the answer)."""
    deadline = time.monotonic() + within
    while True:
        [text] = call(server, ("task_get", {"task": key}))
        [line] = [ln for ln in text.splitlines() if ln.startswith("Effort:")]
        if want in line or time.monotonic() > deadline:
            return line
        time.sleep(0.2)


def test_a_claude_code_transcript_comes_to_the_task_with_claude_codes_own_cost(
    server: RelaybayServer, agents: Path
) -> None:
    agent_id = str(uuid.uuid4())
    key = bound_task(server, "alice", agent_id)
    path = agents / "claude" / "projects" / FOLDER / f"{agent_id}.jsonl"
    stamped_now(FIXTURES / "claude-code-2.1.332/transcripts/print-mode-lifecycle.jsonl", path)
    body = json.loads((CLAUDE_CODE / "hooks" / "PostToolUse.Bash.json").read_text())

    with EventStream(server, "?project=acme-shop") as stream:
        status = post(
            server,
            "/hooks/claude-code",
            {**body, "session_id": agent_id, "transcript_path": str(path)},
        )
        assert status in (200, 204)
        notice = stream.message()
        while notice.event != "effort.updated":
            notice = stream.message()

    assert notice.id is None  # live-only: the browser's Last-Event-ID stays the log's
    assert notice.data == {"kind": "effort.updated", "project": "acme-shop", "key": key}
    line = effort_of(server, key, "1,080 tokens")
    assert line.endswith("1,080 tokens · $0.0072"), line  # Claude Code's own: $0.0072
    [snapshot] = call(server, ("project_snapshot", {"project": "acme-shop"}))
    assert "1,080 tokens · $0.0072" in snapshot


def test_a_codex_rollout_comes_to_the_task(server: RelaybayServer, agents: Path) -> None:
    thread = str(uuid.uuid4())
    key = bound_task(server, "codex-worker", thread)
    name = f"rollout-2026-12-05T21-58-54-{thread}.jsonl"
    path = agents / "codex" / "sessions" / "2026" / "12" / "05" / name
    stamped_now(FIXTURES / "codex-0.169.0/transcripts/rollout.exec-and-resume.jsonl", path)

    body = codex_payload("PostToolUse.Bash", session_id=thread, transcript_path=str(path))
    assert post(server, "/hooks/codex", body) in (200, 204)

    line = effort_of(server, key, "6,100 tokens")
    assert "6,100 tokens" in line, line
    assert "$" in line.rsplit("·", 1)[1]  # gpt-5.5 is priced by the shipped gpt-5* entry


def test_a_transcript_path_outside_the_agents_folder_is_not_read(
    server: RelaybayServer, agents: Path, tmp_path: Path
) -> None:
    agent_id = str(uuid.uuid4())
    key = bound_task(server, "mallory", agent_id)
    elsewhere = tmp_path / "elsewhere" / f"{agent_id}.jsonl"
    elsewhere.parent.mkdir()
    stamped_now(FIXTURES / "claude-code-2.1.332/transcripts/print-mode-lifecycle.jsonl", elsewhere)
    body = json.loads((CLAUDE_CODE / "hooks" / "PostToolUse.Bash.json").read_text())
    body.update(session_id=agent_id, transcript_path=str(elsewhere))

    assert post(server, "/hooks/claude-code", body) in (200, 204)

    time.sleep(1.0)  # time for the reader, had it read anything
    assert effort_of(server, key, "", within=0).endswith("· 0 tokens · $0.00")
    with read_only_db(server.home) as db:
        assert db.execute("SELECT count(*) FROM agent_sessions_transcriptcursor").fetchone() == (0,)
