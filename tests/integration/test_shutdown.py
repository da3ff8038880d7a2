"""Open /events streams never keep `relaybay serve` from stopping (docs/architecture.md §5).

The target is "within about 2 s" of SIGTERM or Ctrl-C with 50 streams open; the tests
assert 5 s to leave room on a loaded CI machine and print the measured time.
"""

from __future__ import annotations

import http.client
import json
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

STREAMS = 50
LIMIT_SECONDS = 5.0


def open_stream(server: RelaybayServer) -> socket.socket:
    """A raw /events request whose first chunk (the `connected` comment) has arrived."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    sock.sendall(
        f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Authorization: Bearer {server.token}\r\n\r\n".encode()
    )
    received = b""
    while b": connected" not in received:
        chunk = sock.recv(4096)
        assert chunk, "the server closed a new stream"
        received += chunk
    assert received.startswith(b"HTTP/1.1 200")
    return sock


def open_streams(server: RelaybayServer) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request("GET", "/api/stats", headers={"Authorization": f"Bearer {server.token}"})
        return json.loads(conn.getresponse().read())["streams"]
    finally:
        conn.close()


@pytest.fixture
def busy_server(tmp_path: Path) -> Iterator[tuple[RelaybayServer, list[socket.socket]]]:
    server = RelaybayServer(home=tmp_path / "home").start()
    sockets = [open_stream(server) for _ in range(STREAMS)]
    try:
        yield server, sockets
    finally:
        for sock in sockets:
            sock.close()
        server.stop(signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c-sigint"])
def test_serve_exits_promptly_with_50_open_streams(
    busy_server: tuple[RelaybayServer, list[socket.socket]], sig: signal.Signals
) -> None:
    server, sockets = busy_server
    assert open_streams(server) == STREAMS
    started = time.monotonic()
    assert server.proc is not None
    server.proc.send_signal(sig)
    server.proc.wait(30)  # a hang fails below with its real duration, not a timeout here
    took = time.monotonic() - started
    print(f"\n{sig.name}: relaybay serve exited in {took:.2f}s with {STREAMS} open streams")
    assert took < LIMIT_SECONDS, f"{sig.name} took {took:.2f}s\n{server.log()}"
    assert server.proc.returncode == 0, server.log()
    assert "Traceback" not in server.log()
    for sock in sockets:  # every client saw its stream end instead of a hanging socket
        sock.settimeout(2)
        while sock.recv(4096):
            pass
