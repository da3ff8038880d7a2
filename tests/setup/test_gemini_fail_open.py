"""The hook command setup writes for Gemini CLI fails open. Gemini 0.61.0 runs it as
`bash -c <command>` and reads a missing command (exit 127) or an exit code of 3 and up as a
deny of the tool (tests/fixtures/gemini-cli-0.61.0/answers/hook-failures.json): so whatever
is gone — the interpreter, the venv, relaybay in it — the command prints `{}` and exits 0,
with nothing on stderr (Gemini parses stderr when stdout is empty)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agents.gemini_cli.setup import entries
from agents.setup.target import Target

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gemini-cli-0.61.0"
BEFORE_TOOL = (FIXTURES / "hooks" / "BeforeTool.run_shell_command.json").read_text()
FAILURES = json.loads((FIXTURES / "answers" / "hook-failures.json").read_text())
BASH = shutil.which("bash")

pytestmark = pytest.mark.skipif(BASH is None, reason="Gemini runs hooks with bash")


def run_as_gemini(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """As Gemini runs a hook: bash -c, the project folder as cwd, the input on stdin."""
    return subprocess.run(
        [BASH, "-c", command],
        input=BEFORE_TOOL,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=30,
        check=False,
    )


def command(tmp_path: Path, python: str) -> str:
    target = Target("http://127.0.0.1:9/", str(tmp_path / "token"), python)
    return entries.hook_command(target)


def assert_fails_open(done: subprocess.CompletedProcess[str]) -> None:
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "{}", "")


def test_the_captured_missing_hook_denied_and_the_tail_turns_it_into_a_pass(tmp_path) -> None:
    """The capture's missing hook blocked the shell tool with bash's own message; the same
    command with setup's tail prints {} and exits 0."""
    missing = FAILURES["extra_hook"]["command"]
    [seen] = [c for c in FAILURES["model_saw"] if c["hook"] == "run_shell_command"]
    blocked = seen["next_model_request_new_contents"][1]["parts"][0]["functionResponse"]
    bare = run_as_gemini(missing, tmp_path)
    assert bare.returncode == 127
    said = bare.stderr.strip().split("bash: ", 1)[1]  # bash names itself by its path here
    assert blocked["response"]["error"] == f"Tool execution blocked: bash: {said}"
    assert_fails_open(run_as_gemini(f"{missing} {entries.FAIL_OPEN}", tmp_path))


def test_an_interpreter_that_does_not_exist(tmp_path: Path) -> None:
    done = run_as_gemini(command(tmp_path, "/nonexistent/venv/bin/python"), tmp_path)
    assert_fails_open(done)


def test_a_venv_that_was_deleted(tmp_path: Path) -> None:
    """A real venv without relaybay (-I sees no site-packages anyway) fails to import the
    client; once the venv folder is deleted, the interpreter itself is gone."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    assert_fails_open(run_as_gemini(command(tmp_path, python), tmp_path))
    shutil.rmtree(venv)
    assert_fails_open(run_as_gemini(command(tmp_path, python), tmp_path))


@pytest.mark.parametrize("body", ["exit 3", "echo broken >&2; exit 2", "exit 127"])
def test_an_interpreter_that_fails_with_any_code(tmp_path: Path, body: str) -> None:
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\ncat >/dev/null\n{body}\n")
    fake.chmod(0o755)
    assert_fails_open(run_as_gemini(command(tmp_path, str(fake)), tmp_path))


def test_an_interpreter_that_cannot_be_executed(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("not a program\n")
    fake.chmod(0o644)
    assert_fails_open(run_as_gemini(command(tmp_path, str(fake)), tmp_path))


def test_the_real_client_with_relaybay_down_exits_0_silently(tmp_path: Path) -> None:
    done = run_as_gemini(command(tmp_path, sys.executable), tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_path_with_spaces_and_quotes_still_fails_open(tmp_path: Path) -> None:
    odd = tmp_path / "my venv's bin" / "python"
    assert_fails_open(run_as_gemini(command(tmp_path, str(odd)), tmp_path))
