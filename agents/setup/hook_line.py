"""A hook command line that runs relaybay's hook client, for any agent: how it is quoted
for the shell (§5: single quotes on POSIX, double quotes on Windows), and how one written
in an agent's settings is read back (its arguments, its --url) to tell relaybay's own hooks
from the owner's."""

from __future__ import annotations

import itertools
import re
import shlex
from pathlib import PurePath
from typing import Any

from agents.setup.hold import hold_args
from agents.setup.target import Target

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/\s]+:\d+(/[^\s?#]*)$")


def quote(arg: str, *, windows: bool = False) -> str:
    """Shell quoting of §5: single quotes on POSIX, double quotes on Windows."""
    if windows:
        return f'"{arg}"' if any(c in arg for c in ' \t"&()^|<>') else arg
    return shlex.quote(arg)


def hook_command(target: Target, path: str, *, wait: bool = False, hold: bool = False) -> str:
    """The hook client's command line posting to the agent's hook route `path`; with `hold`
    it waits for the owner's answer (--hold after the other options, so that what reads a
    command line by its --url, or a wake-up hook by its last word, reads it as before)."""
    args = [target.python, "-I", "-m", "relaybay.hook_client", "--url", target.base_url + path]
    args += ["--token-file", target.token_file, *(["--wait"] if wait else [])]
    args += hold_args() if hold else []
    return " ".join(quote(a, windows=target.windows) for a in args)


def _split(command: str) -> list[str] | None:
    try:
        return shlex.split(command, posix=True)
    except ValueError:
        return None


def command_url(args: list[str]) -> str | None:
    """The --url value of a relaybay hook command line (client or `relaybay hook`), else None."""
    runs_client = any(
        a == "-m" and b == "relaybay.hook_client" for a, b in itertools.pairwise(args)
    )
    runs_cli = any(
        PurePath(a).name.removesuffix(".exe") == "relaybay" and b == "hook"
        for a, b in itertools.pairwise(args)
    )
    if not (runs_client or runs_cli):
        return None
    for i, arg in enumerate(args):
        if arg == "--url" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--url="):
            return arg.removeprefix("--url=")
    return None


def url_path(url: str) -> str | None:
    match = _URL.match(url)
    return match.group(1) if match else None


def command_args(hook: Any) -> list[str] | None:
    """The argument list of a command hook, None for any other hook or an unparsable line."""
    if not isinstance(hook, dict) or hook.get("type") != "command":
        return None
    command = hook.get("command")
    return _split(command) if isinstance(command, str) else None
