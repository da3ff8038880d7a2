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

import http.client
import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from agents.claude_code.setup import detect
from agents.claude_code.setup.entries import (
    EVENTS,
    HOOK_PATH,
    WAKE_TIMEOUT,
    command_args,
    command_url,
    is_wake_hook,
)
from agents.setup import document
from agents.setup.items import Item, not_connected
from agents.setup.target import TOKEN_ENV
from core import tokens
from core.config import default_home

HTTP_TIMEOUT = 5.0
IMPORT_TIMEOUT = 15.0
MCP_PROTOCOL_VERSION = "2025-11-25"
HOOKS = "hooks in user settings"
DEFAULT_PORT = 8765
CHECK_EVENT = "RelaybayCheck"  # an unknown hook_event_name: the endpoint ignores it (204)


def request(
    base_url: str,
    method: str,
    path: str,
    *,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes]:
    """One request to the server; OSError when nothing answers."""
    parts = urlsplit(base_url)
    conn_class = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    )
    conn = conn_class(parts.hostname or "127.0.0.1", parts.port, timeout=HTTP_TIMEOUT)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def healthz(base_url: str) -> dict[str, Any] | None:
    """The server's /healthz answer, None when nothing (or something else) answers."""
    try:
        status, body = request(base_url, "GET", "/healthz")
        data = json.loads(body)
    except (OSError, http.client.HTTPException, ValueError):
        return None
    return data if status == 200 and isinstance(data, dict) else None


def server_items(
    base_url: str,
    token: str | None,
    health: dict[str, Any] | None,
    *,
    reached: bool,
    hook_path: str = HOOK_PATH,
    hook_name: str = "hook endpoint",
) -> list[Item]:
    """relaybay server, MCP with the token, hook endpoint (Claude Code's, or the agent's
    route `hook_path`); only the first without a token or when nothing listens. `reached`
    is whether anything answered at all."""
    name = "relaybay server"
    if token is None:
        return [
            Item(False, name, "no token file, so the server cannot be checked", relaybay("serve"))
        ]
    if health is None:
        why = "something answers but not as relaybay" if reached else "nothing listens"
        return [Item(False, name, f"{base_url}: {why}", relaybay("serve"))]
    mine = tokens.token_id(token)
    theirs = health.get("token_id")
    version = health.get("version", "?")
    if theirs == mine:
        first = Item(True, name, f"{base_url} answers (relaybay {version}) with the same token")
    else:
        first = Item(
            False,
            name,
            f"{base_url} answers with another token (token id {theirs}, the token file has {mine})",
            "stop that server and run relaybay serve here, or pass its data folder with --home",
        )
    return [first, mcp_item(base_url, token), hook_item(base_url, token, hook_path, hook_name)]


def mcp_item(base_url: str, token: str) -> Item:
    name = "MCP with the token"
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": MCP_PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "relaybay-check", "version": "1"},
            },
        }
    ).encode()
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {token}",
    }
    try:
        status, reply = request(base_url, "POST", "/mcp", body=body, headers=headers)
    except (OSError, http.client.HTTPException) as exc:
        return Item(False, name, f"POST {base_url}/mcp failed: {exc}", _restart())
    if status == 200 and _has_result(reply):
        return Item(True, name, f"initialize accepted at {base_url}/mcp")
    detail = f"initialize at {base_url}/mcp answered {status} without a result"
    return Item(False, name, detail, _restart())


def _has_result(reply: bytes) -> bool:
    """A JSON-RPC result, as plain JSON or in the data lines of an event stream."""
    text = reply.decode("utf-8", "replace")
    candidates = [text] + [
        line.removeprefix("data:").strip() for line in text.splitlines() if line.startswith("data:")
    ]
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict) and "result" in data:
            return True
    return False


def hook_item(
    base_url: str, token: str, path: str = HOOK_PATH, name: str = "hook endpoint"
) -> Item:
    """A synthetic event of a kind no adapter handles: accepted (204) and ignored."""
    body = json.dumps({"hook_event_name": CHECK_EVENT, "session_id": "relaybay-check"}).encode()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    try:
        status, _ = request(base_url, "POST", path, body=body, headers=headers)
    except (OSError, http.client.HTTPException) as exc:
        return Item(False, name, f"POST {base_url}{path} failed: {exc}", _restart())
    if status in (200, 204):
        return Item(True, name, f"a synthetic hook event was accepted ({status})")
    detail = f"a synthetic hook event was answered {status}"
    if status == 404:
        detail += f": this server has no {path} (one started from an older relaybay?)"
    return Item(False, name, detail, _restart())


def rules_item(settings_hash: str, health: dict[str, Any] | None) -> Item:
    name = "rules hash"
    if health is None or "rules_hash" not in health:
        return Item(True, name, f"{settings_hash} (no running server to compare with)")
    running = health["rules_hash"]
    if running == settings_hash:
        return Item(True, name, f"{settings_hash}, the same as the running server's")
    return Item(
        False,
        name,
        f"the settings give {settings_hash} but the running server uses {running}",
        _restart() + " (it loads the rules at start)",
    )


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
        items += _wake_items(data)
    items.append(mcp_registered_item(claude_home, base_url))
    return items


def _runner_items(found: dict[str, list[dict[str, Any]]], token: str | None) -> list[Item]:
    hooks = [h for group in found.values() for h in group]
    commands = [h for h in hooks if h.get("type") == "command"]
    http_hooks = [h for h in hooks if h.get("type") == "http"]
    items: list[Item] = []
    if commands:
        items.append(command_runs_item(commands[0]))
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


def command_runs_item(hook: dict[str, Any]) -> Item:
    name = "command hook runs"
    args = command_args(hook) or []
    if not args:
        return Item(False, name, "the hook command cannot be parsed", relaybay("setup", "--apply"))
    python = args[0]
    try:
        done = subprocess.run(  # noqa: S603 - the interpreter named in the user's settings
            [python, "-I", "-c", "import relaybay.hook_client"],
            capture_output=True,
            text=True,
            timeout=IMPORT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Item(False, name, f"{python} cannot run: {exc}", relaybay("setup", "--apply"))
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        detail = f"{python} cannot import relaybay.hook_client: {last}"
        return Item(
            False,
            name,
            detail,
            relaybay("setup", "--apply") + " (writes the hook with this Python)",
        )
    return Item(True, name, f"{python} imports relaybay.hook_client")


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


def relaybay(*words: str) -> str:
    """A relaybay command line with the flags that point it at this server's data folder
    and address (none when they are the defaults), so a fix can be pasted as it is."""
    cfg = settings.RELAYBAY
    args = ["relaybay", *words]
    if Path(cfg.home_path) != default_home():
        args += ["--home", str(cfg.home_path)]
    for name, default in (("host", "127.0.0.1"), ("port", DEFAULT_PORT)):
        if cfg[name] != default:
            args += [f"--{name}", str(cfg[name])]
    return shlex.join(args)


def _restart() -> str:
    return f"restart the server: stop it, then {relaybay('serve')}"


def _mcp_add(base_url: str) -> str:
    line = tokens.mcp_add_command(base_url, "<token>")
    return f"{line} (relaybay token prints it with your token)"


def check_items(
    base_url: str, token: str | None, claude_home: Path, *, if_connected: bool = False
) -> list[Item]:
    """The items of `relaybay setup --check`, which asks about Claude Code by name; the
    Integrations page passes `if_connected` and gets one line for a Claude Code not connected."""
    health = healthz(base_url)
    reached = health is not None or _listens(base_url)
    items = server_items(base_url, token, health, reached=reached)
    if if_connected and not detect.claude_connected(claude_home):
        return [*items, not_connected("Claude Code", relaybay("setup", "--apply"))]
    return items + claude_items(claude_home, base_url, token)


def _listens(base_url: str) -> bool:
    try:
        request(base_url, "GET", "/healthz")
    except (OSError, http.client.HTTPException):
        return False
    return True
