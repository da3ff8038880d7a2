"""A developer's own agent homes (GEMINI_CLI_HOME, CODEX_HOME …) never reach a test: the
Integrations page, doctor and setup tests read the homes they make (tests/support/fixtures.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fixtures import AGENT_HOME_VARIABLES
from tests.support.server import clean_env

ROOT = Path(__file__).resolve().parent.parent


def test_no_agent_home_reaches_a_test_or_a_server_it_starts() -> None:
    assert [name for name in AGENT_HOME_VARIABLES if name in os.environ] == []
    assert [name for name in AGENT_HOME_VARIABLES if name in clean_env()] == []


def test_a_test_sets_its_own(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from agents.gemini_cli.setup import detect

    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path))
    assert detect.gemini_home() == tmp_path


def test_a_developers_homes_are_cleared(tmp_path: Path) -> None:
    """The same checks in a pytest started with every variable set, as a developer's shell."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RELAYBAY_", "PYTEST_"))}
    env.update({name: str(tmp_path / name) for name in AGENT_HOME_VARIABLES})
    inner = test_no_agent_home_reaches_a_test_or_a_server_it_starts.__name__
    node = f"{Path(__file__).relative_to(ROOT)}::{inner}"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", node],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
