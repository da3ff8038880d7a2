"""The Gemini CLI items of `relaybay setup --agent gemini --check`, `relaybay doctor` and
Settings → Integrations.

The same Item as every agent's (agents/setup/items.py): every failure carries the command or
the one step that fixes it. Gemini is checked beside the others once the owner connected it
(detect.connected; before that it is one ok line naming the command): the detection, its
hooks in settings.json (present, failing open, not switched off by hooksConfig), the hook
command running, relaybay's MCP entry, the folders Gemini trusts (it runs no hook in the
others) and a hook event seen, which the server's sessions tell. Nothing here writes a file.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from agents.gemini_cli import NAME
from agents.gemini_cli.setup import detect, entries, trust
from agents.setup import hold, server
from agents.setup import items as setup_items
from agents.setup.found import show_version
from agents.setup.items import Item
from agents.setup.server import (
    command_runs_item,
    healthz,
    hook_item,
    listens,
    relaybay,
    server_items,
)
from agents.setup.target import TOKEN_ENV

DETECTED = "Gemini CLI"
SETTINGS = "Gemini settings.json"
HOOKS = "Gemini hooks in settings.json"
RUNS = "Gemini hook command runs"
MCP = "Gemini MCP server"
MCP_TOKEN = "Gemini MCP token"  # noqa: S105 - the name of a check, not a secret
SEEN = "Gemini hook event seen"
APPROVALS = "Gemini approvals from the board"
ENDPOINT = "Gemini hook endpoint"
RUN_GEMINI = "start a Gemini CLI session (gemini, in a trusted project folder), then check again"
KNOWN = "the project folders relaybay knows"
CURRENT = "the current folder"
FOLDERS_MAX = 50  # the most recent sessions' folders read besides the projects'
TUI_NOTE = (
    "only the guard's ask can be approved on the board: Gemini's own confirmations happen only "
    "in its TUI and never reach a hook"
)


def setup_fix(home: Path, *words: str) -> str:
    return detect.setup_line(home, relaybay, *words)


def token_export(token_file: str) -> str:
    return f'export {TOKEN_ENV}="$(cat {token_file})"'


def detected_item(home: Path, found: detect.Gemini, *, connected: bool) -> Item:
    shown = f"{found.path} version {show_version(found.version)}"
    if not connected:
        where = shown if found.path is not None else "`gemini` not found on PATH"
        return setup_items.not_connected(DETECTED, setup_fix(home, "--apply"), where)
    if found.path is not None:
        return Item(True, DETECTED, shown)
    detail = f"`gemini` not found on PATH, yet {detect.settings_file(home)} names relaybay"
    return Item(False, DETECTED, detail, f"{detect.INSTALL}, or {setup_fix(home, '--remove')}")


def hook_items(home: Path, base_url: str, data: dict[str, Any]) -> list[Item]:
    """Present for every event at this server, failing open, not switched off; the command
    runs."""
    path = detect.settings_file(home)
    url = base_url + entries.HOOK_PATH
    everywhere = entries.relaybay_hooks(data)
    ours = {
        event: mine
        for event, hooks in everywhere.items()
        if (mine := [h for h in hooks if entries.hook_url(h) == url])
    }
    apply = setup_fix(home, "--apply")
    if not ours:
        other = sorted({entries.hook_url(h) or "" for hooks in everywhere.values() for h in hooks})
        detail = f"no relaybay hooks for {url} in {path}"
        if other:
            detail += f" (they point at {', '.join(other)})"
        return [Item(False, HOOKS, detail, apply)]
    runs = command_runs_item(next(iter(ours.values()))[0], apply)
    hooks = _hooks_item(path, data, ours, url, apply)
    return [hooks, dataclasses.replace(runs, name=RUNS), approvals_item(ours, apply)]


def approvals_item(ours: dict[str, list[Any]], apply: str) -> Item:
    """Whether the owner can approve the guard's ask from the board: relaybay's hooks of the
    events Gemini waits on carry --hold under a longer timeout. Gemini's own confirmations
    never reach a hook, which the ok line says."""
    events = entries.held_events()
    held = {
        e: [h for h in map(entries.hook_hold, ours.get(e, [])) if h is not None] for e in events
    }
    return hold.approvals_item(events, held, fix=apply, note=TUI_NOTE, name=APPROVALS)


def _hooks_item(
    path: Path, data: dict[str, Any], ours: dict[str, list[Any]], url: str, apply: str
) -> Item:
    config = data.get("hooksConfig") if isinstance(data.get("hooksConfig"), dict) else {}
    disabled = config.get("disabled") if isinstance(config.get("disabled"), list) else []
    missing = [e for e in entries.EVENTS if e not in ours]
    closed = sorted(e for e, hooks in ours.items() if not all(map(entries.fails_open, hooks)))
    if config.get("enabled") is False:
        detail = f"hooksConfig.enabled is false in {path}: Gemini runs no hook"
        return Item(False, HOOKS, detail, f"remove hooksConfig.enabled from {path}")
    if entries.HOOK_NAME in disabled:
        name = entries.HOOK_NAME
        detail = f'hooksConfig.disabled in {path} names "{name}": Gemini skips its hooks'
        return Item(False, HOOKS, detail, f'take "{name}" out of hooksConfig.disabled in {path}')
    if missing:
        return Item(False, HOOKS, f"some events are missing: {', '.join(missing)}", apply)
    if closed:
        detail = (
            f"the hooks of {', '.join(closed)} do not fail open: Gemini would deny every tool "
            "once relaybay's Python is gone"
        )
        return Item(False, HOOKS, detail, apply)
    detail = f"all {len(entries.EVENTS)} events point at {url} in {path}, failing open"
    return Item(True, HOOKS, detail)


def mcp_items(
    home: Path, base_url: str, data: dict[str, Any], token_file: str, *, env: bool
) -> list[Item]:
    """relaybay's entry at this server's /mcp with the token variable and trust: true; with
    `env`, the variable is set to the token here (a Gemini started from this shell)."""
    path = detect.settings_file(home)
    entry = entries.mcp_entry(data)
    url = base_url + "/mcp"
    apply = setup_fix(home, "--apply")
    if not isinstance(entry, dict):
        return [Item(False, MCP, f"relaybay is not in mcpServers of {path}", apply)]
    if entry.get("httpUrl") != url:
        where = entry.get("httpUrl") or entry.get("url") or "no httpUrl"
        return [Item(False, MCP, f"relaybay is registered with {where}, not {url}", apply)]
    headers = entry.get("headers") if isinstance(entry.get("headers"), dict) else {}
    auth = headers.get(entries.AUTHORIZATION)
    if not isinstance(auth, str) or not auth.strip():
        detail = f"relaybay is registered at {url} without an Authorization header"
        return [Item(False, MCP, detail, apply)]
    if entry.get("trust") is not True:
        detail = (
            f"relaybay is registered at {url} without trust: true, so Gemini asks before each "
            "of its tools (and `gemini -p` does not offer them)"
        )
        return [Item(False, MCP, detail, apply)]
    if entries.literal_token(entry):
        detail = (
            f"relaybay is registered at {url}, trusted; its token is written in {path} "
            f"(relaybay setup writes {entries.BEARER} instead)"
        )
        return [Item(True, MCP, detail)]
    how = auth.split()[-1]
    items = [Item(True, MCP, f"relaybay is registered at {url} (token from {how}), trusted")]
    if env:
        items.append(token_env_item(token_file))
    return items


def token_env_item(token_file: str) -> Item:
    try:
        token = Path(token_file).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        token = None
    value = os.environ.get(TOKEN_ENV)
    if token and value == token:
        return Item(True, MCP_TOKEN, f"{TOKEN_ENV} is set to the token in this environment")
    why = "not set" if not value else "set to another value than the token"
    detail = (
        f"{TOKEN_ENV} is {why} here, so a Gemini started here reaches relaybay's MCP without it"
    )
    return Item(
        False,
        MCP_TOKEN,
        detail,
        f"{token_export(token_file)} (in the shell, or profile, Gemini starts from)",
    )


def gemini_items(home: Path, base_url: str, token_file: str, *, env: bool = True) -> list[Item]:
    """The settings.json items: hooks, the command, the MCP entry (and its token here)."""
    path = detect.settings_file(home)
    data, error = detect.read_settings(path)
    if data is None:
        fix = f"repair {path}, then {setup_fix(home, '--apply')}"
        return [Item(False, SETTINGS, error or f"cannot read {path}", fix)]
    return hook_items(home, base_url, data) + mcp_items(home, base_url, data, token_file, env=env)


def endpoint_item(base_url: str, token: str) -> Item:
    return hook_item(base_url, token, entries.HOOK_PATH, ENDPOINT)


def check_items(base_url: str, token: str | None, home: Path, token_file: str) -> list[Item]:
    """The items of `relaybay setup --agent gemini --check`: the server (with Gemini's hook
    route), Gemini's settings, the folders it trusts and a hook event seen."""
    health = healthz(base_url)
    reached = health is not None or listens(base_url)
    server = server_items(
        base_url, token, health, reached=reached, hook_path=entries.HOOK_PATH, hook_name=ENDPOINT
    )
    return server + gemini_items(home, base_url, token_file) + database_items(home)


# --- what needs the server's database ------------------------------------------------------


def database_items(home: Path, *, database_file: bool = True) -> list[Item]:
    """The folder trust of the project folders relaybay knows and a hook event seen. The
    commands look for the database file first, so that reading never creates it."""
    from django.conf import settings

    database = settings.DATABASES["default"]["NAME"]
    if database_file and not Path(database).is_file():
        detail = f"no database in the data folder yet ({database})"
        folder = str(Path.cwd())
        return [
            trust.trust_item(home, [folder], where=CURRENT),
            Item(False, SEEN, detail, relaybay("serve")),
        ]
    folders = known_folders()
    if folders is None or not folders:
        item = trust.trust_item(home, [str(Path.cwd())], where=CURRENT)
    else:
        item = trust.trust_item(home, folders, where=KNOWN)
    return [item, seen_item()]


def known_folders() -> list[str] | None:
    """The projects' folders and the folders recent sessions worked in, that exist here;
    None when the database cannot be read."""
    from django.db import DatabaseError

    from sessions.models import Session
    from tasks.models import Project

    try:
        found = list(Project.objects.exclude(repo_path="").values_list("repo_path", flat=True))
        recent = Session.objects.exclude(cwd="").order_by("-id").values_list("cwd", flat=True)
        found += list(recent[:FOLDERS_MAX])
    except DatabaseError:
        return None
    return [f for f in dict.fromkeys(found) if os.path.isabs(f) and os.path.isdir(f)]


def seen_item() -> Item:
    """A session reported by Gemini's hooks, from the server's database."""
    return server.seen_item(NAME, SEEN, "Gemini", RUN_GEMINI, database_file=False)
