"""relaybay's hook entries in Claude Code's settings, and the marker rules that find them (§5).

An entry is relaybay's only when it is a command hook running `-m relaybay.hook_client`
(or `relaybay hook`) with `--url <scheme>://<host>:<port>/hooks/claude-code`, or an http
hook whose URL path is exactly /hooks/claude-code on a loopback address or the configured
host. The wake-up hook is that command with the /wait URL followed by exactly --wait.
Nothing extra is written into an entry to mark it, so similar user hooks are never claimed.
"""

from __future__ import annotations

import ipaddress
import itertools
import re
import shlex
from pathlib import PurePath
from typing import Any
from urllib.parse import urlsplit

from agents.setup.target import TOKEN_ENV, Target
from relaybay.hook_client import HOST_ATTENDED_ENV, HOST_SESSION_ENV

HOOK_PATH = "/hooks/claude-code"
WAIT_PATH = "/hooks/claude-code/wait"
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Notification",
    "Stop",
    "SessionEnd",
)
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
COMMAND_TIMEOUT = 3  # seconds: Claude Code's hook "timeout" field
HTTP_TIMEOUT = 2
WAKE_TIMEOUT = 1800
HOST_SESSION_HEADER = "X-Relaybay-Host-Session"
HOST_ATTENDED_HEADER = "X-Relaybay-Host-Attended"
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/\s]+:\d+(/[^\s?#]*)$")


def quote(arg: str, *, windows: bool = False) -> str:
    """Shell quoting of §5: single quotes on POSIX, double quotes on Windows."""
    if windows:
        return f'"{arg}"' if any(c in arg for c in ' \t"&()^|<>') else arg
    return shlex.quote(arg)


def hook_command(target: Target, *, wait: bool = False, path: str | None = None) -> str:
    """The hook client's command line; `path` picks another agent's hook route (Codex)."""
    url = target.base_url + (path or (WAIT_PATH if wait else HOOK_PATH))
    args = [target.python, "-I", "-m", "relaybay.hook_client", "--url", url]
    args += ["--token-file", target.token_file, *(["--wait"] if wait else [])]
    return " ".join(quote(a, windows=target.windows) for a in args)


def command_hook(target: Target) -> dict[str, Any]:
    return {"type": "command", "command": hook_command(target), "timeout": COMMAND_TIMEOUT}


def http_hook(target: Target) -> dict[str, Any]:
    return {
        "type": "http",
        "url": target.base_url + HOOK_PATH,
        # The desktop app's session id and attended flag travel as headers, the way the
        # command client puts them in the body (§4 linking rule 1); Claude Code fills them
        # in only from the variables allowedEnvVars lists.
        "headers": {
            "Authorization": f"Bearer ${{{TOKEN_ENV}}}",
            HOST_SESSION_HEADER: f"${{{HOST_SESSION_ENV}}}",
            HOST_ATTENDED_HEADER: f"${{{HOST_ATTENDED_ENV}}}",
        },
        "allowedEnvVars": [TOKEN_ENV, HOST_SESSION_ENV, HOST_ATTENDED_ENV],
        "timeout": HTTP_TIMEOUT,
    }


def wake_hook(target: Target) -> dict[str, Any]:
    return {
        "type": "command",
        "command": hook_command(target, wait=True),
        "timeout": WAKE_TIMEOUT,
        "asyncRewake": True,
    }


def desired_hook(event: str, target: Target, mode: str) -> dict[str, Any]:
    """The entry for one event; SessionStart is always the command hook (2.1.332 never runs
    http hooks for SessionStart, so http mode would lose it and its context line)."""
    if mode == "http" and event != "SessionStart":
        return http_hook(target)
    return command_hook(target)


def new_group(event: str, hook: dict[str, Any]) -> dict[str, Any]:
    group: dict[str, Any] = {"matcher": "*"} if event in TOOL_EVENTS else {}
    group["hooks"] = [hook]
    return group


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


def _url_path(url: str) -> str | None:
    match = _URL.match(url)
    return match.group(1) if match else None


def command_args(hook: Any) -> list[str] | None:
    """The argument list of a command hook, None for any other hook or an unparsable line."""
    if not isinstance(hook, dict) or hook.get("type") != "command":
        return None
    command = hook.get("command")
    return _split(command) if isinstance(command, str) else None


def is_wake_hook(hook: Any) -> bool:
    args = command_args(hook)
    url = command_url(args) if args else None
    # "followed by exactly --wait": the command line ends with it, and has it only once
    return (
        bool(url)
        and _url_path(url) == WAIT_PATH
        and args[-1:] == ["--wait"]
        and (args.count("--wait") == 1)
    )


def _is_local(host: str, configured: str) -> bool:
    if host == "localhost" or host == configured.strip("[]"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_relaybay_hook(hook: Any, target: Target) -> bool:
    """relaybay's event hook (not the wake-up hook), by the marker rules of §5."""
    if isinstance(hook, dict) and hook.get("type") == "http":
        url = hook.get("url")
        if not isinstance(url, str):
            return False
        try:
            parts = urlsplit(url)
            host = parts.hostname or ""
        except ValueError:
            return False
        return parts.path == HOOK_PATH and _is_local(host, target.host)
    args = command_args(hook)
    url = command_url(args) if args else None
    return bool(url) and _url_path(url) == HOOK_PATH and "--wait" not in args
