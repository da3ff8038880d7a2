"""`relaybay doctor` and `relaybay setup` against the real Claude Code CLI, not just a fake.

The other setup tests use a fake `claude` that echoes a version line; this one installs the
real `@anthropic-ai/claude-code` npm package into a temp folder and checks that detection
reads its `claude --version` output (e.g. `2.1.332 (Claude Code)`), as the issue asks.
Skipped when npm is missing or the package cannot be installed (no network, registry down).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.server import run_cli

NPM_TIMEOUT = 240
VERSION_LINE = re.compile(r"^\s*(\d+\.\d+\.\d+) \(Claude Code\)\s*$")

# The npm install runs in the first test's set-up: give it more than the 120 s default.
pytestmark = pytest.mark.timeout(NPM_TIMEOUT + 120)


@dataclass(frozen=True)
class RealClaude:
    bin_dir: Path
    exe: Path
    version: str


def last_line(text: str) -> str:
    """The last telling line of npm's output (not its "A complete log of this run" pointer)."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    telling = [line for line in lines if "complete log of this run" not in line]
    return (telling or lines or ["no output"])[-1]


@pytest.fixture(scope="module")
def real_claude(tmp_path_factory: pytest.TempPathFactory) -> RealClaude:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not on PATH: cannot install @anthropic-ai/claude-code")
    prefix = tmp_path_factory.mktemp("claude-code-npm")
    try:
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
             "@anthropic-ai/claude-code"],
            capture_output=True, text=True, timeout=NPM_TIMEOUT, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm install @anthropic-ai/claude-code took over {NPM_TIMEOUT} s")
    except OSError as exc:
        pytest.skip(f"npm install @anthropic-ai/claude-code could not run: {exc}")
    if done.returncode != 0:
        pytest.skip(
            f"npm install @anthropic-ai/claude-code failed ({done.returncode}): "
            f"{last_line(done.stderr or done.stdout)}"
        )
    bin_dir = prefix / "node_modules" / ".bin"
    exe = bin_dir / "claude"
    try:
        shown = subprocess.run(
            [str(exe), "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"the installed claude --version did not run: {exc}")
    found = VERSION_LINE.match(shown.stdout)
    if found is None:
        pytest.skip(
            f"the installed claude --version printed no `X.Y.Z (Claude Code)` line: "
            f"{last_line(shown.stdout or shown.stderr)}"
        )
    return RealClaude(bin_dir=bin_dir, exe=exe, version=found[1])


def path_env(real_claude: RealClaude) -> dict[str, str]:
    """The installed claude first on PATH; the rest of PATH kept so `node` is found."""
    return {"PATH": f"{real_claude.bin_dir}{os.pathsep}{os.environ['PATH']}"}


def test_doctor_reports_the_real_claude_code_version(tmp_path, real_claude) -> None:
    claude_home = tmp_path / "profile"
    claude_home.mkdir()
    done = run_cli(
        "doctor", "--json", "--port", "9", "--claude-home", str(claude_home),
        home=tmp_path / "data", env=path_env(real_claude),
    )  # fmt: skip
    assert done.stdout, done.stderr
    by_name = {i["name"]: i for i in json.loads(done.stdout)}
    item = by_name["Claude Code"]
    assert item["ok"], item
    assert str(real_claude.exe) in item["detail"]
    assert f"version {real_claude.version}" in item["detail"]


def test_setup_dry_run_shows_the_real_claude_code_version(tmp_path, real_claude) -> None:
    claude_home = tmp_path / "profile"
    claude_home.mkdir()
    home = tmp_path / "data"
    done = run_cli(
        "setup", "--port", "9123", "--claude-home", str(claude_home),
        home=home, env=path_env(real_claude),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        f"Claude Code: {real_claude.exe} version {real_claude.version}; http hooks supported"
    ) in done.stdout.splitlines()
    assert "Dry run: nothing written" in done.stdout
    assert not (claude_home / ".claude" / "settings.json").exists()
    assert not (home / "token").exists()
