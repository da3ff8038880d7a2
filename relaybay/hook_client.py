"""The command hook: forward one agent's hook event to relaybay (§4, §5).

Run by the agent CLI for every hook event, with its own route (/hooks/claude-code,
/hooks/codex, /hooks/gemini: its package's SPEC.path), as

    <python> -I -m relaybay.hook_client --url <base>/hooks/claude-code --token-file <file>
    <python> -I -m relaybay.hook_client --url <base>/hooks/claude-code/wait --token-file <file>
        --wait    (the opt-in wake-up hook on Stop, run with asyncRewake)

Standard library only, and nothing else of relaybay is imported: isolated mode (-I) does
not promise any site-packages, and every hook event pays this module's start-up. So it
imports only what one POST to a loopback address needs (bench/README.md, "Hook client"): the C
modules `_socket` and `_signal` (the `socket` and `signal` wrappers pull in enum,
selectors and array), a numeric address connected without getaddrinfo (which imports the
idna codec), and `json` only when there is a JSON text to read or rewrite (json imports re,
and with it enum: about 8 ms). No typing, no http.client, no urllib, no ssl unless the URL
is https. tests/test_hook_client.py fails if one of them creeps back in.

"Never in the way when relaybay is down" (§4 #spec-hooks):
- 0.3 s per network step (connect, send, each read); a whole event never takes more than
  TOTAL_SECONDS. With --wait (the wake-up hook) the answer may take up to WAIT_SECONDS;
  with --hold S (a PreToolUse or PermissionRequest whose answer may wait for the owner's
  Approve or Deny on the board) up to S seconds, which the server is told (HOLD_HEADER) so
  that it answers first: setup writes S a little under the hook's own timeout.
- Never a system proxy: a plain socket to the URL's host:port (HTTP_PROXY, HTTPS_PROXY,
  ALL_PROXY and NO_PROXY are never read; urllib is never used).
- stdout gets only the server's answer, and only when it is a 200 with a JSON object.
- Exit code 0 whatever happens (server down, slow, 4xx/5xx, bad JSON, no token file) —
  except --wait with a 200 {"wake": "<lines>"}: the lines go to stderr and the exit code
  is 2, which Claude Code's asyncRewake turns into a new turn with the lines as a reminder.
  Never any other code: Gemini CLI reads 2 with stderr, 127 and anything from 3 up as a
  deny of the tool (tests/test_hook_client_gemini.py), and nothing on stderr otherwise
  (Gemini parses stderr when stdout is empty).

The desktop app's session id (CLAUDE_CODE_HOST_SESSION_ID) and CLAUDE_CODE_SESSION_ATTENDED
are added as relaybay_host_session / relaybay_host_attended to SessionStart only, the one
event whose linking uses them (§4 linking step 1). Other bodies are forwarded byte for byte
without being parsed.
"""

from __future__ import annotations

import _signal
import _socket
import os
import sys

TYPE_CHECKING = False  # typing itself costs ~4 ms of start-up: only type checkers read this
if TYPE_CHECKING:
    from typing import BinaryIO

STEP_SECONDS = 0.3  # each connect, send and read (§4)
TOTAL_SECONDS = 2.0  # a server that drips bytes: the hook's own timeout is 3 s (§5)
WAIT_SECONDS = 1790.0  # --wait: the wake-up hook's timeout is 1800 s; the server holds 1500
HOLD_MAX = 3600.0  # --hold: the longest answer a held hook waits for (the owner's decision)
HOLD_HEADER = "X-Relaybay-Hold"  # how long this client waits: the server holds less
MAX_ANSWER = 1 << 20  # the server's answers are small; never buffer more than this
HOST_SESSION_ENV = "CLAUDE_CODE_HOST_SESSION_ID"
HOST_ATTENDED_ENV = "CLAUDE_CODE_SESSION_ATTENDED"
USER_AGENT = "relaybay-hook-client"
WAKE_EXIT = 2


class _Deadline(Exception):
    """The whole event took longer than its budget."""


OPTIONS = ("--url", "--token-file", "--hold")


class UsageError(ValueError):
    """An option without its value, or (strict) one the hook does not take."""


def read_options(argv: list[str], *, strict: bool = False) -> tuple[str, str, bool, str]:
    """(url, token file, wait, hold) from `[--url U] [--token-file F] [--wait] [--hold S]`;
    "" when not given.

    A hand-made parser shared with `relaybay hook` (relaybay/cli.py): argparse alone costs
    about 7 ms of every hook event's start-up. An option without its value raises
    UsageError; so does an unknown option when `strict`, else it is passed over.
    """
    values = dict.fromkeys(OPTIONS, "")
    wait = False
    i = 0
    while i < len(argv):
        name, eq, value = argv[i].partition("=")
        if name == "--wait" and not eq:
            wait = True
        elif name in values:
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError(f"{name} needs a value")
                i += 1
                value = argv[i]
            values[name] = value
        elif strict:
            raise UsageError(f"unrecognized argument: {argv[i]}")
        i += 1
    return values["--url"], values["--token-file"], wait, values["--hold"]


def parse_args(argv: list[str]) -> tuple[str, str, bool, float] | None:
    """(url, token file, wait, hold seconds) from `--url U --token-file F [--wait]
    [--hold S]`; None when incomplete. A hold that is not a number is no hold."""
    try:
        url, token_file, wait, hold = read_options(argv)
    except UsageError:
        return None
    if not url or not token_file:
        return None
    try:
        seconds = float(hold or 0)
    except ValueError:
        seconds = 0.0
    return url, token_file, wait, seconds if 0 < seconds <= HOLD_MAX else 0.0


def with_host_session(body: bytes, environ: dict[str, str] | os._Environ[str]) -> bytes:
    """SessionStart gets the desktop app's session id and attended flag from the environment.

    Any other body, or a SessionStart that is not a JSON object, is returned unchanged.
    """
    host = environ.get(HOST_SESSION_ENV, "")
    if not host or b"SessionStart" not in body:  # a byte search spares the parse
        return body
    import json

    try:
        event = json.loads(body)
    except ValueError:
        return body
    if not isinstance(event, dict) or event.get("hook_event_name") != "SessionStart":
        return body
    event["relaybay_host_session"] = host
    attended = environ.get(HOST_ATTENDED_ENV)
    if attended is not None:
        event["relaybay_host_attended"] = attended
    return json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()


def split_url(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path with query) of an http(s) URL; ValueError otherwise."""
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in ("http", "https"):
        raise ValueError(url)
    netloc, slash, path = rest.partition("/")
    path = "/" + path.split("#", 1)[0] if slash else "/"
    netloc = netloc.rpartition("@")[2]
    default_port = 443 if scheme == "https" else 80
    if netloc.startswith("["):  # [::1]:8765
        host, _, port_text = netloc[1:].partition("]")
        port_text = port_text.removeprefix(":")
    else:
        host, _, port_text = netloc.partition(":")
    if not host:
        raise ValueError(url)
    return scheme, host, int(port_text) if port_text else default_port, path


def request_head(
    host: str, port: int, scheme: str, path: str, token: str, size: int, hold: float = 0.0
) -> bytes:
    """The request line and headers; ValueError for a value that would break the request.
    A held hook says how long it waits (HOLD_HEADER), so the server answers before that."""
    name = f"[{host}]" if ":" in host else host
    default = 443 if scheme == "https" else 80
    host_header = name if port == default else f"{name}:{port}"
    for value in (host_header, path, token):
        if not value.isascii() or any(c.isspace() or ord(c) < 32 for c in value):
            raise ValueError("a URL or token with spaces or control characters")
    return (
        f"POST {path} HTTP/1.1\r\n"
        f"Host: {host_header}\r\n"
        f"Authorization: Bearer {token}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {size}\r\n"
        f"User-Agent: {USER_AGENT}\r\n"
        + (f"{HOLD_HEADER}: {int(hold)}\r\n" if hold >= 1 else "")
        + "Connection: close\r\n\r\n"
    ).encode("ascii")


def numeric_family(host: str) -> int | None:
    """AF_INET or AF_INET6 when the host is a numeric address, else None (a name)."""
    for family in (_socket.AF_INET, _socket.AF_INET6):
        try:
            _socket.inet_pton(family, host)
        except (OSError, ValueError):
            continue
        return family
    return None


def connect(host: str, port: int) -> _socket.socket:
    """A socket connected to host:port within one step, like socket.create_connection.

    A numeric address (what `relaybay setup` writes: 127.0.0.1) is connected straight
    away; a name is resolved with the host as bytes, which spares the idna codec import.
    """
    family = numeric_family(host)
    if family is not None:
        targets = [(family, (host, port))]
    else:
        found = _socket.getaddrinfo(host.encode("ascii"), port, 0, _socket.SOCK_STREAM)
        targets = [(info[0], info[4]) for info in found]
    error: OSError = OSError(f"{host} has no address")
    for family, address in targets:
        sock = _socket.socket(family, _socket.SOCK_STREAM)
        try:
            sock.settimeout(STEP_SECONDS)
            sock.connect(address)
        except OSError as exc:
            sock.close()
            error = exc
            continue
        return sock
    raise error


class _Response:
    """Reads one HTTP/1.1 response from a socket whose timeout is set per step."""

    def __init__(self, sock: _socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def _fill(self) -> bool:
        chunk = self.sock.recv(65536)  # one network step: the socket's timeout applies
        self.sock.settimeout(STEP_SECONDS)  # --wait: only the first byte may take long
        if len(self.buffer) + len(chunk) > MAX_ANSWER:
            raise ValueError("answer too large")
        self.buffer += chunk
        return bool(chunk)

    def until(self, separator: bytes) -> bytes:
        while (end := self.buffer.find(separator)) < 0:
            if not self._fill():
                raise ValueError("the answer ended early")
        found, self.buffer = self.buffer[:end], self.buffer[end + len(separator) :]
        return found

    def exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            if not self._fill():
                raise ValueError("the answer ended early")
        found, self.buffer = self.buffer[:size], self.buffer[size:]
        return found

    def rest(self) -> bytes:
        while self._fill():
            pass
        return self.buffer

    def read(self) -> tuple[int, bytes]:
        """(status, body); the body is read only for a 200 (nothing else is printed)."""
        head = self.until(b"\r\n\r\n").split(b"\r\n")
        status = int(head[0].split(b" ", 2)[1])
        if status != 200:
            return status, b""
        headers = {}
        for line in head[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip().lower()
        if b"chunked" in headers.get(b"transfer-encoding", b""):
            body = b""
            while size := int(self.until(b"\r\n").split(b";")[0], 16):
                body += self.exactly(size)
                self.exactly(2)
            return status, body
        if b"content-length" in headers:
            return status, self.exactly(int(headers[b"content-length"]))
        return status, self.rest()


def post(url: str, token: str, body: bytes, wait: bool, hold: float = 0.0) -> tuple[int, bytes]:
    """POST the body straight to the URL's host:port (no proxy); (status, answer body).

    A socket and a few lines of HTTP/1.1 instead of http.client: importing http.client
    (email parsing, ssl) doubles this process's start-up, which every hook event pays.
    """
    scheme, host, port, path = split_url(url)
    head = request_head(host, port, scheme, path, token, len(body), hold)
    if scheme == "https":  # only for a TLS front: socket and ssl cost 10-20 ms to import
        import socket
        import ssl

        plain = socket.create_connection((host, port), timeout=STEP_SECONDS)
        sock: _socket.socket = ssl.create_default_context().wrap_socket(plain, server_hostname=host)
    else:
        sock = connect(host, port)
    try:
        sock.sendall(head + body)
        if wait or hold >= 1:  # the server holds the request: the wake-up, the owner's answer
            sock.settimeout(WAIT_SECONDS if wait else hold)
        return _Response(sock).read()
    finally:
        sock.close()


def _on_alarm(signum: int, frame: object) -> None:
    raise _Deadline


def _arm_deadline(seconds: float) -> None:
    """A whole-event budget on top of the per-step timeouts, where the OS offers a timer."""
    if hasattr(_signal, "setitimer"):
        _signal.signal(_signal.SIGALRM, _on_alarm)
        _signal.setitimer(_signal.ITIMER_REAL, seconds)


def _disarm_deadline() -> None:
    if hasattr(_signal, "setitimer"):
        _signal.setitimer(_signal.ITIMER_REAL, 0)


def forward(
    argv: list[str],
    stdin: BinaryIO,
    stdout: BinaryIO,
    stderr: BinaryIO,
    environ: dict[str, str] | os._Environ[str],
) -> int:
    """One hook event: read stdin, post it, print the answer; the exit code (0 or 2)."""
    args = parse_args(argv)
    if args is None:
        return 0
    url, token_file, wait, hold = args
    with open(token_file, encoding="utf-8") as f:
        token = f.read().strip()
    if not token:
        return 0
    body = with_host_session(stdin.read(), environ)
    _arm_deadline(WAIT_SECONDS + 5 if wait else max(TOTAL_SECONDS, hold + 2))
    try:
        status, answer = post(url, token, body, wait, hold)
    finally:
        _disarm_deadline()
    if status != 200:
        return 0
    import json  # only now: most events are answered 204 with nothing to read

    parsed = json.loads(answer)
    if not isinstance(parsed, dict):
        return 0
    lines = parsed.get("wake")
    if wait and isinstance(lines, str) and lines.strip():
        stderr.write(lines.encode("utf-8", "replace"))
        stderr.flush()
        return WAKE_EXIT
    stdout.write(answer)
    stdout.flush()
    return 0


def main(
    argv: list[str] | None = None,
    *,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    stderr: BinaryIO | None = None,
    environ: dict[str, str] | None = None,
) -> int:
    """The forwarder behind `python -I -m relaybay.hook_client` and `relaybay hook`.

    Never raises and never returns anything but 0, or 2 for a wake-up (module docstring).
    """
    try:
        return forward(
            list(sys.argv[1:] if argv is None else argv),
            stdin or sys.stdin.buffer,
            stdout or sys.stdout.buffer,
            stderr or sys.stderr.buffer,
            os.environ if environ is None else environ,
        )
    except BaseException:  # never in the way: any failure is a silent exit 0
        return 0


if __name__ == "__main__":
    sys.exit(main())
