"""relaybay's hook entries in Claude Code's settings, and the marker rules that find them (§5).

An entry is relaybay's only when it is a command hook running `-m relaybay.hook_client`
(or `relaybay hook`) with `--url <scheme>://<host>:<port>/hooks/claude-code`, or an http
hook whose URL path is exactly /hooks/claude-code on a loopback address or the configured
host. The wake-up hook is that command with the /wait URL followed by exactly --wait.
Nothing extra is written into an entry to mark it, so similar user hooks are never claimed.

The events Claude Code waits on while the owner decides on the board (PreToolUse, the guard's
ask, and PermissionRequest, its own prompt: its SPEC's `holds`) get the long timeout and
the client's --hold after its other options (in http mode the X-Relaybay-Hold header);
every other event keeps its short timeout, so a slow server never holds up a session.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from agents.setup import hold, hook_line
from agents.setup.hook_line import command_args, command_url, url_path
from agents.setup.target import TOKEN_ENV, Target
from relaybay.hook_client import HOLD_HEADER, HOST_ATTENDED_ENV, HOST_SESSION_ENV

HOOK_PATH = "/hooks/claude-code"
WAIT_PATH = "/hooks/claude-code/wait"
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "Notification",
    "Stop",
    "SessionEnd",
)
TOOL_EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse")  # their groups match "*"
COMMAND_TIMEOUT = 3  # seconds: Claude Code's hook "timeout" field
HTTP_TIMEOUT = 2
WAKE_TIMEOUT = 1800
HOST_SESSION_HEADER = "X-Relaybay-Host-Session"
HOST_ATTENDED_HEADER = "X-Relaybay-Host-Attended"
DEFAULT_TIMEOUT = 600  # seconds: Claude Code's timeout of a hook that sets none


def held_events() -> tuple[str, ...]:
    """The events Claude Code waits on while the owner decides (its SPEC's capabilities).
    The adapter needs Django's apps: it is imported when setup asks, never at load."""
    from agents.claude_code.hooks import SPEC

    return hold.held_events(SPEC)


def hook_command(target: Target, *, wait: bool = False, held: bool = False) -> str:
    """The hook client's command line for Claude Code's route (its wake-up route with wait;
    with held, --hold: it waits for the owner's answer)."""
    path = WAIT_PATH if wait else HOOK_PATH
    return hook_line.hook_command(target, path, wait=wait, hold=held)


def command_hook(target: Target, *, held: bool = False) -> dict[str, Any]:
    timeout = hold.HOLD_TIMEOUT if held else COMMAND_TIMEOUT
    return {"type": "command", "command": hook_command(target, held=held), "timeout": timeout}


def http_hook(target: Target, *, held: bool = False) -> dict[str, Any]:
    headers = {
        "Authorization": f"Bearer ${{{TOKEN_ENV}}}",
        HOST_SESSION_HEADER: f"${{{HOST_SESSION_ENV}}}",
        HOST_ATTENDED_HEADER: f"${{{HOST_ATTENDED_ENV}}}",
    }
    if held:
        headers[HOLD_HEADER] = str(hold.HOLD_SECONDS)
    return {
        "type": "http",
        "url": target.base_url + HOOK_PATH,
        # The desktop app's session id and attended flag travel as headers, the way the
        # command client puts them in the body (§4 linking rule 1); Claude Code fills them
        # in only from the variables allowedEnvVars lists.
        "headers": headers,
        "allowedEnvVars": [TOKEN_ENV, HOST_SESSION_ENV, HOST_ATTENDED_ENV],
        "timeout": hold.HOLD_TIMEOUT if held else HTTP_TIMEOUT,
    }


def wake_hook(target: Target) -> dict[str, Any]:
    return {
        "type": "command",
        "command": hook_command(target, wait=True),
        "timeout": WAKE_TIMEOUT,
        "asyncRewake": True,
    }


def desired_hook(
    event: str, target: Target, mode: str, held: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The entry for one event, held (long timeout, --hold) when it is in `held`;
    SessionStart is always the command hook (2.1.332 never runs http hooks for SessionStart,
    so http mode would lose it and its context line)."""
    if mode == "http" and event != "SessionStart":
        return http_hook(target, held=event in held)
    return command_hook(target, held=event in held)


def hook_hold(hook: Any) -> hold.Held | None:
    """What one of relaybay's hooks waits (its --hold, or an http hook's X-Relaybay-Hold)
    and its timeout in seconds; None for a hook that is not a command or http hook."""
    if not isinstance(hook, dict):
        return None
    timeout = hook.get("timeout", DEFAULT_TIMEOUT)
    seconds = float(timeout) if isinstance(timeout, int | float) else float(DEFAULT_TIMEOUT)
    if hook.get("type") == "http":
        headers = hook.get("headers") if isinstance(hook.get("headers"), dict) else {}
        value = next((v for k, v in headers.items() if str(k).lower() == HOLD_HEADER.lower()), "")
        return hold.Held(hold.command_hold([hold.HOLD_OPTION, str(value)]), seconds)
    args = command_args(hook)
    return hold.Held(hold.command_hold(args), seconds) if args is not None else None


def new_group(event: str, hook: dict[str, Any]) -> dict[str, Any]:
    group: dict[str, Any] = {"matcher": "*"} if event in TOOL_EVENTS else {}
    group["hooks"] = [hook]
    return group


def is_wake_hook(hook: Any) -> bool:
    args = command_args(hook)
    url = command_url(args) if args else None
    # "followed by exactly --wait": the command line ends with it, and has it only once
    return (
        bool(url)
        and url_path(url) == WAIT_PATH
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
    return bool(url) and url_path(url) == HOOK_PATH and "--wait" not in args
