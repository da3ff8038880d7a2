"""Observations are masked, never refused (issue 38), through two real `relaybay serve` on the
demo: every captured hook input of both agents is sent to one server as it was and to the
other with token-shaped and PGPASSWORD=-shaped strings in every string field (the session id
a token that fits an agent's id). The answers are the same but for the session id, the guard
decides the same from a folder named like a token, nothing is refused or logged as an
error, and no literal is anywhere in the poisoned server's data folder (database, WAL,
log)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.claude_code import CLAUDE_CODE
from tests.support.server import RelaybayServer, read_only_db, run_cli
from tests.support.tokens import aws_key_id, github, jwt, slack_bot

pytestmark = pytest.mark.integration

CODEX = CLAUDE_CODE.parent / "codex-0.169.0"
AGENTS = (("/hooks/claude-code", CLAUDE_CODE / "hooks"), ("/hooks/codex", CODEX / "hooks"))
GHP, SLACK, JWT = github(seed="observed"), slack_bot(seed="observed"), jwt(seed="observed")
PG = "Hunter2pw-observed"
POISON = f"{GHP} {SLACK} {JWT} PGPASSWORD={PG}"
LITERALS = (GHP, SLACK, JWT, PG)
# Fields whose value is a name the agent chose from a fixed list: changing it would change
# what the event is, not what it carries.
NAMES = frozenset({"hook_event_name", "tool_name", "notification_type", "permission_mode"})
REPO = "/home/dev/acme-shop"  # the demo project's repository; the captures ran there


def captured() -> list[tuple[str, str, dict[str, Any]]]:
    """(route, name, body) of every captured hook input of both agents, in name order."""
    return [
        (route, path.stem, json.loads(path.read_text()))
        for route, folder in AGENTS
        for path in sorted(folder.glob("*.json"))
        if not path.name.startswith("_")
    ]


def poisoned(value: Any, key: str, session_id: str) -> Any:
    """The body with a secret shape in every string field (keys kept)."""
    if isinstance(value, dict):
        return {k: poisoned(v, k, session_id) for k, v in value.items()}
    if isinstance(value, list):
        return [poisoned(v, key, session_id) for v in value]
    if not isinstance(value, str) or key in NAMES:
        return value
    if key == "session_id":
        return session_id
    if key == "cwd":
        return f"{value.rstrip('/')}/{GHP}-fix-login/PGPASSWORD={PG}"
    return f"{value} {POISON}"


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RelaybayServer, ...]]:
    started = []
    for name in ("clean", "poisoned"):
        home = tmp_path_factory.mktemp(f"observed-{name}")
        run_cli("demo", "--home", str(home))
        started.append(RelaybayServer(home=home).start())
    yield tuple(started)
    for server in started:
        server.stop()


def normalised(answer: Any, *ids: str) -> str:
    """The answer with the session ids (given and stand-in) as <id>."""
    text = json.dumps(answer, sort_keys=True)
    for found in ids:
        text = text.replace(found, "<id>")
    return re.sub(r"masked-[0-9a-f]{24}", "<id>", text)


def test_every_captured_input_with_secrets_in_every_field_answers_as_without(servers) -> None:
    clean, dirty = servers
    sent = 0
    for index, (route, name, body) in enumerate(captured()):
        clean_id, dirty_id = str(uuid.uuid4()), aws_key_id("ASIA", seed=index)
        want = clean.post_hook(route, {**body, "session_id": clean_id})
        got = dirty.post_hook(route, poisoned(body, "", dirty_id))
        assert got[0] == want[0], (name, got, want)
        assert normalised(got[1], dirty_id) == normalised(want[1], clean_id), name
        sent += 1
    assert sent >= 50


@pytest.mark.parametrize("route", [route for route, _ in AGENTS])
def test_the_guard_decides_the_same_from_a_folder_named_like_a_token(servers, route) -> None:
    clean, dirty = servers
    name = "PreToolUse.Bash.json"
    folder = CLAUDE_CODE / "hooks" if "claude" in route else CODEX / "hooks"
    body = json.loads((folder / name).read_text())
    body["tool_input"] = {**body["tool_input"], "command": "ssh prod-alias rm -rf /srv/x"}
    want = clean.post_hook(route, {**body, "session_id": str(uuid.uuid4()), "cwd": REPO})
    dirty_id = aws_key_id("ASIA", seed=route)
    got = dirty.post_hook(
        route, {**body, "session_id": dirty_id, "cwd": f"{REPO}/wt/{GHP}-fix/PGPASSWORD={PG}"}
    )
    assert want[0] == got[0] == 200
    assert json.dumps(got[1]).count("deny") == json.dumps(want[1]).count("deny") >= 1
    assert normalised(got[1], dirty_id) == normalised(want[1])


def test_nothing_was_refused_or_logged_as_an_error_and_no_literal_is_kept(servers) -> None:
    _, dirty = servers
    with read_only_db(dirty.home) as db:
        rows = db.execute("SELECT cwd, agent_session_id FROM agent_sessions_session").fetchall()
    masked = [cwd for cwd, _ in rows if "PGPASSWORD=***" in cwd and "***-fix" in cwd]
    assert len(masked) >= 30  # the observations were kept, masked
    assert sum(agent_id.startswith("masked-") for _, agent_id in rows) >= 30
    log = dirty.log()
    assert "Traceback" not in log
    assert not re.search(r"\bERROR\b|Refused", log), log[-2000:]
    for path in sorted(Path(dirty.home).rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        for literal in LITERALS:
            for form in {literal, literal.lower()}:
                assert form.encode() not in data, f"{form[:12]}… in {path.name}"
