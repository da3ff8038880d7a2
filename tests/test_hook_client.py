"""The command hook client as Claude Code runs it: a `python -I` subprocess (§4, §5).

"Never in the way when relaybay is down": exit 0 and no output on any failure, 0.3 s per
network step, never a system proxy, only a 200 JSON object on stdout; --wait exits 2 with
the wake lines on stderr. `relaybay hook` is the same forwarder behind the CLI.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from relaybay import hook_client
from tests.support.claude_code import CLAUDE_CODE
from tests.support.server import free_port

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = CLAUDE_CODE / "hooks"
TOKEN = "tok-" + "x" * 40
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
POST_TOOL_USE = {
    "session_id": "78a6a9df-545d-4090-8a48-00105ebe22e7",
    "cwd": "/home/dev/acme-shop",
    "hook_event_name": "PostToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "echo héllo"},
    "tool_response": {"stdout": "héllo", "stderr": ""},
}


BODY = json.dumps(POST_TOOL_USE, ensure_ascii=False).encode()


def fixture_body(name: str) -> bytes:
    """A hook input exactly as Claude Code 2.1.332 sent it."""
    return (FIXTURES / name).read_bytes()


@dataclass
class Answer:
    status: int = 204
    body: bytes = b""
    delay: float = 0.0
    content_type: str = "application/json"


@dataclass
class FakeRelaybay:
    """A tiny HTTP server standing in for relaybay: answers `answer`, records requests."""

    answer: Answer = field(default_factory=Answer)
    requests: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    port: int = 0

    def url(self, path: str = "/hooks/claude-code") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def fake() -> Iterator[FakeRelaybay]:
    state = FakeRelaybay()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            state.requests.append((self.path, dict(self.headers.items()), body))
            answer = state.answer
            time.sleep(answer.delay)
            self.send_response(answer.status)
            if answer.status != 204:
                self.send_header("Content-Type", answer.content_type)
                self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            if answer.status != 204:
                with contextlib.suppress(OSError):  # a client that gave up already
                    self.wfile.write(answer.body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return path


def hook_env(**extra: str) -> dict[str, str]:
    """The test process's environment without proxies, relaybay settings or Claude's ids."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k.upper() not in PROXY_VARS
        and k.upper() != "NO_PROXY"
        and not k.startswith(("RELAYBAY_", "CLAUDE_CODE_"))
    }
    env.update(extra)
    return env


@dataclass
class Run:
    code: int
    stdout: bytes
    stderr: bytes
    seconds: float


def run_client(
    url: str,
    token_file: Path,
    body: bytes,
    *extra: str,
    env: dict[str, str] | None = None,
    command: list[str] | None = None,
    timeout: float = 30,
) -> Run:
    """`python -I -m relaybay.hook_client --url … --token-file … [extra]`, stdin = body."""
    argv = command or [sys.executable, "-I", "-m", "relaybay.hook_client"]
    started = time.monotonic()
    proc = subprocess.run(
        [*argv, "--url", url, "--token-file", str(token_file), *extra],
        input=body,
        capture_output=True,
        env=hook_env() if env is None else env,
        cwd="/",  # -I leaves the checkout off sys.path: only the installed package counts
        timeout=timeout,
        check=False,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started)


def relaybay_hook_command() -> list[str]:
    return [sys.executable, "-m", "relaybay", "hook"]


# --- relaybay down or slow ------------------------------------------------------------


def fastest(runs: list[Run]) -> float:
    """The quickest of a few runs: what the client costs, not a busy machine's hiccup."""
    return min(r.seconds for r in runs)


def test_a_closed_port_exits_0_at_once_and_prints_nothing(token_file: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/hooks/claude-code"
    runs = [run_client(url, token_file, BODY) for _ in range(3)]
    assert {(r.code, r.stdout, r.stderr) for r in runs} == {(0, b"", b"")}
    assert fastest(runs) < 0.5, f"took {fastest(runs):.2f}s"


def test_a_listener_that_never_answers_costs_about_one_read_step(token_file: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.listen(16)
        port = listener.getsockname()[1]
        accepted: list[socket.socket] = []

        def accept_and_keep() -> None:
            conn, _ = listener.accept()
            accepted.append(conn)  # holds the connection open, never answers

        thread = threading.Thread(target=accept_and_keep, daemon=True)
        thread.start()
        result = run_client(f"http://127.0.0.1:{port}/hooks/claude-code", token_file, BODY)
        thread.join(2)
        for conn in accepted:
            conn.close()
    assert (result.code, result.stdout, result.stderr) == (0, b"", b"")
    assert accepted, "the client never connected"
    assert result.seconds < 1.5, f"took {result.seconds:.2f}s"
    print(f"\nhanging server: the hook client exited after {result.seconds:.2f}s")


def test_a_server_that_answers_too_late_is_given_up_on(
    fake: FakeRelaybay, token_file: Path
) -> None:
    fake.answer = Answer(200, b'{"late": true}', delay=1.5)
    result = run_client(fake.url(), token_file, BODY)
    assert (result.code, result.stdout) == (0, b"")
    assert result.seconds < 1.2, f"took {result.seconds:.2f}s"


def test_a_missing_token_file_exits_0_without_posting(fake: FakeRelaybay, tmp_path: Path) -> None:
    result = run_client(fake.url(), tmp_path / "no-token", BODY)
    assert (result.code, result.stdout, result.stderr) == (0, b"", b"")
    assert fake.requests == []


@pytest.mark.parametrize(
    "argv",
    [[], ["--url"], ["--token-file", "/nowhere"], ["--url", "not a url", "--token-file", "/x"]],
    ids=["nothing", "url-without-value", "no-url", "bad-url"],
)
def test_incomplete_arguments_exit_0_silently(argv: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-I", "-m", "relaybay.hook_client", *argv],
        input=b"{}",
        capture_output=True,
        env=hook_env(),
        timeout=30,
        check=False,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


# --- what is printed ------------------------------------------------------------------


def test_a_200_json_object_is_printed_exactly(fake: FakeRelaybay, token_file: Path) -> None:
    answer = (
        b'{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "\xc3\xa9"}}'
    )
    fake.answer = Answer(200, answer)
    result = run_client(fake.url(), token_file, fixture_body("PostToolUse.Bash.json"))
    assert (result.code, result.stdout, result.stderr) == (0, answer, b"")


@pytest.mark.parametrize(
    "answer",
    [
        Answer(204),
        Answer(200, b"<html>not json</html>", content_type="text/html"),
        Answer(200, b'["a", "list"]'),
        Answer(200, b""),
        Answer(400, b'{"error": "bad"}'),
        Answer(401, b"Authorization: Bearer <token> required"),
        Answer(500, b'{"decision": "block", "reason": "x"}'),
    ],
    ids=["204", "200-html", "200-json-list", "200-empty", "400", "401", "500-json"],
)
def test_anything_but_a_200_json_object_prints_nothing(
    fake: FakeRelaybay, token_file: Path, answer: Answer
) -> None:
    fake.answer = answer
    result = run_client(fake.url(), token_file, fixture_body("PostToolUse.Bash.json"))
    assert (result.code, result.stdout, result.stderr) == (0, b"", b"")
    assert len(fake.requests) == 1


def test_system_proxies_are_never_used(fake: FakeRelaybay, token_file: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    env = hook_env(**dict.fromkeys(PROXY_VARS, dead), NO_PROXY="", no_proxy="")
    fake.answer = Answer(200, b'{"ok": 1}')
    result = run_client(fake.url(), token_file, BODY, env=env)
    assert (result.code, result.stdout) == (0, b'{"ok": 1}')
    assert fake.requests[0][0] == "/hooks/claude-code"  # an origin-form path: no proxy hop


def raw_server(answer: bytes) -> tuple[socket.socket, threading.Thread]:
    """A listener that reads one request and writes `answer` as it is, then closes."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.settimeout(5)
            received = b""
            while b"\r\n\r\n" not in received:
                received += conn.recv(65536)
            head, _, rest = received.partition(b"\r\n\r\n")
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
            while len(rest) < length:
                rest += conn.recv(65536)
            conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        b'\r\n6\r\n{"a": \r\n3;ext=1\r\n[1]\r\n1\r\n}\r\n0\r\n\r\n',
        b'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{"a": [1]}',
        b'HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n{"a": [1]}',
    ],
    ids=["chunked", "until-close", "content-length"],
)
def test_every_body_framing_of_a_200_is_read(token_file: Path, answer: bytes) -> None:
    listener, thread = raw_server(answer)
    with listener:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/hooks/claude-code"
        result = run_client(url, token_file, BODY)
        thread.join(5)
    assert (result.code, result.stdout, result.stderr) == (0, b'{"a": [1]}', b"")


@pytest.mark.parametrize(
    "answer",
    [
        b'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"a": 1}',  # ends early
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",  # bad chunk
        b"garbage\r\n\r\n",
        b"",
    ],
    ids=["short-body", "bad-chunk", "no-status-line", "closed-at-once"],
)
def test_a_broken_answer_prints_nothing(token_file: Path, answer: bytes) -> None:
    listener, thread = raw_server(answer)
    with listener:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/hooks/claude-code"
        result = run_client(url, token_file, BODY)
        thread.join(5)
    assert (result.code, result.stdout, result.stderr) == (0, b"", b"")


# --- what is sent ---------------------------------------------------------------------


def test_the_body_token_and_content_type_reach_the_server(
    fake: FakeRelaybay, token_file: Path
) -> None:
    body = fixture_body("PostToolUse.Bash.json")
    env = hook_env(CLAUDE_CODE_HOST_SESSION_ID="local_abc", CLAUDE_CODE_SESSION_ATTENDED="1")
    run_client(fake.url(), token_file, body, env=env)
    [(path, headers, sent)] = fake.requests
    assert path == "/hooks/claude-code"
    assert sent == body  # not SessionStart: forwarded byte for byte, even with the env set
    assert headers["Authorization"] == f"Bearer {TOKEN}"
    assert headers["Content-Type"] == "application/json"
    assert "Origin" not in headers


@pytest.mark.parametrize("attended", ["1", "0"])
def test_session_start_carries_the_desktop_session_from_the_environment(
    fake: FakeRelaybay, token_file: Path, attended: str
) -> None:
    body = fixture_body("SessionStart.startup.interactive.json")
    env = hook_env(
        CLAUDE_CODE_HOST_SESSION_ID="local_0f3c9c1e", CLAUDE_CODE_SESSION_ATTENDED=attended
    )
    run_client(fake.url(), token_file, body, env=env)
    sent = json.loads(fake.requests[0][2])
    assert sent == {
        **json.loads(body),
        "relaybay_host_session": "local_0f3c9c1e",
        "relaybay_host_attended": attended,
    }


def test_session_start_without_a_desktop_session_is_forwarded_unchanged(
    fake: FakeRelaybay, token_file: Path
) -> None:
    body = fixture_body("SessionStart.startup.print.json")
    run_client(fake.url(), token_file, body, env=hook_env(CLAUDE_CODE_SESSION_ATTENDED="0"))
    assert fake.requests[0][2] == body


def test_a_body_that_is_not_json_is_forwarded_as_is(fake: FakeRelaybay, token_file: Path) -> None:
    body = b'{"hook_event_name": "SessionStart", broken'
    fake.answer = Answer(400, b"not JSON")
    env = hook_env(CLAUDE_CODE_HOST_SESSION_ID="local_x")
    result = run_client(fake.url(), token_file, body, env=env)
    assert fake.requests[0][2] == body
    assert (result.code, result.stdout) == (0, b"")


# --- --wait -----------------------------------------------------------------------------


def test_wait_with_a_wake_answer_writes_the_lines_to_stderr_and_exits_2(
    fake: FakeRelaybay, token_file: Path
) -> None:
    lines = "Owner comment on acme-shop-1 (#9): please look\nAnswer with comment_add."
    # Longer than a network step: --wait holds the read open while the server waits.
    fake.answer = Answer(200, json.dumps({"wake": lines}).encode(), delay=1.0)
    result = run_client(
        fake.url("/hooks/claude-code/wait"), token_file, fixture_body("Stop.first.json"), "--wait"
    )
    assert (result.code, result.stdout) == (2, b"")
    assert result.stderr.decode() == lines
    assert fake.requests[0][2] == fixture_body("Stop.first.json")


@pytest.mark.parametrize(
    "answer",
    [Answer(204), Answer(200, b'{"wake": ""}'), Answer(503, b'{"wake": "x"}')],
    ids=["204", "empty-wake", "503"],
)
def test_wait_without_a_wake_exits_0_silently(
    fake: FakeRelaybay, token_file: Path, answer: Answer
) -> None:
    fake.answer = answer
    result = run_client(fake.url(), token_file, fixture_body("Stop.first.json"), "--wait")
    assert (result.code, result.stderr) == (0, b"")


def test_wait_against_a_closed_port_exits_0_at_once(token_file: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/hooks/claude-code/wait"
    runs = [run_client(url, token_file, fixture_body("Stop.first.json"), "--wait")]
    runs += [run_client(url, token_file, fixture_body("Stop.first.json"), "--wait")]
    assert {(r.code, r.stdout, r.stderr) for r in runs} == {(0, b"", b"")}
    assert fastest(runs) < 0.5


def test_a_wake_answer_without_wait_is_only_printed(fake: FakeRelaybay, token_file: Path) -> None:
    fake.answer = Answer(200, b'{"wake": "line"}')
    result = run_client(fake.url(), token_file, fixture_body("Stop.first.json"))
    assert (result.code, result.stdout, result.stderr) == (0, b'{"wake": "line"}', b"")


# --- standard library only --------------------------------------------------------------


def test_the_client_needs_nothing_but_the_standard_library(
    fake: FakeRelaybay, token_file: Path, tmp_path: Path
) -> None:
    """The relaybay package alone, no site-packages at all (-S): nothing else is imported."""
    package = tmp_path / "lib" / "relaybay"
    package.mkdir(parents=True)
    for name in ("__init__.py", "hook_client.py"):
        shutil.copy(ROOT / "relaybay" / name, package / name)
    fake.answer = Answer(200, b'{"ok": true}')
    script = (
        "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); "
        "sys.argv[0] = 'hook_client'; runpy.run_module('relaybay.hook_client', run_name='__main__')"
    )
    result = run_client(
        fake.url(),
        token_file,
        b"{}",
        command=[sys.executable, "-I", "-S", "-c", script, str(tmp_path / "lib")],
    )
    assert (result.code, result.stdout, result.stderr) == (0, b'{"ok": true}', b"")


def test_importing_the_client_loads_no_third_party_module() -> None:
    code = (
        "import sys, relaybay.hook_client; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('django', 'relaybay_site', 'importlib_metadata') or m == 'importlib.metadata'))"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd="/", check=True
    )
    assert proc.stdout.strip() == "[]"


# --- start-up: only what one POST needs (issue 18) ----------------------------------------

# Each of these costs milliseconds of every hook event's start-up (bench/README.md, "Hook
# client"): the wrappers socket and signal (enum, selectors, array), typing, the idna codec
# getaddrinfo loads for a text host name, and the HTTP and URL libraries.
HEAVY = frozenset(
    {
        "argparse",
        "email",
        "encodings.idna",
        "enum",
        "http",
        "http.client",
        "selectors",
        "signal",
        "socket",
        "ssl",
        "typing",
        "urllib",
        "urllib.parse",
        "urllib.request",
    }
)


def imported_modules(stderr: bytes) -> set[str]:
    """The module names of `python -X importtime`'s lines."""
    names = set()
    for line in stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    names.discard("imported package")  # the header line
    return names


def run_with_importtime(url: str, token_file: Path, body: bytes) -> tuple[Run, set[str]]:
    command = [sys.executable, "-I", "-X", "importtime", "-m", "relaybay.hook_client"]
    result = run_client(url, token_file, body, command=command)
    return result, imported_modules(result.stderr)


@pytest.mark.parametrize(
    ("answer", "printed", "allowed"),
    [
        (Answer(204), b"", frozenset()),
        (Answer(200, b'{"hookSpecificOutput": {}}'), b'{"hookSpecificOutput": {}}', {"json"}),
    ],
    ids=["204-nothing-to-read", "200-json-answer"],
)
def test_one_event_imports_only_what_one_post_needs(
    fake: FakeRelaybay, token_file: Path, answer: Answer, printed: bytes, allowed: set[str]
) -> None:
    """json (with re and enum) only once there is an answer to read; never the rest."""
    fake.answer = answer
    result, modules = run_with_importtime(fake.url(), token_file, BODY)
    assert (result.code, result.stdout) == (0, printed)
    assert len(fake.requests) == 1
    assert {"relaybay", "_socket"} <= modules  # the check reads real importtime lines
    assert modules & (HEAVY - {"enum"} if allowed else HEAVY | {"json", "re"}) == set()
    assert ("json" in modules) == bool(allowed)


def test_a_closed_port_costs_no_import_beyond_the_socket(token_file: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/hooks/claude-code"
    result, modules = run_with_importtime(url, token_file, BODY)
    assert (result.code, result.stdout) == (0, b"")
    assert "_socket" in modules
    assert modules & (HEAVY | {"json", "re"}) == set()


def test_a_host_name_is_resolved_without_the_idna_codec(
    fake: FakeRelaybay, token_file: Path
) -> None:
    """localhost goes through getaddrinfo (bytes, so no idna import) and still connects."""
    fake.answer = Answer(200, b'{"by": "name"}')
    url = f"http://localhost:{fake.port}/hooks/claude-code"
    result, modules = run_with_importtime(url, token_file, BODY)
    assert (result.code, result.stdout) == (0, b'{"by": "name"}')
    assert [path for path, _, _ in fake.requests] == ["/hooks/claude-code"]
    assert "encodings.idna" not in modules


def test_session_start_with_a_desktop_session_is_rewritten_with_json_alone(
    fake: FakeRelaybay, token_file: Path
) -> None:
    env = hook_env(CLAUDE_CODE_HOST_SESSION_ID="local_9")
    command = [sys.executable, "-I", "-X", "importtime", "-m", "relaybay.hook_client"]
    body = fixture_body("SessionStart.startup.interactive.json")
    result = run_client(fake.url(), token_file, body, env=env, command=command)
    modules = imported_modules(result.stderr)
    assert result.code == 0
    assert json.loads(fake.requests[0][2])["relaybay_host_session"] == "local_9"
    assert "json" in modules
    assert modules & (HEAVY - {"enum"}) == set()


@pytest.mark.parametrize(
    ("host", "family"),
    [
        ("127.0.0.1", socket.AF_INET),
        ("::1", socket.AF_INET6),
        ("localhost", None),
        ("127.1", None),
        ("relaybay.test", None),
    ],
)
def test_numeric_addresses_are_told_from_names(host: str, family: int | None) -> None:
    assert hook_client.numeric_family(host) == family


def test_a_token_or_url_that_would_break_the_request_is_refused() -> None:
    with pytest.raises(ValueError, match="control characters"):
        hook_client.request_head("127.0.0.1", 8765, "http", "/hooks", "tok\r\nX-Evil: 1", 2)
    with pytest.raises(ValueError, match="control characters"):
        hook_client.request_head("127.0.0.1", 8765, "http", "/hooks claude", "tok", 2)
    head = hook_client.request_head("::1", 8765, "http", "/hooks/claude-code", "tok", 2)
    assert head.startswith(b"POST /hooks/claude-code HTTP/1.1\r\nHost: [::1]:8765\r\n")


@pytest.mark.parametrize(
    ("url", "parts"),
    [
        (
            "http://127.0.0.1:8765/hooks/claude-code",
            ("http", "127.0.0.1", 8765, "/hooks/claude-code"),
        ),
        ("http://[::1]:9/hooks/claude-code/wait", ("http", "::1", 9, "/hooks/claude-code/wait")),
        ("HTTP://localhost/hooks?x=1#f", ("http", "localhost", 80, "/hooks?x=1")),
        ("https://relay.example", ("https", "relay.example", 443, "/")),
    ],
)
def test_urls_are_split_without_urllib(url: str, parts: tuple[str, str, int, str]) -> None:
    assert hook_client.split_url(url) == parts


# --- relaybay hook ------------------------------------------------------------------------


def test_relaybay_hook_forwards_the_same_way(fake: FakeRelaybay, token_file: Path) -> None:
    fake.answer = Answer(200, b'{"hookSpecificOutput": {}}')
    body = fixture_body("SessionStart.startup.interactive.json")
    env = hook_env(CLAUDE_CODE_HOST_SESSION_ID="local_1", CLAUDE_CODE_SESSION_ATTENDED="1")
    result = run_client(fake.url(), token_file, body, env=env, command=relaybay_hook_command())
    assert (result.code, result.stdout, result.stderr) == (0, b'{"hookSpecificOutput": {}}', b"")
    [(_, headers, sent)] = fake.requests
    assert headers["Authorization"] == f"Bearer {TOKEN}"
    assert json.loads(sent)["relaybay_host_session"] == "local_1"


def test_relaybay_hook_defaults_to_this_configuration(fake: FakeRelaybay, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "token").write_text(TOKEN)
    fake.answer = Answer(200, json.dumps({"wake": "Owner comment"}).encode())
    proc = subprocess.run(
        [*relaybay_hook_command(), "--home", str(home), "--port", str(fake.port), "--wait"],
        input=fixture_body("Stop.first.json"),
        capture_output=True,
        env=hook_env(),
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, b"", b"Owner comment")
    [(path, headers, _)] = fake.requests
    assert path == "/hooks/claude-code/wait"
    assert headers["Authorization"] == f"Bearer {TOKEN}"


@pytest.mark.parametrize("spelling", [["--agent", "codex"], ["--agent=codex"]])
def test_relaybay_hook_posts_to_the_route_of_the_agent_it_names(
    fake: FakeRelaybay, tmp_path: Path, spelling: list[str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "token").write_text(TOKEN)
    fake.answer = Answer(204, b"")
    proc = subprocess.run(
        [*relaybay_hook_command(), *spelling, "--home", str(home), "--port", str(fake.port)],
        input=b'{"hook_event_name": "Stop", "session_id": "s"}',
        capture_output=True,
        env=hook_env(),
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert [path for path, _, _ in fake.requests] == ["/hooks/codex"]


def test_relaybay_hook_names_the_agents_when_it_gets_one_it_does_not_know(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*relaybay_hook_command(), "--home", str(tmp_path), "--agent", "nope"],
        input=b"{}",
        capture_output=True,
        env=hook_env(),
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert b"unknown agent 'nope': choose claude-code, codex" in proc.stderr


@pytest.mark.parametrize(
    "extra",
    [["--port", "not-a-port"], ["--no-such-option"], ["--port"], ["--agent"]],
    ids=["bad-setting", "unknown-option", "setting-without-value", "agent-without-value"],
)
def test_relaybay_hook_never_exits_2_on_its_own_errors(tmp_path: Path, extra: list[str]) -> None:
    """Exit code 2 would block the tool call or the end of the turn in Claude Code."""
    proc = subprocess.run(
        [*relaybay_hook_command(), "--home", str(tmp_path), *extra],
        input=b"{}",
        capture_output=True,
        env=hook_env(),
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (0, b"")


@pytest.mark.parametrize("defaults", [False, True], ids=["url-and-token-file", "defaults"])
def test_relaybay_hook_never_sets_django_up(
    fake: FakeRelaybay, token_file: Path, defaults: bool
) -> None:
    """Every hook event pays this start-up: Django's alone is most of a second."""
    fake.answer = Answer(200, b'{"via": "cli"}')
    if defaults:
        (token_file.parent / "home").mkdir()
        (token_file.parent / "home" / "token").write_text(TOKEN)
        options = ["--home", str(token_file.parent / "home"), "--port", str(fake.port)]
    else:
        options = ["--url", fake.url(), "--token-file", str(token_file)]
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "relaybay", "hook", *options],
        input=BODY,
        capture_output=True,
        env=hook_env(),
        timeout=60,
        check=False,
    )
    modules = imported_modules(proc.stderr)
    assert (proc.returncode, proc.stdout) == (0, b'{"via": "cli"}')
    assert [headers["Authorization"] for _, headers, _ in fake.requests] == [f"Bearer {TOKEN}"]
    assert {"relaybay.cli", "core.config"} <= modules
    assert sorted(m for m in modules if m.split(".")[0] in ("django", "relaybay_site")) == []


def test_relaybay_hook_names_an_option_it_does_not_take(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*relaybay_hook_command(), "--home", str(tmp_path), "--no-such-option"],
        input=b"{}",
        capture_output=True,
        env=hook_env(),
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert b"unrecognized argument: --no-such-option" in proc.stderr


def test_relaybay_hook_help_still_lists_its_options() -> None:
    proc = subprocess.run(
        [*relaybay_hook_command(), "--help"],
        capture_output=True,
        text=True,
        env=hook_env(),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0
    assert all(option in proc.stdout for option in ("--url", "--token-file", "--wait"))


def test_relaybay_hook_against_a_closed_port_exits_0(token_file: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/hooks/claude-code"
    result = run_client(url, token_file, b"{}", command=relaybay_hook_command())
    assert (result.code, result.stdout, result.stderr) == (0, b"", b"")


# --- a held hook (the owner's Approve or Deny) ---------------------------------------------


def test_a_held_hook_waits_for_the_answer_and_tells_the_server_how_long(
    fake: FakeRelaybay, token_file: Path
) -> None:
    """--hold S: the answer may come after seconds (the owner decides on the board); the
    server is told S so that it answers first. Without it the same answer is too late."""
    fake.answer = Answer(200, b'{"hookSpecificOutput": {}}', delay=2.5)
    late = run_client(fake.url(), token_file, BODY)
    assert (late.code, late.stdout) == (0, b"")

    held = run_client(fake.url(), token_file, BODY, "--hold", "30")
    assert (held.code, held.stdout, held.stderr) == (0, b'{"hookSpecificOutput": {}}', b"")
    assert held.seconds >= 2.5
    assert fake.requests[-1][1]["X-Relaybay-Hold"] == "30"
    assert "X-Relaybay-Hold" not in fake.requests[0][1]


@pytest.mark.parametrize("value", ["abc", "-5", "0", "99999"])
def test_a_hold_that_is_no_number_of_seconds_is_no_hold(
    fake: FakeRelaybay, token_file: Path, value: str
) -> None:
    fake.answer = Answer(204)
    result = run_client(fake.url(), token_file, BODY, "--hold", value)
    assert (result.code, result.stdout, result.stderr) == (0, b"", b"")
    assert "X-Relaybay-Hold" not in fake.requests[-1][1]


def test_the_server_reads_the_hold_the_client_sends() -> None:
    from sessions.hooks import endpoint

    assert hook_client.HOLD_HEADER.lower() == endpoint.HOLD_HEADER
    assert endpoint.HOLD_MAX == hook_client.HOLD_MAX
