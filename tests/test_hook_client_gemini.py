"""The command hook client as Gemini CLI runs it (`python -I -m relaybay.hook_client --url
<base>/hooks/gemini …`). Gemini reads a hook's exit code harshly: 127 (a missing command) or 3
and above deny the tool, exit 2 with stderr denies it with that text, exit 1 fails open with
a warning (the capture's answers/hook-failures.json). So the client never exits with anything
but 0 for a Gemini hook — whatever relaybay does — and prints only the server's JSON object
(stdout, which Gemini parses) and nothing on stderr (parsed when stdout is empty)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests import test_hook_client as base
from tests.sessions.gemini_payloads import HOOKS, fixture
from tests.support.server import free_port
from tests.test_hook_client import Answer, FakeRelaybay, hook_env, run_client

ROUTE = "/hooks/gemini"
fake = base.fake  # the stand-in server and the token file of the hook client's own tests
token_file = base.token_file
BODIES = sorted(p.name for p in HOOKS.glob("*.json") if not p.name.startswith("_"))


def body(name: str) -> bytes:
    """A hook input exactly as Gemini CLI 0.61.0 wrote it on the hook's stdin."""
    return (HOOKS / name).read_bytes()


def test_the_capture_shows_which_exit_codes_deny_a_tool() -> None:
    failures = fixture("answers/hook-failures.json")
    crashed = next(c for c in failures["calls"] if c["tool_name"] == "replace")
    assert crashed["answer"]["exit"] == 3  # blocked the tool, as a missing command (127) did
    assert failures["extra_hook"]["command"].startswith("/nonexistent/")


@pytest.mark.parametrize("name", BODIES)
def test_every_gemini_input_is_forwarded_as_sent_and_the_answer_printed_exactly(
    fake: FakeRelaybay, token_file: Path, name: str
) -> None:
    denied = b'{"decision":"deny","reason":"relaybay guard: acme-shop live (live) is read-only"}'
    fake.answer = Answer(200, denied)
    result = run_client(fake.url(ROUTE), token_file, body(name))
    assert (result.code, result.stdout, result.stderr) == (0, denied, b"")
    path, headers, sent = fake.requests[0]
    assert (path, sent) == (ROUTE, body(name))
    assert headers["Authorization"].startswith("Bearer ")


@pytest.mark.parametrize(
    "answer",
    [
        Answer(204),
        Answer(401, b'{"error": "token"}'),
        Answer(500, b"oops"),
        Answer(200, b"not json {"),
        Answer(200, b'["a list"]'),
        Answer(200, b'{"wake": "an owner comment"}'),  # a wake without --wait: printed only
        Answer(200, b"{}", delay=3.0),  # later than the client waits
    ],
    ids=["204", "401", "500", "garbage", "list", "wake", "slow"],
)
def test_whatever_relaybay_answers_the_exit_code_is_0(
    fake: FakeRelaybay, token_file: Path, answer: Answer
) -> None:
    fake.answer = answer
    result = run_client(fake.url(ROUTE), token_file, body("BeforeTool.run_shell_command.json"))
    assert result.code == 0
    assert result.stderr == b""
    if result.stdout:
        assert isinstance(json.loads(result.stdout), dict)


def test_relaybay_down_no_token_or_bad_arguments_exit_0_in_silence(
    token_file: Path, tmp_path: Path
) -> None:
    down = f"http://127.0.0.1:{free_port()}{ROUTE}"
    given = body("BeforeTool.run_shell_command.json")
    runs = [
        run_client(down, token_file, given),
        run_client(down, tmp_path / "no-token", given),
        run_client(down, token_file, given, "--unknown-option"),
        run_client("not a url", token_file, given),
        run_client(down, token_file, b""),
    ]
    assert {(r.code, r.stdout, r.stderr) for r in runs} == {(0, b"", b"")}


def test_a_server_that_hangs_up_mid_answer_exits_0(token_file: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(5)
        port = listener.getsockname()[1]

        def half_answer() -> None:
            conn, _ = listener.accept()
            conn.recv(65536)
            conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"decision":')
            conn.close()

        thread = threading.Thread(target=half_answer, daemon=True)
        thread.start()
        result = run_client(
            f"http://127.0.0.1:{port}{ROUTE}", token_file, body("AfterAgent.p.json")
        )
        thread.join(5)
    assert (result.code, result.stdout, result.stderr) == (0, b"", b"")


def test_the_client_is_never_killed_by_a_closed_output_pipe(
    fake: FakeRelaybay, token_file: Path
) -> None:
    """Gemini may stop reading (a hook past its timeout): a write to the closed pipe must
    not turn into Python's exit code 120, which Gemini would read as a deny."""
    fake.answer = Answer(200, json.dumps({"decision": "deny", "reason": "x" * 300_000}).encode())
    argv = ["--url", fake.url(ROUTE), "--token-file", str(token_file)]
    proc = subprocess.Popen(
        [sys.executable, "-I", "-m", "relaybay.hook_client", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=hook_env(),
        cwd="/",
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(body("BeforeTool.run_shell_command.json"))
    proc.stdin.close()
    proc.stdout.close()  # the reader is gone before the answer is written
    code = proc.wait(30)
    assert code == 0
    assert code != -signal.SIGPIPE
