"""The door of issue 39: a made-up agent CLI (tests/fake_agent/, its own payload shapes, tool
names and answers, no turn end, no "ask") drives the whole pipeline through a real `relaybay
serve` on the demo — status, linking, owner comments, the guard and its journal, collision
warnings, effort from its own transcript format and prices — with nothing but its package,
registered by RELAYBAY_AGENT_PACKAGES."""

from __future__ import annotations

import json
import re
import sqlite3
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_client import call_tools
from tests.support.server import RelaybayServer, read_only_db, run_cli, run_django

pytestmark = pytest.mark.integration

HOOK = "/hooks/fakecli"
REPO = "/home/dev/acme-shop"  # the demo project's repository


@pytest.fixture(scope="module")
def fakecli_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """fakecli's own folder, which the server's environment names (its reader's root)."""
    home = tmp_path_factory.mktemp("fakecli")
    (home / "logs").mkdir()
    return home


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, fakecli_home: Path
) -> Iterator[RelaybayServer]:
    home = tmp_path_factory.mktemp("fake-agent")
    assert run_cli("demo", "--home", str(home)).returncode == 0
    env = {"RELAYBAY_AGENT_PACKAGES": "tests.fake_agent.hooks", "FAKECLI_HOME": str(fakecli_home)}
    started = RelaybayServer(home=home, env=env).start()
    yield started
    started.stop()


def send(server: RelaybayServer, event: str, sid: str, **fields: Any) -> Any:
    status, answer = server.post_hook(HOOK, {"ev": event, "sid": sid, "dir": REPO, **fields})
    assert status in (200, 204), answer
    return answer


def note(answer: Any) -> str:
    return (answer or {}).get("note", "")


def session_row(server: RelaybayServer, sid: str) -> dict[str, Any]:
    with read_only_db(server.home) as db:
        db.row_factory = sqlite3.Row
        row = db.execute(
            "SELECT * FROM agent_sessions_session WHERE agent_session_id = ?", (sid,)
        ).fetchone()
    assert row is not None
    return dict(row)


def test_status_linking_and_owner_comments_with_the_next_prompt(server: RelaybayServer) -> None:
    sid = str(uuid.uuid4())
    started = send(server, "begin", sid, why="startup")
    assert f"Your relaybay hook session: {sid}. Pass it as hook_session" in note(started)
    assert (session_row(server, sid)["agent"], session_row(server, sid)["hook_status"]) == (
        "fakecli",
        "working",
    )
    created, *_ = call_tools(
        server.base_url,
        server.token,
        ("task_create", {"project": "acme-shop", "title": "Fake the cart"}),
    )
    key = re.match(r"Created (\S+) ", created).group(1)
    call_tools(
        server.base_url,
        server.token,
        ("task_bind_session", {"task": key, "session": "fake-one"}),
        ("task_update", {"task": key, "session": "fake-one", "hook_session": sid, "progress": "a"}),
    )
    linked = session_row(server, sid)
    assert (linked["name"], linked["agent_exact"]) == ("fake-one", 1)
    run_django(
        server.home,
        f"""
        from tasks import services
        services.owner_comment_add(key={key!r}, body="Use the staging database.")
        """,
    )
    # No turn end to block: the comment comes with the agent's next prompt.
    prompted = send(server, "said", sid)
    assert re.search(
        rf"Owner comment on {key} \(#\d+\): Use the staging database\.", note(prompted)
    )
    send(server, "wait", sid, text="May I run the migration?")
    assert session_row(server, sid)["hook_status"] == "waiting"
    send(server, "bye", sid, why="done")
    assert session_row(server, sid)["hook_status"] == "ended"


def test_the_guard_refuses_its_shell_and_mcp_calls_and_journals_them(
    server: RelaybayServer,
) -> None:
    sid = str(uuid.uuid4())
    send(server, "begin", sid)
    shell = send(server, "before", sid, call={"tool": "run", "line": "ssh prod-alias sudo reboot"})
    assert shell["verdict"] == "refuse"
    assert "acme-shop live (live)" in shell["why"]
    rpc = {"tool": "rpc", "server": "ops", "method": "restart_app", "args": {"host": "prod-alias"}}
    assert send(server, "before", sid, call=rpc)["verdict"] == "refuse"
    with read_only_db(server.home) as db:
        rows = db.execute(
            "SELECT payload FROM tasks_event WHERE kind = 'live.action' ORDER BY id DESC LIMIT 2"
        ).fetchall()
    journal = [json.loads(row[0]) for row in rows]
    assert {(j["agent"], j["tool"], j["decision"]) for j in journal} == {
        ("fakecli", "run", "deny"),
        ("fakecli", "rpc", "deny"),
    }


def test_two_fake_sessions_changing_one_file_hear_of_each_other(server: RelaybayServer) -> None:
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    for sid in (first, second):
        send(server, "begin", sid)
    put = {"tool": "put", "target": "src/cart.py"}
    send(server, "before", first, call=put)
    told = send(server, "before", second, call=put)
    assert "edited src/cart.py" in note(told)


def answer_now(log: Path, rid: str, spent: dict[str, int]) -> None:
    """fakecli writes one model response into its transcript, stamped now."""
    at = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    said = {"t": at, "what": "said", "text": "one answer line follows"}
    line = {"t": at, "what": "answer", "rid": rid, "brain": "fakemodel-1", "spent": spent}
    with log.open("a") as out:
        out.write(json.dumps(said) + "\n" + json.dumps(line) + "\n")


def effort_line(server: RelaybayServer, key: str, want: str, within: float = 20) -> str:
    """task_get's effort line once it says `want` (the reader runs after the hook's answer)."""
    deadline = time.monotonic() + within
    while True:
        [text] = call_tools(server.base_url, server.token, ("task_get", {"task": key}))
        [line] = [ln for ln in text.splitlines() if ln.startswith("Effort:")]
        if want in line or time.monotonic() > deadline:
            return line
        time.sleep(0.2)


def test_effort_counts_the_response_after_the_binding_from_its_own_transcript(
    server: RelaybayServer, fakecli_home: Path
) -> None:
    sid = str(uuid.uuid4())
    log = fakecli_home / "logs" / f"{sid}.jsonl"
    answer_now(log, "r-before", {"in": 5000, "out": 700})  # before the binding: no task's
    created, *_ = call_tools(
        server.base_url,
        server.token,
        ("task_create", {"project": "acme-shop", "title": "Count the fake tokens"}),
    )
    key = re.match(r"Created (\S+) ", created).group(1)
    call_tools(
        server.base_url,
        server.token,
        ("task_bind_session", {"task": key, "session": "fake-counter"}),
        ("task_update", {"task": key, "session": "fake-counter", "hook_session": sid}),
    )
    answer_now(log, "r-after", {"in": 1000, "out": 200, "think": 50, "memo_hit": 1000})
    send(server, "said", sid, log=str(log))
    send(server, "after", sid, log=str(log), call={"tool": "run", "line": "pytest"})

    # fakemodel-1: 1,000 in × $2 + 200 out × $10 + 1,000 cached × $0.2 per million.
    line = effort_line(server, key, "2,200 tokens")
    assert line.endswith("2,200 tokens · $0.0042"), line
    with read_only_db(server.home) as db:
        rows = db.execute(
            "SELECT t.key, u.model, u.responses, u.input, u.output, u.cache_read, u.reasoning"
            " FROM agent_sessions_tokenusage u"
            " JOIN agent_sessions_session s ON s.id = u.session_id"
            " LEFT JOIN tasks_task t ON t.id = u.task_id"
            " WHERE s.agent_session_id = ? ORDER BY u.task_id IS NULL",
            (sid,),
        ).fetchall()
    assert rows == [
        (key, "fakemodel-1", 1, 1000, 200, 1000, 50),
        (None, "fakemodel-1", 1, 5000, 700, 0, 0),  # the session's, before it had the task
    ]


def test_a_transcript_outside_fakeclis_folder_is_not_read(
    server: RelaybayServer, tmp_path: Path
) -> None:
    sid = str(uuid.uuid4())
    elsewhere = tmp_path / "logs" / f"{sid}.jsonl"
    elsewhere.parent.mkdir()
    answer_now(elsewhere, "r-stray", {"in": 900})
    created, *_ = call_tools(
        server.base_url,
        server.token,
        ("task_create", {"project": "acme-shop", "title": "Read only fakecli's own files"}),
    )
    key = re.match(r"Created (\S+) ", created).group(1)
    call_tools(
        server.base_url,
        server.token,
        ("task_bind_session", {"task": key, "session": "fake-stray"}),
        ("task_update", {"task": key, "session": "fake-stray", "hook_session": sid}),
    )
    answer_now(elsewhere, "r-stray-2", {"in": 900})
    send(server, "after", sid, log=str(elsewhere), call={"tool": "run", "line": "ls"})
    line = effort_line(server, key, "900", within=2)  # the reader's turn came and went
    assert line.endswith(" 0 tokens · $0.00"), line
    with read_only_db(server.home) as db:
        [cursors] = db.execute(
            "SELECT count(*) FROM agent_sessions_transcriptcursor c"
            " JOIN agent_sessions_session s ON s.id = c.session_id"
            " WHERE s.agent_session_id = ?",
            (sid,),
        ).fetchone()
    assert cursors == 0
