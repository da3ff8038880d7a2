"""The door of issue 39: a made-up agent CLI (tests/fake_agent/, its own payload shapes, tool
names and answers, no turn end, no "ask") drives the whole pipeline through a real `relaybay
serve` on the demo — status, linking, owner comments, the guard and its journal, collision
warnings — with nothing but its package, registered by RELAYBAY_AGENT_PACKAGES."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.mcp_client import call_tools
from tests.support.server import RelaybayServer, read_only_db, run_cli, run_django

pytestmark = pytest.mark.integration

HOOK = "/hooks/fakecli"
REPO = "/home/dev/acme-shop"  # the demo project's repository


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    home = tmp_path_factory.mktemp("fake-agent")
    assert run_cli("demo", "--home", str(home)).returncode == 0
    started = RelaybayServer(
        home=home, env={"RELAYBAY_AGENT_PACKAGES": "tests.fake_agent.hooks"}
    ).start()
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
        db.row_factory = __import__("sqlite3").Row
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
