"""A built wheel installs into a fresh venv and serves the board (templates, static, migrations)."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from contextlib import closing
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.support.server import clean_env, free_port

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


def run(*cmd: str | Path, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(c) for c in cmd],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, f"{cmd}:\n{result.stdout}\n{result.stderr}"
    return result


def get(url: str) -> tuple[int, dict[str, str], str]:
    with urllib.request.urlopen(url, timeout=10) as response:  # no redirects on these URLs
        return response.status, dict(response.headers.items()), response.read().decode()


@pytest.fixture(scope="module")
def installed_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, installed with pip into a new venv (no site-packages)."""
    work = tmp_path_factory.mktemp("wheel")
    run(
        sys.executable,
        "-m",
        "build",
        "--wheel",
        "--outdir",
        work / "dist",
        REPO,
        cwd=work,
        timeout=300,
    )
    wheels = list((work / "dist").glob("relaybay-*.whl"))
    assert len(wheels) == 1, wheels
    venv = work / "venv"
    # No pip of its own and no bytecode compiled at install: this pip installs into it
    # (--python), and 40 packages' .pyc files cost half a minute on a slow machine.
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=work, timeout=120)
    pip = (sys.executable, "-m", "pip", "--python", venv / "bin/python", "install")
    run(*pip, "--quiet", "--no-compile", wheels[0], cwd=work, timeout=480)
    return venv


@pytest.mark.timeout(600)
def test_the_installed_wheel_is_used_not_the_checkout(installed_venv, tmp_path):
    result = run(
        installed_venv / "bin/python",
        "-c",
        "import relaybay_site, tasks; print(relaybay_site.__file__); print(tasks.__file__)",
        cwd=tmp_path,
        timeout=60,
    )
    for line in result.stdout.split():
        assert Path(line).is_relative_to(installed_venv), line
    assert run(
        installed_venv / "bin/relaybay", "--version", cwd=tmp_path, timeout=60
    ).stdout.strip() == (f"relaybay {version('relaybay')}")


@pytest.mark.timeout(600)
def test_the_installed_wheel_serves_the_board(installed_venv, tmp_path):
    home, port = tmp_path / "home", free_port()
    base = f"http://127.0.0.1:{port}"
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [str(installed_venv / "bin/relaybay"), "serve", "--port", str(port), "--home", str(home)],
        cwd=tmp_path,
        env=clean_env(),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        health = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and health is None:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                health = json.loads(get(base + "/healthz")[2])
            except OSError:
                time.sleep(0.2)
        assert health is not None, (tmp_path / "serve.log").read_text()
        assert health["status"] == "ok"
        assert health["version"] == version("relaybay")

        status, _, page = get(base + "/login")  # a template from the wheel
        assert status == 200
        assert 'name="token"' in page
        link = re.search(r'href="(/static/[^"]+\.css\?v=[0-9a-f]{12})"', page)
        assert link, page
        status, headers, css = get(base + link.group(1))  # a static file from the wheel
        assert status == 200
        assert headers["Content-Type"].startswith("text/css")
        assert "immutable" in headers["Cache-Control"]
        assert css.strip()
        assert (home / "token").exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()
    db = f"{(home / 'relaybay.sqlite').as_uri()}?mode=ro"
    with closing(sqlite3.connect(db, uri=True)) as con:  # the wheel's migrations ran
        applied = {row[0] for row in con.execute("SELECT app FROM django_migrations")}
        tables = {row[0] for row in con.execute("SELECT name FROM sqlite_master")}
    assert "tasks" in applied
    assert "tasks_task" in tables
