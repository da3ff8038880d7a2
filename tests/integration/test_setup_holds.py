"""The hook command `relaybay setup --apply` writes really holds: for each agent, setup is run
as a user runs it against a temporary agent home, the command it wrote for the event the
agent waits on (Claude Code's and Codex's PreToolUse, Gemini CLI's BeforeTool, with its
fail-open tail) is run with bash as the agent runs it, against a real `relaybay serve` on the
demo data with the guard at level ask on the live stand: it waits (up to 540 s, the server's
approval_wait_seconds under the hook's --hold 590) until the owner's Approve on the board,
then prints the agent's allow answer and exits 0."""

from __future__ import annotations

import json
import os
import subprocess
import time
import tomllib
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from tests.integration.test_approvals_held import AGENTS, APPROVED, approvals, decide, pending
from tests.support.guarded_demo import asking_demo
from tests.support.server import RelaybayServer, clean_env, run_cli

pytestmark = pytest.mark.integration

# the agent's --agent value, its folder option and the event whose hook holds the guard's ask
SETUP = {
    "claude-code": ("--claude-home", "PreToolUse"),
    "codex": ("--codex-home", "PreToolUse"),
    "gemini": ("--gemini-home", "BeforeTool"),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    with asking_demo(tmp_path_factory.mktemp("setup-holds")) as srv:
        yield srv


def written_command(agent: str, folder: Path, event: str) -> str:
    """The command relaybay's setup wrote for `event` in the agent's own file."""
    if agent == "codex":
        doc = tomllib.loads((folder / "config.toml").read_text())
        [group] = [
            g for g in doc["hooks"][event] if "relaybay.hook_client" in g["hooks"][0]["command"]
        ]
    else:
        name = ".gemini" if agent == "gemini" else ".claude"
        data = json.loads((folder / name / "settings.json").read_text())
        [group] = data["hooks"][event]
    [hook] = group["hooks"]
    assert hook["timeout"] == (600000 if agent == "gemini" else 600)
    return hook["command"]


@pytest.mark.parametrize("agent", sorted(SETUP))
def test_the_command_setup_wrote_waits_for_the_boards_approve(
    server: RelaybayServer, tmp_path: Path, agent: str
) -> None:
    option, event = SETUP[agent]
    folder = tmp_path / "agent-home"
    folder.mkdir()
    bin_dir = tmp_path / "bin"  # no agent CLI on PATH: setup writes its file all the same
    bin_dir.mkdir()
    done = run_cli(
        "setup", "--agent", agent, "--apply", "--port", str(server.port), option, str(folder),
        home=server.home, env={"PATH": str(bin_dir)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    command = written_command(agent, folder, event)
    assert "--hold 590" in command

    sid = str(uuid.uuid4())
    _, body = AGENTS[agent](sid)
    env = clean_env(PATH=os.environ["PATH"])
    started = time.monotonic()
    hook = subprocess.Popen(  # the command setup wrote, run as the agent runs it
        ["bash", "-c", command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        assert hook.stdin is not None
        hook.stdin.write(json.dumps(body))
        hook.stdin.close()
        request = pending(server.home, sid)
        waits = datetime.fromisoformat(request["deadline"]) - datetime.fromisoformat(
            request["requested_at"]
        )
        assert 535 <= waits.total_seconds() <= 541  # approval_wait_seconds, under the hold
        time.sleep(1.5)
        assert hook.poll() is None, "the hook answered before the owner did"
        clicked = decide(server, request["id"], "approve")
        hook.wait(timeout=15)
        out, err = hook.stdout.read(), hook.stderr.read()  # a few bytes: no pipe fills
    finally:
        if hook.poll() is None:
            hook.kill()
    answered = time.monotonic()
    assert hook.returncode == 0, err
    assert err == ""
    answer = json.loads(out) if out.strip() else None
    assert APPROVED[agent](answer), out  # Claude Code: allow; Codex, Gemini: the empty answer
    assert answered - clicked < 2.0
    assert answered - started > 1.5
    assert approvals(server.home, sid)[-1]["state"] == "approved"
