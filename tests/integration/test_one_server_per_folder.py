"""One `relaybay serve` per data folder (relaybay_site/serve_lock.py, issue 12).

A second start on the same folder — on a free port or on the first server's port — exits
at once with one line naming the folder, the first server's PID and address, and touches
no file of the running server: no migration, no start-up sweep of attachments/. A start on
a taken port exits with one line naming the port. The lock is the operating system's, so a
killed server leaves nothing behind that blocks the next start.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import RelaybayServer, clean_env, free_port, run_cli

pytestmark = pytest.mark.integration


def listing(home: Path) -> dict[str, tuple[int, int]]:
    """Every file of the data folder with its size and mtime, but the test's own log."""
    return {
        str(p.relative_to(home)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(home.rglob("*"))
        if p.is_file() and p.name != "serve.log"
    }


@pytest.fixture
def running(tmp_path: Path) -> Iterator[RelaybayServer]:
    server = RelaybayServer(home=tmp_path / "home").start()
    try:
        yield server
    finally:
        server.stop()


def test_a_second_server_on_the_same_folder_refuses_and_touches_nothing(
    running: RelaybayServer,
) -> None:
    # A file the start-up sweep would delete: no attachment row names it.
    orphan = running.home / "attachments" / "acme" / "acme-1" / "0123abcd.png"
    orphan.parent.mkdir(parents=True)
    orphan.write_bytes(b"\x89PNG\r\n\x1a\n just written")
    before = listing(running.home)
    assert running.proc is not None
    for port in (free_port(), running.port):
        result = run_cli("serve", "--port", str(port), home=running.home, timeout=30)
        assert result.returncode != 0
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert str(running.home) in lines[0]
        assert f"PID {running.proc.pid}" in lines[0]
        assert f"127.0.0.1:{running.port}" in lines[0]
        assert result.stdout == ""
    assert listing(running.home) == before
    assert orphan.exists()
    assert running.healthz()["status"] == "ok"


def test_a_killed_server_leaves_no_stale_lock(running: RelaybayServer) -> None:
    running.stop(sig=signal.SIGKILL)
    again = RelaybayServer(home=running.home).start()
    try:
        assert again.healthz()["status"] == "ok"
    finally:
        again.stop()


def test_a_taken_port_is_refused_with_one_line_naming_it(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("serve", "--port", str(port), home=tmp_path / "home", timeout=30)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"port {port}" in lines[0]
    assert not (tmp_path / "home" / "relaybay.sqlite").exists()  # refused before migrating


def test_the_banner_in_a_log_names_the_command_that_prints_the_link(
    running: RelaybayServer,
) -> None:
    log = running.log()
    assert running.token not in log  # a log file may be kept or shared
    command = f"relaybay token --home {running.home} --port {running.port}"
    assert f"Sign in: open the link that `{command}` prints" in log
    assert f"Connect Claude Code: run `{command}`" in log
    printed = run_cli("token", "--port", str(running.port), home=running.home)
    assert f"{running.base_url}/login?token={running.token}" in printed.stdout
    assert f"relaybay {running.base_url}/mcp" in printed.stdout


def banner_on_a_terminal(home: Path, port: int) -> str:
    """What `relaybay serve` prints when its output is a terminal, as after `make run`."""
    master, slave = pty.openpty()
    env = clean_env(RELAYBAY_HOME=str(home))
    proc = subprocess.Popen(
        [sys.executable, "-m", "relaybay", "serve", "--port", str(port)],
        env=env,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 30
        while b"Connect Claude Code" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1)
            if ready:
                seen += os.read(master, 4096)
        seen += os.read(master, 4096) if select.select([master], [], [], 0.5)[0] else b""
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(15)
        os.close(master)
    return seen.decode()


def test_the_banner_on_a_terminal_gives_one_sign_in_link_and_the_exact_connect_line(
    tmp_path: Path,
) -> None:
    home, port = tmp_path / "home", free_port()
    banner = banner_on_a_terminal(home, port)
    token = (home / "token").read_text().strip()
    base = f"http://127.0.0.1:{port}"
    assert f"Sign in: open {base}/login?token={token}" in banner
    assert f"relaybay {base}/mcp" in banner  # the claude mcp add line for this port
    assert f'--header "Authorization: Bearer {token}"' in banner


def test_the_demo_refuses_a_folder_a_server_is_running_on(running: RelaybayServer) -> None:
    before = listing(running.home)
    result = run_cli("demo", "--force", "--home", str(running.home), timeout=60)
    assert result.returncode != 0
    assert "already uses the data folder" in result.stderr
    assert listing(running.home) == before
