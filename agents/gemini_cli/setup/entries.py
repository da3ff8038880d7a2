"""relaybay's entries in Gemini CLI's settings.json, and the marker rules that find them.

Hooks: one group per event relaybay handles, each with one command hook running the hook
client with `--url <base>/hooks/gemini` and the token file. Gemini 0.61.0 runs a hook as
`bash -c <command>` and reads a missing command (exit 127) or an exit code of 3 and up as a
DENY of the tool (tests/fixtures/gemini-cli-0.61.0/README.md, "Failures"): a deleted venv
would block every tool. So the command fails open — its stderr goes nowhere and any failure
prints `{}` and exits 0. The timeout is in milliseconds: short, but long (with the client's
--hold before the fail-open tail) on the event Gemini waits on while the owner decides on
the board (BeforeTool, the guard's ask: its SPEC's `holds`). Never BeforeModel, AfterModel,
BeforeToolSelection or PreCompress (PreCompress `auto` fires before every model request),
never the client's --wait (exit 2 is a deny for Gemini).

An entry is relaybay's when it is a command hook whose command runs relaybay's hook client
(or `relaybay hook`) with a --url whose path is /hooks/gemini; the shell words of the
fail-open tail are read past. Nothing extra marks an entry, so similar user hooks are
never claimed.

MCP: `mcpServers.relaybay`, relaybay's by its name: Streamable HTTP at `<base>/mcp`, the
Bearer header as `${RELAYBAY_TOKEN}` (Gemini expands it from its environment; the token is
never written into the file) and `trust: true` for relaybay's own tools. Keys the owner
added to that entry (another header, a timeout) are kept; another transport's are dropped.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from agents.gemini_cli import NAME
from agents.setup import hold, hook_line
from agents.setup.hook_line import command_args, command_url, url_path
from agents.setup.target import TOKEN_ENV, Target

HOOK_PATH = f"/hooks/{NAME}"  # the adapter's SPEC.path, known without Django
EVENTS = (
    "SessionStart",
    "BeforeAgent",
    "BeforeTool",
    "AfterTool",
    "AfterAgent",
    "Notification",
    "SessionEnd",
)
TIMEOUT_MS = 5000  # Gemini's hook timeout is in ms; the client itself gives up after 2 s
HELD_TIMEOUT_MS = hold.HOLD_TIMEOUT * 1000  # a held event's: above the client's --hold
DEFAULT_TIMEOUT_MS = 60000  # Gemini's timeout of a hook that sets none
HOOK_NAME = "relaybay"  # what Gemini's messages and hooksConfig.disabled call the hooks
FAIL_OPEN = "2>/dev/null || echo {}"
MCP_NAME = "relaybay"
# The keys of another transport: with them beside httpUrl the entry would be ambiguous.
TRANSPORT_KEYS = ("url", "type", "command", "args", "cwd", "env", "tcp")
AUTHORIZATION = "Authorization"
BEARER = f"Bearer ${{{TOKEN_ENV}}}"
# Linking MCP calls to a session from a script: `gemini --session-id <id>` with this
# variable set to the same id, and this header in relaybay's entry.
SESSION_ENV = "RELAYBAY_SESSION"
SESSION_HEADER = "X-Relaybay-Session"


def held_events() -> tuple[str, ...]:
    """The events Gemini waits on while the owner decides (its SPEC's capabilities). The
    adapter needs Django's apps: it is imported when setup asks, never at load."""
    from agents.gemini_cli.hooks import SPEC

    return hold.held_events(SPEC)


def hook_command(target: Target, *, held: bool = False) -> str:
    """The hook client's command line for Gemini's route (with held, --hold: it waits for
    the owner's answer), with the fail-open tail after it."""
    return f"{hook_line.hook_command(target, HOOK_PATH, hold=held)} {FAIL_OPEN}"


def command_hook(target: Target, *, held: bool = False) -> dict[str, Any]:
    return {
        "type": "command",
        "name": HOOK_NAME,
        "command": hook_command(target, held=held),
        "timeout": HELD_TIMEOUT_MS if held else TIMEOUT_MS,
    }


def hook_hold(hook: Any) -> hold.Held | None:
    """What one of relaybay's hooks waits (its --hold) and its timeout in seconds (Gemini
    writes milliseconds); None for a hook that is not a command hook."""
    args = command_args(hook)
    if args is None:
        return None
    timeout = hook.get("timeout", DEFAULT_TIMEOUT_MS)
    ms = timeout if isinstance(timeout, int | float) else DEFAULT_TIMEOUT_MS
    return hold.Held(hold.command_hold(args), ms / 1000)


def hook_url(hook: Any) -> str | None:
    """The --url of a relaybay hook command (any agent's), else None."""
    args = command_args(hook)
    return command_url(args) if args else None


def is_relaybay_hook(hook: Any) -> bool:
    """relaybay's Gemini hook, by the marker rules above (also a wait route under it)."""
    url = hook_url(hook)
    path = url_path(url) if url else None
    return path is not None and (path == HOOK_PATH or path.startswith(HOOK_PATH + "/"))


def fails_open(hook: Any) -> bool:
    """Whether the hook command ends with the fail-open tail."""
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and command.rstrip().endswith(FAIL_OPEN)


def relaybay_hooks(data: Any) -> dict[str, list[dict[str, Any]]]:
    """relaybay's hooks in a settings document, per event (any address)."""
    found: dict[str, list[dict[str, Any]]] = {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for hook in handlers if isinstance(handlers, list) else ():
                if is_relaybay_hook(hook):
                    found.setdefault(event, []).append(hook)
    return found


def mcp_entry(data: Any) -> Any:
    """`mcpServers.relaybay` as the document has it, None when there is none."""
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return servers.get(MCP_NAME) if isinstance(servers, dict) else None


def desired_mcp(base_url: str, existing: Any = None) -> dict[str, Any]:
    """relaybay's MCP entry: the owner's own keys and headers of an existing one kept."""
    old = existing if isinstance(existing, dict) else {}
    entry = {k: copy.deepcopy(v) for k, v in old.items() if k not in TRANSPORT_KEYS}
    headers = old.get("headers") if isinstance(old.get("headers"), dict) else {}
    entry["httpUrl"] = base_url + "/mcp"
    entry["headers"] = {**copy.deepcopy(headers), AUTHORIZATION: BEARER}
    entry["trust"] = True
    return entry


def literal_token(entry: Any) -> bool:
    """Whether an entry's Authorization header holds a token instead of the variable."""
    headers = entry.get("headers") if isinstance(entry, dict) else None
    value = headers.get(AUTHORIZATION) if isinstance(headers, dict) else None
    return isinstance(value, str) and "$" not in value and value.strip() != ""


def with_relaybay(data: dict[str, Any], target: Target) -> dict[str, Any]:
    """`data` with relaybay's hooks (updated where they stand, missing ones appended after
    the owner's hooks, any on another event dropped) and its MCP entry."""
    new = copy.deepcopy(data)
    hooks = new.setdefault("hooks", {})
    for event in list(hooks):
        if event not in EVENTS:
            _drop(hooks, event, is_relaybay_hook)
    held = held_events()
    for event in EVENTS:
        _put(hooks, event, command_hook(target, held=event in held), is_relaybay_hook)
    servers = new.setdefault("mcpServers", {})
    servers[MCP_NAME] = desired_mcp(target.base_url, servers.get(MCP_NAME))
    return new


def without_relaybay(data: dict[str, Any]) -> dict[str, Any]:
    """`data` without relaybay's hooks and MCP entry; a "hooks" or "mcpServers" left empty
    by that is taken out too."""
    new = copy.deepcopy(data)
    if isinstance(new.get("hooks"), dict):
        for event in list(new["hooks"]):
            _drop(new["hooks"], event, is_relaybay_hook)
        if not new["hooks"] and data["hooks"]:
            del new["hooks"]
    servers = new.get("mcpServers")
    if isinstance(servers, dict) and MCP_NAME in servers:
        del servers[MCP_NAME]
        if not servers:
            del new["mcpServers"]
    return new


def _put(hooks: dict[str, Any], event: str, hook: dict[str, Any], ours: Callable) -> None:
    """Replace the first hook of ours in `event` with `hook`, drop any duplicate, or append
    a group of its own."""
    groups = hooks.setdefault(event, [])
    placed = False
    for group in groups:
        kept = []
        for item in group["hooks"]:
            if not ours(item):
                kept.append(item)
            elif not placed:
                kept.append(hook)
                placed = True
        group["hooks"] = kept
    groups[:] = [g for g in groups if g["hooks"]]
    if not placed:
        groups.append({"hooks": [hook]})


def _drop(hooks: dict[str, Any], event: str, ours: Callable) -> None:
    groups = hooks[event]
    if not any(ours(h) for g in groups for h in g["hooks"]):
        return
    for group in groups:
        group["hooks"] = [h for h in group["hooks"] if not ours(h)]
    groups[:] = [g for g in groups if g["hooks"]]
    if not groups:
        del hooks[event]
