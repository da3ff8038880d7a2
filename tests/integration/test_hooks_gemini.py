"""POST /hooks/gemini against a real `relaybay serve` with the real Gemini CLI 0.61.0 hook
inputs: every captured input; a `gemini -p` run and its `--resume` (SessionEnd `exit` between
them) where an owner comment reaches the second run and, unacknowledged, blocks its
AfterAgent exactly once; a resume that keeps the person's earlier prompts; the guard on the
demo's stands with its journal; effort from the captured chat file. Gemini is loaded as an
agent package from outside the registry's list (RELAYBAY_AGENT_PACKAGES)."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.sessions.gemini_payloads import CWD, NAMES, fixture, gemini_payload, sequence
from tests.support.guarded_demo import guard_mode, journal
from tests.support.mcp_client import call_tools
from tests.support.server import RelaybayServer, read_only_db, run_cli, run_django

pytestmark = pytest.mark.integration

HOOK = "/hooks/gemini"
PACKAGE = "agents.gemini_cli.hooks"
TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "gemini-cli-0.61.0" / "transcripts"


def started(home: Path, gemini_home: Path) -> RelaybayServer:
    env = {"RELAYBAY_AGENT_PACKAGES": PACKAGE, "GEMINI_CLI_HOME": str(gemini_home)}
    return RelaybayServer(home=home, env=env).start()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    home = tmp_path_factory.mktemp("gemini-demo")
    assert run_cli("demo", "--home", str(home)).returncode == 0
    server = started(home, tmp_path_factory.mktemp("gemini-home"))
    yield server
    server.stop()


@pytest.fixture
def clean(tmp_path: Path) -> Iterator[RelaybayServer]:
    """A server with no demo: the story's project is made through MCP, as an agent would."""
    server = started(tmp_path / "home", tmp_path / "gemini-home")
    yield server
    server.stop()


def post(server: RelaybayServer, body: dict[str, Any]) -> tuple[int, Any]:
    return server.post_hook(HOOK, body)


def send(server: RelaybayServer, body: dict[str, Any]) -> Any:
    status, answer = post(server, body)
    assert status in (200, 204), answer
    assert (status == 204) == (answer is None)
    return answer


def context(answer: Any) -> str:
    return (answer or {}).get("hookSpecificOutput", {}).get("additionalContext", "")


def row(server: RelaybayServer, sid: str) -> dict[str, Any]:
    with read_only_db(server.home) as db:
        db.row_factory = sqlite3.Row
        found = db.execute(
            "SELECT * FROM agent_sessions_session WHERE agent_session_id = ?", (sid,)
        ).fetchone()
    assert found is not None, sid
    return dict(found)


def bound_count(server: RelaybayServer, sid: str) -> int:
    with read_only_db(server.home) as db:
        [count] = db.execute(
            "SELECT COUNT(*) FROM agent_sessions_taskbinding b JOIN agent_sessions_session s"
            " ON s.id = b.session_id WHERE s.agent_session_id = ? AND b.unbound_at IS NULL",
            (sid,),
        ).fetchone()
    return count


# --- every captured input -----------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_captured_input_is_answered_and_never_with_allow_or_ask(
    demo: RelaybayServer, name: str
) -> None:
    sid = str(uuid.uuid4())
    status, answer = post(demo, gemini_payload(name, session_id=sid))
    assert status in (200, 204)
    assert (answer or {}).get("decision") in (None, "deny")
    assert "permissionDecision" not in json.dumps(answer)
    event = gemini_payload(name)["hook_event_name"]
    if event in ("SessionStart", "AfterAgent", "Notification", "SessionEnd", "BeforeTool"):
        assert "hookSpecificOutput" not in (answer or {})  # context Gemini would not keep
    handled = event not in ("BeforeModel", "AfterModel", "BeforeToolSelection", "PreCompress")
    with read_only_db(demo.home) as db:
        rows = db.execute(
            "SELECT agent FROM agent_sessions_session WHERE agent_session_id = ?", (sid,)
        ).fetchall()
    if event == "SessionEnd":
        assert rows == []  # an end of a session relaybay never saw is dropped
    else:
        assert rows == ([("gemini",)] if handled else [])


def bind(server: RelaybayServer, sid: str, name: str) -> str:
    """A new task of the demo's acme-shop, bound to the session `name` the agent linked."""
    created, *_ = call_tools(
        server.base_url,
        server.token,
        ("task_create", {"project": "acme-shop", "title": f"Work of {name}"}),
    )
    key = re.match(r"Created (\S+) ", created).group(1)
    call_tools(
        server.base_url,
        server.token,
        ("task_bind_session", {"task": key, "session": name}),
        ("task_update", {"task": key, "session": name, "hook_session": sid}),
    )
    return key


def task_events(server: RelaybayServer, key: str) -> list[str]:
    with read_only_db(server.home) as db:
        return [
            kind
            for (kind,) in db.execute(
                "SELECT e.kind FROM tasks_event e JOIN tasks_task t ON t.id = e.task_id"
                " WHERE t.key = ? ORDER BY e.id",
                (key,),
            )
        ]


def test_the_interactive_quit_fires_session_end_three_times_and_only_the_first_counts(
    demo: RelaybayServer,
) -> None:
    sid = str(uuid.uuid4())
    after_clear = [b for b in sequence("tui") if b["session_id"].startswith("c1a3b29c")]
    ends = [b for b in after_clear if b["hook_event_name"] == "SessionEnd"]
    assert len(ends) == 3
    send(demo, {**after_clear[0], "session_id": sid})  # SessionStart clear
    key = bind(demo, sid, "gemini-tui")
    for body in after_clear[1:]:
        if body["hook_event_name"] != "SessionEnd":
            send(demo, {**body, "session_id": sid})
    assert row(demo, sid)["hook_status"] == "idle"  # AfterAgent: the turn finished
    before = task_events(demo, key)
    for body in ends:
        send(demo, {**body, "session_id": sid})
    session = row(demo, sid)
    assert (session["hook_status"], session["activity"]) == ("idle", "process ended (exit)")
    assert bound_count(demo, sid) == 1
    assert task_events(demo, key) == before  # no unbinding, no status change, thrice


# --- the -p run, the owner's comment, the --resume run ----------------------------------------


def runs() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The captured `gemini -p` run and its `--resume` run, split at the resume's start."""
    bodies = sequence("p-two-turns")
    cut = next(i for i, b in enumerate(bodies) if b.get("source") == "resume")
    return bodies[:cut], bodies[cut:]


def owner_comment(server: RelaybayServer, key: str, body: str) -> None:
    run_django(
        server.home,
        f"""
        from tasks import services
        services.owner_comment_add(key={key!r}, body={body!r})
        """,
    )


def test_a_comment_written_between_two_runs_reaches_the_resume_and_blocks_its_end_once(
    clean: RelaybayServer,
) -> None:
    sid = str(uuid.uuid4())
    first, second = runs()
    answers: list[tuple[str, Any]] = []

    def play(bodies: list[dict[str, Any]]) -> None:
        for body in bodies:
            answers.append((body["hook_event_name"], send(clean, {**body, "session_id": sid})))

    call_tools(
        clean.base_url,
        clean.token,
        ("project_upsert", {"slug": "acme-shop", "repo_path": CWD}),
    )
    play(first[:2])  # SessionStart, BeforeAgent
    assert answers[0] == ("SessionStart", None)  # nothing that would start the stored prompt
    assert f"Your relaybay hook session: {sid}. Pass it as hook_session" in context(answers[1][1])
    created, *_ = call_tools(
        clean.base_url,
        clean.token,
        ("task_create", {"project": "acme-shop", "title": "Fix the README"}),
    )
    key = re.match(r"Created (\S+) ", created).group(1)
    call_tools(
        clean.base_url,
        clean.token,
        ("task_bind_session", {"task": key, "session": "gemini-one"}),
        ("task_update", {"task": key, "session": "gemini-one", "hook_session": sid}),
    )
    play(first[2:])  # the tools, AfterAgent, SessionEnd exit
    assert answers[-2] == ("AfterAgent", None)  # nothing waited: the turn ends
    session = row(clean, sid)
    assert (session["name"], session["agent_exact"], session["agent"]) == (
        "gemini-one",
        1,
        "gemini",
    )
    assert (session["hook_status"], session["activity"]) == ("idle", "process ended (exit)")
    assert bound_count(clean, sid) == 1  # the process ended, the work did not

    owner_comment(clean, key, "Use the staging database.")
    answers.clear()
    play(second[:2])  # SessionStart resume, BeforeAgent
    assert answers[0] == ("SessionStart", None)
    prompt = context(answers[1][1])
    assert re.search(rf"Owner comment on {key} \(#\d+\): Use the staging database\.", prompt)
    assert f"Your relaybay hook session: {sid}." in prompt
    assert "You have 1 unread owner comment(s)" in prompt

    # The run's end: the comment was delivered and is not acknowledged → one block.
    after_agent = next(b for b in second if b["hook_event_name"] == "AfterAgent")
    blocked = send(clean, {**after_agent, "session_id": sid})
    assert blocked["decision"] == "deny"
    assert blocked["reason"].startswith("relaybay: the owner commented on your tasks.")
    assert "Use the staging database." in blocked["reason"]
    # The reason comes back as a prompt; the continuation calls a tool, after which Gemini's
    # stop_hook_active says false again: relaybay remembers it blocked this turn.
    continuation = gemini_payload(
        "BeforeAgent.continuation-after-AfterAgent-block", session_id=sid, prompt=blocked["reason"]
    )
    send(clean, continuation)
    for name in ("BeforeTool.run_shell_command", "AfterTool.run_shell_command"):
        send(clean, gemini_payload(name, session_id=sid))
    assert send(clean, {**after_agent, "session_id": sid, "stop_hook_active": False}) is None
    send(clean, {**second[-1], "session_id": sid})  # SessionEnd exit
    assert row(clean, sid)["hook_status"] == "idle"
    assert bound_count(clean, sid) == 1


def test_a_resume_keeps_the_persons_earlier_prompts(clean: RelaybayServer) -> None:
    """Gemini stores SessionStart's context at the start of a `-p` prompt, and `--resume`
    drops every stored prompt that starts with `<hook_context>` (the capture shows both);
    relaybay's answers put nothing there, so the prompt of the first run survives."""
    seen = fixture("answers/additionalContext.model_saw.json")
    assert seen["BeforeAgent_hook_saw_prompt"].startswith("<hook_context>CTX-SESSIONSTART")
    resent = fixture("api/resume-request-contents.p.json")
    texts = [p.get("text", "") for c in resent if c["role"] == "user" for p in c["parts"]]
    assert not any(t.startswith("<hook_context>") for t in texts)

    def stored_prompt(start_answer: Any, prompt: str) -> str:
        """The prompt as `gemini -p` stores it, given relaybay's SessionStart answer."""
        added = context(start_answer)
        return f"<hook_context>{added}</hook_context>\n\n{prompt}" if added else prompt

    sid = str(uuid.uuid4())
    stored = []
    for run in runs():
        start, prompt = run[0], run[1]
        start_answer = send(clean, {**start, "session_id": sid})
        prompt_answer = send(clean, {**prompt, "session_id": sid})
        stored.append(stored_prompt(start_answer, prompt["prompt"]))
        assert context(prompt_answer)  # relaybay's lines: their own part, after the prompt
        for body in run[2:]:
            send(clean, {**body, "session_id": sid})
    kept_on_resume = [p for p in stored if not p.startswith("<hook_context>")]
    assert kept_on_resume == [
        "List the files here, write notes, fix the README, then file a relaybay task for the "
        "README.",
        "Anything else?",
    ]


# --- the guard on the demo's stands ---------------------------------------------------------


def shell(server: RelaybayServer, sid: str, command: str) -> Any:
    body = gemini_payload("BeforeTool.run_shell_command", session_id=sid)
    return send(server, {**body, "tool_input": {"command": command, "description": "x"}})


def test_the_guard_stands_in_front_of_gemini(demo: RelaybayServer) -> None:
    sid = str(uuid.uuid4())
    restart = "ssh prod-alias sudo systemctl restart app"
    guard_mode(demo.home, "block")
    denied = shell(demo, sid, restart)
    assert denied.keys() == {"decision", "reason"}
    assert denied["decision"] == "deny"
    assert denied["reason"].startswith(
        "relaybay guard: acme-shop live (live) is read-only for agents; this looks like a "
        "remote change over ssh (matched 'prod-alias')."
    )
    entry = journal(demo.home)
    assert (entry["agent"], entry["decision"], entry["sent"]) == ("gemini", "deny", "deny")

    other_server = gemini_payload(
        "BeforeTool.mcp",
        session_id=sid,
        tool_name="mcp_ops_restart_app",
        tool_input={"host": "prod-alias"},
        mcp_context={"server_name": "ops", "tool_name": "restart_app", "url": "http://x/mcp"},
    )
    assert send(demo, other_server)["decision"] == "deny"  # guarded like Claude's mcp__ops__…
    assert (journal(demo.home)["agent"], journal(demo.home)["tool"]) == (
        "gemini",
        "mcp_ops_restart_app",
    )
    assert send(demo, gemini_payload("BeforeTool.mcp", session_id=sid)) is None  # relaybay's own

    guard_mode(demo.home, "block", live_level="ask")
    asked = shell(demo, sid, restart)
    assert asked["decision"] == "deny"  # never "ask": it hangs gemini -p
    assert "ask the owner in the chat" in asked["reason"]
    entry = journal(demo.home)
    assert (entry["agent"], entry["decision"], entry["sent"]) == ("gemini", "ask", "deny")

    guard_mode(demo.home, "warn")
    assert shell(demo, sid, restart) is None  # Gemini ignores BeforeTool's context …
    after = gemini_payload("AfterTool.run_shell_command", session_id=sid)
    warned = context(send(demo, {**after, "tool_input": {"command": restart}}))
    assert "(warn mode: not blocked)" in warned  # … so the warning comes with the output
    assert journal(demo.home)["decision"] == "warn"

    assert shell(demo, sid, "ssh prod-alias uptime") is None  # a read passes silently
    assert (journal(demo.home)["decision"], journal(demo.home)["agent"]) == ("allow", "gemini")
    guard_mode(demo.home, "block")


def test_a_tool_permission_makes_the_session_wait_with_its_question(demo: RelaybayServer) -> None:
    sid = str(uuid.uuid4())
    send(demo, gemini_payload("SessionStart.startup.tui", session_id=sid))
    send(demo, gemini_payload("BeforeTool.run_shell_command", session_id=sid))
    send(demo, gemini_payload("Notification.exec.tui", session_id=sid))
    waiting = row(demo, sid)
    assert (waiting["hook_status"], waiting["activity"]) == (
        "waiting",
        "Confirm Shell Command: touch tui.txt",
    )
    send(demo, gemini_payload("AfterTool.run_shell_command.tui", session_id=sid))
    assert row(demo, sid)["hook_status"] == "working"


# --- effort from the chat file ---------------------------------------------------------------


def shifted(lines: list[str], to: datetime) -> list[str]:
    """The records with every time moved so the first one is `to` (the gaps kept)."""
    stamp = re.compile(r'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z)"')
    times = [datetime.fromisoformat(t.replace("Z", "+00:00")) for t in stamp.findall(lines[0])]
    delta = to - times[0]

    def move(match: re.Match[str]) -> str:
        at = datetime.fromisoformat(match.group(1).replace("Z", "+00:00")) + delta
        return '"' + at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z" + '"'

    return [stamp.sub(move, line) for line in lines]


def effort_line(server: RelaybayServer, key: str, want: str, within: float = 20) -> str:
    deadline = time.monotonic() + within
    while True:
        [text] = call_tools(server.base_url, server.token, ("task_get", {"task": key}))
        [line] = [ln for ln in text.splitlines() if ln.startswith("Effort:")]
        if want in line or time.monotonic() > deadline:
            return line
        time.sleep(0.2)


def test_effort_counts_the_resumed_runs_response_for_the_task_bound_before_it(
    tmp_path: Path,
) -> None:
    gemini_home = tmp_path / "gemini-home"
    server = started(tmp_path / "home", gemini_home)
    try:
        sid = "5fe3fccf-eb77-4c98-a91e-efe83e125ece"  # the captured file's session
        chats = gemini_home / ".gemini" / "tmp" / "acme-shop" / "chats"
        chats.mkdir(parents=True)
        path = chats / "session-2026-12-07T12-27-5fe3fccf.jsonl"
        lines = (TRANSCRIPTS / "session.p-and-resume.jsonl").read_text().splitlines()
        cut = next(i for i, ln in enumerate(lines) if i and ln.startswith('{"sessionId"'))
        now = datetime.now(UTC)
        # The `-p` run answered ten minutes ago, before the task was bound to the session …
        path.write_text("\n".join(shifted(lines[:cut], now - timedelta(minutes=10))) + "\n")
        first, second = runs()
        call_tools(
            server.base_url,
            server.token,
            ("project_upsert", {"slug": "acme-shop", "repo_path": CWD}),
        )
        send(server, {**first[0], "transcript_path": str(path)})
        created, *_ = call_tools(
            server.base_url,
            server.token,
            ("task_create", {"project": "acme-shop", "title": "Count Gemini's tokens"}),
        )
        key = re.match(r"Created (\S+) ", created).group(1)
        call_tools(
            server.base_url,
            server.token,
            ("task_bind_session", {"task": key, "session": "gemini-counter"}),
            ("task_update", {"task": key, "session": "gemini-counter", "hook_session": sid}),
        )
        # … the resumed run answers now, appending to the same file (its $set rewrites the
        # whole history, which counts nothing again).
        with path.open("a") as out:
            out.write("\n".join(shifted(lines[cut:], datetime.now(UTC))) + "\n")
        for resumed in second[:2]:
            send(server, {**resumed, "transcript_path": str(path)})
        send(server, {**second[-1], "transcript_path": str(path)})  # SessionEnd: read again

        # The resumed response: 5,600 in (1,600 of them cached) and 56 + 16 thoughts out.
        line = effort_line(server, key, "5,672 tokens")
        assert "5,672 tokens" in line, line
        assert "cost unknown" in line  # gemini-3.8-flash has no shipped price: no guess
        with read_only_db(server.home) as db:
            rows = db.execute(
                "SELECT t.key, u.model, u.responses, u.input, u.output, u.cache_read,"
                " u.reasoning FROM agent_sessions_tokenusage u"
                " JOIN agent_sessions_session s ON s.id = u.session_id"
                " LEFT JOIN tasks_task t ON t.id = u.task_id"
                " WHERE s.agent_session_id = ? ORDER BY u.task_id IS NULL",
                (sid,),
            ).fetchall()
        first_run = sum(5000 + 100 * n for n in range(6))
        assert rows == [
            (key, "gemini-3.8-flash", 1, 4000, 72, 1600, 16),
            (None, "gemini-3.8-flash", 6, first_run - 7500, 390, 7500, 75),
        ]
    finally:
        server.stop()
    shutil.rmtree(gemini_home, ignore_errors=True)
