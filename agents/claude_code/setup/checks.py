"""The check items of `relaybay setup --check` and `relaybay doctor` (§5 #spec-setup).

Every item is an `Item(ok, name, detail, fix)`; both commands print them as `[ok]` /
`[FAIL]` lines or as a JSON list of {ok, name, detail, fix}. A failed item cannot be made
without its fix — the command (or the one step) that repairs it, which ends its line — so
no check can leave a user with a failure and no way out. Nothing here
writes a file or creates the token: the caller passes the token it has (or None). HTTP
goes through http.client directly, so a system proxy never gets in the way of a loopback
check.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agents.claude_code.setup import detect
from agents.claude_code.setup.entries import (
    EVENTS,
    HOOK_PATH,
    WAKE_TIMEOUT,
    command_args,
    command_url,
    held_events,
    hook_hold,
    is_wake_hook,
)
from agents.setup import document, hold
from agents.setup.items import Item, not_connected
from agents.setup.server import (
    command_runs_item,
    healthz,
    listens,
    relaybay,
    server_items,
)
from agents.setup.target import TOKEN_ENV

HOOKS = "hooks in user settings"


def hooks_for(data: Any, base_url: str) -> dict[str, list[dict[str, Any]]]:
    """relaybay's event hooks (not the wake-up hook) pointing at base_url, per event."""
    url = base_url + HOOK_PATH
    found: dict[str, list[dict[str, Any]]] = {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            items = group.get("hooks") if isinstance(group, dict) else None
            for hook in items if isinstance(items, list) else []:
                if _hook_url(hook) == url:
                    found.setdefault(event, []).append(hook)
    return found


def _hook_url(hook: Any) -> str | None:
    if isinstance(hook, dict) and hook.get("type") == "http":
        url = hook.get("url")
        return url if isinstance(url, str) else None
    args = command_args(hook)
    if not args or is_wake_hook(hook) or "--wait" in args:
        return None
    return command_url(args)


def _wake_hooks(data: Any) -> list[dict[str, Any]]:
    hooks = data.get("hooks") if isinstance(data, dict) else None
    groups = hooks.get("Stop") if isinstance(hooks, dict) else None
    found = []
    for group in groups if isinstance(groups, list) else []:
        items = group.get("hooks") if isinstance(group, dict) else None
        found += [h for h in (items if isinstance(items, list) else []) if is_wake_hook(h)]
    return found


def claude_items(claude_home: Path, base_url: str, token: str | None) -> list[Item]:
    """Hooks in user settings, command hook runs / RELAYBAY_TOKEN, wake-up hook, MCP."""
    settings_path = detect.settings_file(claude_home)
    items: list[Item] = []
    data: Any = {}
    try:
        raw = settings_path.read_bytes()
    except FileNotFoundError:
        items.append(
            Item(False, HOOKS, f"{settings_path} does not exist", relaybay("setup", "--apply"))
        )
        raw = None
    except OSError as exc:
        detail = f"cannot read {settings_path}: {exc}"
        items.append(Item(False, HOOKS, detail, f"chmod u+rw {settings_path}"))
        raw = None
    if raw is not None:
        try:
            data = document.parse(document.decode(raw, settings_path.name), settings_path.name)
        except document.SettingsError as exc:
            fix = f"repair the JSON of {settings_path}, then {relaybay('setup', '--apply')}"
            items.append(Item(False, HOOKS, str(exc), fix))
            raw = None
    if raw is not None:
        found = hooks_for(data, base_url)
        missing = [e for e in EVENTS if e not in found]
        if not found:
            detail = f"no relaybay hooks for {base_url} in {settings_path}"
            items.append(Item(False, HOOKS, detail, relaybay("setup", "--apply")))
        elif missing:
            detail = f"some events are missing: {', '.join(missing)}"
            items.append(Item(False, HOOKS, detail, relaybay("setup", "--apply")))
        else:
            detail = f"all {len(EVENTS)} events point at {base_url} in {settings_path}"
            items.append(Item(True, HOOKS, detail))
        items += _runner_items(found, token)
        if found:  # without any of relaybay's hooks the line above already says it all
            items.append(approvals_item(found))
        items += _wake_items(data)
    items.append(mcp_registered_item(claude_home, base_url))
    return items


def _runner_items(found: dict[str, list[dict[str, Any]]], token: str | None) -> list[Item]:
    hooks = [h for group in found.values() for h in group]
    commands = [h for h in hooks if h.get("type") == "command"]
    http_hooks = [h for h in hooks if h.get("type") == "http"]
    items: list[Item] = []
    if commands:
        items.append(command_runs_item(commands[0], relaybay("setup", "--apply")))
    if http_hooks:
        env_token = os.environ.get(TOKEN_ENV)
        if token is not None and env_token == token:
            items.append(Item(True, "http hooks token", f"{TOKEN_ENV} is set to the token"))
        else:
            why = "not set" if not env_token else "set to another value than the token"
            items.append(
                Item(
                    False,
                    "http hooks token",
                    f"{TOKEN_ENV} is {why} in this environment",
                    f"export {TOKEN_ENV}=<the token in the data folder's token file> before "
                    f"starting Claude Code, or {relaybay('setup', '--apply', '--mode', 'command')}",
                )
            )
        if "SessionStart" in found and all(
            h.get("type") == "command" for h in found["SessionStart"]
        ):
            items.append(
                Item(
                    True,
                    "SessionStart hook",
                    "runs as a command hook: Claude Code 2.1.332 never runs http hooks "
                    "for SessionStart",
                )
            )
    return items


def approvals_item(found: dict[str, list[dict[str, Any]]]) -> Item:
    """Whether the owner can approve from the board: relaybay's hooks of the events Claude
    Code waits on carry --hold (an http hook X-Relaybay-Hold) under a longer timeout."""
    events = held_events()
    held = {e: [h for h in map(hook_hold, found.get(e, [])) if h is not None] for e in events}
    http = any(h.get("type") == "http" for e in events for h in found.get(e, []))
    fix = relaybay("setup", "--apply", *(["--mode", "http"] if http else []))
    return hold.approvals_item(events, held, fix=fix)


def _wake_items(data: Any) -> list[Item]:
    if not _wake_hooks(data):
        return []
    verified = detect.show_version(detect.MIN_ASYNC_REWAKE_VERSION)
    return [
        Item(
            True,
            "wake-up hook",
            f"installed on Stop; verified with Claude Code {verified}. Risk: a build that "
            f"ignores asyncRewake holds the end of every turn for up to {WAKE_TIMEOUT // 60} "
            "minutes (remove it with relaybay setup --apply --no-wake)",
        )
    ]


def mcp_registered_item(claude_home: Path, base_url: str) -> Item:
    name = "MCP registered"
    claude_json = claude_home / ".claude.json"
    url = detect.mcp_registration(claude_json)
    if url is None:
        return Item(
            False, name, f"relaybay is not in mcpServers of {claude_json}", _mcp_add(base_url)
        )
    if url and url != base_url + "/mcp":
        return Item(
            False,
            name,
            f"relaybay is registered with {url}, not {base_url}/mcp",
            f"claude mcp remove --scope user relaybay, then {_mcp_add(base_url)}",
        )
    return Item(True, name, f"relaybay is registered for Claude Code ({url or 'no url'})")


def _mcp_add(base_url: str) -> str:
    line = detect.mcp_add_command(base_url, "<token>")
    return f"{line} (relaybay token prints it with your token)"


def check_items(
    base_url: str, token: str | None, claude_home: Path, *, if_connected: bool = False
) -> list[Item]:
    """The items of `relaybay setup --check`, which asks about Claude Code by name; the
    Integrations page passes `if_connected` and gets one line for a Claude Code not connected."""
    health = healthz(base_url)
    reached = health is not None or listens(base_url)
    items = server_items(base_url, token, health, reached=reached, hook_path=HOOK_PATH)
    if if_connected and not detect.claude_connected(claude_home):
        return [*items, not_connected("Claude Code", relaybay("setup", "--apply"))]
    return items + claude_items(claude_home, base_url, token)
