"""`relaybay demo` shows one Codex and one Gemini CLI session among its agents: their hooks
went through their own adapters, their effort came from transcripts in their own agents'
formats, priced by their own prices, and the board shows their marks and titles."""

from __future__ import annotations

import contextlib
import sqlite3
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import RelaybayServer, run_cli

DB = "relaybay.sqlite"
CODEX = ("cart-agent", "codex", "Codex", "CX", "Saved carts")
GEMINI = ("api-agent", "gemini", "Gemini CLI", "GM", "Rate limits per API key")


def rows(home: Path, sql: str, *params: object) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(home / DB)) as con:
        return con.execute(sql, params).fetchall()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("demo")
    result = run_cli("demo", "--home", str(home))
    assert result.returncode == 0, result.stderr
    return home


@pytest.fixture(scope="module")
def served(seeded: Path) -> Iterator[RelaybayServer]:
    server = RelaybayServer(home=seeded).start()
    try:
        yield server
    finally:
        server.stop()


def get(server: RelaybayServer, path: str) -> str:
    request = urllib.request.Request(
        server.base_url + path, headers={"Authorization": f"Bearer {server.token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read().decode()


def _session(home: Path, name: str) -> tuple:
    [found] = rows(
        home,
        "SELECT s.agent, s.agent_exact, s.agent_link, s.hook_status, s.activity, "
        "s.transcript_path, t.key, t.title, p.slug FROM agent_sessions_session s "
        "JOIN agent_sessions_taskbinding b ON b.session_id = s.id AND b.unbound_at IS NULL "
        "JOIN tasks_task t ON t.id = b.task_id JOIN tasks_project p ON p.id = t.project_id "
        "WHERE s.name = ?",
        name,
    )
    return found


def test_a_codex_and_a_gemini_session_report_through_their_own_adapters(seeded: Path) -> None:
    agent, exact, link, status, activity, transcript, _, title, _ = _session(seeded, CODEX[0])
    assert (agent, exact, link, status, title) == ("codex", 1, "agent", "working", CODEX[4])
    assert activity == "Bash"  # its PostToolUse, through Codex's tool table
    codex_home = seeded / "demo-agents" / "codex" / "sessions"
    assert Path(transcript).is_relative_to(codex_home)
    assert Path(transcript).name.startswith("rollout-")

    agent, exact, link, status, activity, transcript, _, title, _ = _session(seeded, GEMINI[0])
    assert (agent, exact, link, status, title) == ("gemini", 1, "agent", "waiting", GEMINI[4])
    # its Notification ToolPermission: the confirmation it waits on in its terminal
    assert activity.startswith("Confirm Shell Command: curl ")
    assert Path(transcript).is_relative_to(seeded / "demo-agents" / "gemini" / "tmp")
    # the events came through the hook service: their status changes are in the log
    changes = rows(
        seeded,
        "SELECT json_extract(payload, '$.session'), json_extract(payload, '$.to') "
        "FROM tasks_event WHERE kind = 'session.status_changed' ORDER BY id",
    )
    assert ("cart-agent", "working") in changes
    assert [to for who, to in changes if who == "api-agent"] == ["working", "waiting"]
    # the demo's waiting request is still Claude Code's, on invoice-agent
    assert rows(
        seeded,
        "SELECT a.agent, s.name FROM agent_sessions_approvalrequest a "
        "JOIN agent_sessions_session s ON s.id = a.session_id",
    ) == [("claude-code", "invoice-agent")]


def test_their_effort_comes_from_their_own_transcripts_priced_by_their_prices(
    seeded: Path,
) -> None:
    from agents.codex import prices as codex_prices
    from agents.gemini_cli import prices as gemini_prices
    from core.prices import price_of

    for (name, *_), table in ((CODEX, codex_prices.PRICES), (GEMINI, gemini_prices.PRICES)):
        counted = rows(
            seeded,
            "SELECT u.model, SUM(u.responses), SUM(u.input), SUM(u.output), "
            "SUM(u.cache_read), COUNT(DISTINCT u.day), COUNT(DISTINCT u.task_id) "
            "FROM agent_sessions_tokenusage u JOIN agent_sessions_session s "
            "ON s.id = u.session_id WHERE s.name = ? GROUP BY u.model",
            name,
        )
        [(model, responses, tokens_in, tokens_out, cached, days, tasks)] = counted
        assert price_of(model, table) is not None, model  # its own package prices it
        assert responses >= 20
        assert min(tokens_in, tokens_out, cached) > 0
        assert days >= 2  # over the days since its task was bound
        assert tasks == 1
    # Claude Code's transcripts stay with the Claude Code sessions
    agents = rows(
        seeded,
        "SELECT DISTINCT s.agent FROM agent_sessions_tokenusage u "
        "JOIN agent_sessions_session s ON s.id = u.session_id",
    )
    assert sorted(a for (a,) in agents) == ["claude-code", "codex", "gemini"]


def test_the_board_shows_their_marks_and_titles(seeded: Path, served: RelaybayServer) -> None:
    sessions_page = get(served, "/sessions")
    inbox = get(served, "/inbox")
    for name, _, title, mark, _ in (CODEX, GEMINI):
        *_, key, _, slug = _session(seeded, name)
        board = get(served, f"/p/{slug}")
        card = board.split(f'id="card-{key}"', 1)[1].split("</article>", 1)[0]
        assert f'<span class="agent-mark" aria-hidden="true">{mark}</span>' in card
        assert f"{name} ({title})" in card
        assert f'title="Its hooks come from {title}">{title}</span>' in sessions_page
        panel = get(served, f"/p/{slug}/t/{key}/session")
        assert f'title="Its hooks come from {title}">{title}</span>' in panel
        page = get(served, f"/t/{key}")
        assert "ef-unknown" not in page  # their models have prices
    # the Gemini session waits on its terminal's confirmation: the Inbox names it
    mark = '<span class="agent-mark" aria-hidden="true">GM</span> '
    assert f"{mark}api-agent (Gemini CLI) · Rate limits per API key" in inbox
    assert "Confirm Shell Command: curl -sI" in inbox
