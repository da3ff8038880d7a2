"""A real `relaybay serve` on a free loopback port with its own data folder."""

from __future__ import annotations

import atexit
import http.client
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBAY_")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.update(extra)
    return env


def write_fake_claude(folder: Path, version_line: str = "2.1.332 (Claude Code)") -> Path:
    """A `claude` in `folder` that prints `version_line` for --version (detection tests)."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "claude"
    exe.write_text(f"#!/bin/sh\necho '{version_line}'\n")
    exe.chmod(0o755)
    return exe


def profile_env(claude_home: Path, bin_dir: Path) -> dict[str, str]:
    """A server environment whose Claude Code profile is `claude_home`, `bin_dir` first on PATH."""
    return {"HOME": str(claude_home), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def seed_claude_settings(settings_file: Path, data: dict) -> None:
    """The profile's .claude folder holding only `data` as settings.json: no backups."""
    folder = settings_file.parent
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    settings_file.write_text(json.dumps(data, indent=2) + "\n")


def run_cli(
    *args: str, home: Path | None = None, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run `python -m relaybay …` as a user would, with a clean RELAYBAY_* environment."""
    base = clean_env(**(env or {}))
    if home is not None:
        base["RELAYBAY_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "relaybay", *args],
        env=base,
        text=True,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def run_django(home: Path, code: str, timeout: float = 60) -> str:
    """Run `code` (indented as it likes) with Django set up on the data folder `home`, in a
    process of its own: how a test makes the owner's board writes through the real services
    beside a running server, which reads the rows on its next call. Returns its stdout."""
    script = "import django\ndjango.setup()\n" + textwrap.dedent(code)
    env = clean_env(RELAYBAY_HOME=str(home), DJANGO_SETTINGS_MODULE="relaybay_site.settings")
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@contextmanager
def read_only_db(home: Path) -> Iterator[sqlite3.Connection]:
    """The data folder's database, opened read-only beside a running server."""
    uri = f"file:{home / 'relaybay.sqlite'}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True, timeout=5)) as db:
        yield db


_migrated: Path | None = None


def migrated_database() -> Path:
    """A database with every migration applied, made once per test process.

    A start on an empty data folder spends seconds rendering thirteen migrations' model
    states (about 3 s of 8 on a slow machine), and nearly every integration and browser test
    starts its own server on an empty folder: they start from a copy of this file instead.
    What a first start does to an empty folder is tested on its own with `seed=False`
    (tests/integration/test_serve_migrations.py); `run_cli("serve", ...)` never seeds.
    """
    global _migrated
    if _migrated is None:
        folder = Path(tempfile.mkdtemp(prefix="relaybay-migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        done = run_cli("migrate", "--verbosity", "0", home=folder, timeout=180)
        assert done.returncode == 0, done.stderr
        _migrated = folder / "relaybay.sqlite"
    return _migrated


def seed_database(home: Path) -> None:
    """Copy the migrated database into `home` (SQLite's backup: one consistent file)."""
    home.mkdir(parents=True, exist_ok=True)
    with (
        closing(sqlite3.connect(migrated_database())) as src,
        closing(sqlite3.connect(home / "relaybay.sqlite")) as dst,
    ):
        src.backup(dst)


def _ctrl_c_as_in_a_terminal() -> None:
    """SIGINT back to its default in the server, as a terminal's foreground job has it.

    A shell starting a command in the background without job control sets SIGINT to
    "ignore", the child inherits it, Python then keeps it ignored and Twisted installs no
    Ctrl-C handler: run from such a shell, the Ctrl-C test saw a server that (rightly)
    ignored its SIGINT and timed out.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@dataclass
class RelaybayServer:
    """Start with `start()`, stop with `stop()`; `base_url`, `token` and `home` for tests."""

    home: Path
    port: int = field(default_factory=free_port)
    env: dict[str, str] = field(default_factory=dict)
    args: tuple[str, ...] = ()
    proc: subprocess.Popen[str] | None = None
    log_path: Path | None = None
    seed: bool = True  # start from a migrated copy when the folder has no database yet
    cwd: Path | None = None  # run the code of another checkout (bench/compare.py)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def token(self) -> str:
        return (self.home / "token").read_text().strip()

    def start(self, timeout: float = 30) -> RelaybayServer:
        self.home.mkdir(parents=True, exist_ok=True)
        if self.seed and not (self.home / "relaybay.sqlite").exists():
            seed_database(self.home)
        self.log_path = self.home / "serve.log"
        env = clean_env(RELAYBAY_HOME=str(self.home), **self.env)
        log = self.log_path.open("a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "relaybay", "serve", "--port", str(self.port), *self.args],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            preexec_fn=_ctrl_c_as_in_a_terminal,
            cwd=self.cwd,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"relaybay serve exited {self.proc.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.base_url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"relaybay serve did not answer in {timeout}s:\n{self.log()}")

    def post_hook(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        """POST a hook body as the agent does (JSON, Bearer token): the status and the
        answer's JSON (None for an empty body)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self.token}"}
        try:
            conn.request("POST", path, body=json.dumps(body), headers=headers)
            reply = conn.getresponse()
            raw = reply.read()
        finally:
            conn.close()
        return reply.status, json.loads(raw) if raw else None

    def healthz(self) -> dict:
        with urllib.request.urlopen(self.base_url + "/healthz", timeout=5) as r:
            return json.loads(r.read())

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path and self.log_path.exists() else ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> float:
        """Stop the server; returns how many seconds it took to exit."""
        if self.proc is None or self.proc.poll() is not None:
            return 0.0
        started = time.monotonic()
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)
        return time.monotonic() - started
