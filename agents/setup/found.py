"""What is installed, for any agent: its CLI's answer to a question (`<cli> --version`, a
help text) within a few seconds, the version read from it, and whether an agent's file
that cannot be parsed names relaybay at all."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

TIMEOUT = 5.0  # seconds a CLI gets to answer; a hung one must not hold setup or a page


def run(exe: str, *args: str, stderr: bool = True) -> str | None:
    """The CLI's output (stdout, then stderr unless told not to), None when it cannot run or
    does not answer in time."""
    try:
        done = subprocess.run(  # noqa: S603 - the user's own CLI, no shell
            [exe, *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (done.stdout or "") + ((done.stderr or "") if stderr else "")


def parse_version(text: str) -> tuple[int, int, int] | None:
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2]), int(found[3])) if found else None


def show_version(version: tuple[int, int, int] | None) -> str:
    return ".".join(map(str, version)) if version else "unknown"


def names_relaybay(path: Path) -> bool:
    """For an agent's file that cannot be parsed: connected when it names relaybay (or cannot
    be read at all), so its check still shows what to repair instead of hiding it."""
    try:
        return b"relaybay" in path.read_bytes()
    except FileNotFoundError:
        return False
    except OSError:
        return True
