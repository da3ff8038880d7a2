"""The Codex items of `relaybay setup --agent codex --check`, `relaybay doctor` and
Settings → Integrations.

The same Item as every agent's (agents/setup/items.py): every failure carries the command or the one
step that fixes it. Codex is checked beside Claude Code, not instead, once the owner
connected it (`connected`; before that it is one ok line naming the command): the detection, its
hooks in config.toml (present, and trusted — Codex skips an untrusted hook silently), the
MCP registration, and a hook event seen, which the server's sessions tell (a session whose
hooks came through /hooks/codex has agent "codex"). Nothing here writes a file.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
from pathlib import Path

from agents.codex.setup import config as codex
from agents.setup import hold, hook_line, server
from agents.setup import items as setup_items
from agents.setup.found import names_relaybay, show_version
from agents.setup.items import Item
from agents.setup.server import (
    command_runs_item,
    healthz,
    hook_item,
    listens,
    relaybay,
    server_items,
)

DETECTED = "Codex"
CONFIG = "Codex config.toml"
HOOKS = "Codex hooks in config.toml"
TRUSTED = "Codex hooks trusted"
RUNS = "Codex hook command runs"
MCP = "Codex MCP registered"
MCP_TOKEN = "Codex MCP token"  # noqa: S105 - the name of a check, not a secret
SEEN = "Codex hook event seen"
APPROVALS = "Codex approvals from the board"
ENDPOINT = "Codex hook endpoint"
INSTALL = "npm install -g @openai/codex"
RUN_CODEX = "start a Codex session (codex, in a project folder), then check again"
EXEC_NOTE = (
    "`codex exec` asks a PermissionRequest only with on-request approvals (--approve-for-me); "
    "the guard's ask waits in every mode"
)


def setup_fix(home: Path, *words: str) -> str:
    """`relaybay setup --agent codex …` with this server's flags and, when it is not the
    default, --codex-home."""
    line = relaybay("setup", "--agent", "codex", *words)
    if not codex.is_default_home(home):
        line += f" --codex-home {shlex.quote(str(home))}"
    return line


def connected(home: Path) -> bool:
    """Whether the owner connected Codex, from what relaybay itself asked for: its hooks or
    its MCP server in config.toml. `codex` on PATH alone is not connected: the doctor then
    names the command that connects it instead of failing Codex's checks."""
    config = codex.config_file(home)
    doc, _ = codex.read_config(config)
    if doc is None:
        return names_relaybay(config)
    return bool(codex.relaybay_hooks(doc) or codex.mcp_registration(doc))


def detected_item(home: Path, found: codex.Codex, *, connected: bool) -> Item:
    shown = f"{found.path} version {show_version(found.version)}"
    if not connected:
        where = shown if found.path is not None else "`codex` not found on PATH"
        return setup_items.not_connected(DETECTED, setup_fix(home, "--apply"), where)
    if found.path is not None:
        return Item(True, DETECTED, shown)
    detail = f"`codex` not found on PATH, yet {codex.config_file(home)} names relaybay"
    return Item(False, DETECTED, detail, f"{INSTALL}, or {setup_fix(home, '--remove')}")


def hook_items(home: Path, base_url: str, doc: dict) -> list[Item]:
    """Present (all events point at this server), trusted, and the command runs."""
    config = codex.config_file(home)
    url = base_url + codex.CODEX_HOOK_PATH
    everywhere = codex.relaybay_hooks(doc)
    ours = [f for f in everywhere if f.url == url]
    apply = setup_fix(home, "--apply")
    missing = [e for e in codex.EVENTS if e not in {f.event for f in ours}]
    if not ours:
        other = sorted({f.url for f in everywhere})
        detail = f"no relaybay hooks for {url} in {config}"
        if other:
            detail += f" (they point at {', '.join(other)})"
        return [Item(False, HOOKS, detail, apply)]
    if missing:
        items = [Item(False, HOOKS, f"some events are missing: {', '.join(missing)}", apply)]
    else:
        detail = f"all {len(codex.EVENTS)} events point at {url} in {config}"
        items = [Item(True, HOOKS, detail)]
    items.append(trusted_item(home, doc, ours))
    runs = command_runs_item({"type": "command", "command": ours[0].command}, apply)
    items.append(dataclasses.replace(runs, name=RUNS))
    items.append(approvals_item(home, ours))
    return items


def approvals_item(home: Path, ours: list[codex.Found]) -> Item:
    """Whether the owner can approve from the board: relaybay's hooks of the events Codex
    waits on carry --hold under a longer timeout. `codex exec` asks a PermissionRequest
    only with on-request approvals, which the ok line says."""
    events = codex.held_events()
    held: dict[str, list[hold.Held]] = {}
    for found in ours:
        if found.event in events:
            args = hook_line.command_args({"type": "command", "command": found.command}) or []
            held.setdefault(found.event, []).append(
                hold.Held(hold.command_hold(args), found.timeout)
            )
    fix = setup_fix(home, "--apply")
    return hold.approvals_item(events, held, fix=fix, note=EXEC_NOTE, name=APPROVALS)


def trusted_item(home: Path, doc: dict, ours: list[codex.Found]) -> Item:
    """Each hook's [hooks.state] table holds the hash of exactly this command at this place."""
    config = codex.config_file(home)
    problems = []
    for found in ours:
        key = found.key(config)
        entry = codex.trust_entry(doc, key)
        label = f"{codex.event_label(found.event)} ({found.group}:{found.handler})"
        if entry is None or "trusted_hash" not in entry:
            problems.append(f"{label} has no trust entry")
        elif entry["trusted_hash"] != found.hash():
            problems.append(f"{label} is trusted for another command or place")
        elif entry.get("enabled") is False:
            problems.append(f"{label} is disabled (enabled = false)")
    if problems:
        detail = "Codex skips these hooks silently: " + "; ".join(problems)
        return Item(False, TRUSTED, detail, setup_fix(home, "--apply"))
    return Item(
        True,
        TRUSTED,
        f"all {len(ours)} have their trust entry: Codex runs them without "
        "--dangerously-bypass-hook-trust",
    )


def mcp_fix(home: Path, base_url: str, found: codex.Codex, *, replace: bool = False) -> str:
    """`codex mcp add …` when this codex offers it, else the table to write by hand."""
    if codex.offers_mcp_add(found):
        add = codex.mcp_add_command(base_url)
        return f"codex mcp remove {codex.MCP_NAME}, then {add}" if replace else add
    config = codex.config_file(home)
    url = codex.toml_string(base_url + "/mcp")
    values = f'url = {url} and bearer_token_env_var = "{codex.TOKEN_ENV}"'
    if replace:
        return f"in [mcp_servers.{codex.MCP_NAME}] of {config}, set {values}"
    return f"add a table [mcp_servers.{codex.MCP_NAME}] to {config} with {values}"


def mcp_items(
    home: Path, base_url: str, doc: dict, found: codex.Codex, token_file: str, *, env: bool
) -> list[Item]:
    """Registered at this server's /mcp with a token variable or header; with `env`, the
    variable is set to the token here (Codex started from this shell inherits it)."""
    config = codex.config_file(home)
    entry = codex.mcp_registration(doc)
    url = base_url + "/mcp"
    if entry is None:
        detail = f"relaybay is not in [mcp_servers] of {config}"
        return [Item(False, MCP, detail, mcp_fix(home, base_url, found))]
    if entry.inline_token:
        detail = "bearer_token is set inline, which Codex refuses (a fatal config error)"
        fix = f'replace bearer_token with bearer_token_env_var = "{codex.TOKEN_ENV}" in {config}'
        return [Item(False, MCP, detail, fix)]
    if entry.url != url:
        detail = f"relaybay is registered with {entry.url or 'no url'}, not {url}"
        return [Item(False, MCP, detail, mcp_fix(home, base_url, found, replace=True))]
    if entry.token_env is None and not entry.headers:
        detail = f"relaybay is registered at {url} without a token (bearer_token_env_var)"
        return [Item(False, MCP, detail, mcp_fix(home, base_url, found, replace=True))]
    how = f"token from ${entry.token_env}" if entry.token_env else "token in http_headers"
    items = [Item(True, MCP, f"relaybay is registered for Codex at {url} ({how})")]
    if env and entry.token_env:
        items.append(token_env_item(entry.token_env, token_file))
    return items


def token_env_item(name: str, token_file: str) -> Item:
    try:
        token = Path(token_file).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        token = None
    value = os.environ.get(name)
    if token and value == token:
        return Item(True, MCP_TOKEN, f"{name} is set to the token in this environment")
    why = "not set" if not value else "set to another value than the token"
    fix = codex.token_export(token_file) if name == codex.TOKEN_ENV else f"export {name}=…"
    detail = f"{name} is {why} here, so a Codex started here reaches relaybay's MCP without it"
    return Item(False, MCP_TOKEN, detail, f"{fix} (in the shell, or profile, Codex starts from)")


def seen_item(*, database_file: bool = True) -> Item:
    """A session reported by Codex's hooks, from the server's database."""
    return server.seen_item(
        codex.CODEX_AGENT, SEEN, "Codex", RUN_CODEX, database_file=database_file
    )


def codex_items(
    home: Path,
    base_url: str,
    token_file: str,
    found: codex.Codex,
    *,
    env: bool = True,
    seen: bool = True,
) -> list[Item]:
    """The config.toml items (hooks, trust, command, MCP) and a hook event seen."""
    config = codex.config_file(home)
    doc, error = codex.read_config(config)
    if doc is None:
        fix = f"repair {config}, then {setup_fix(home, '--apply')}"
        items = [Item(False, CONFIG, error or f"cannot read {config}", fix)]
    else:
        items = hook_items(home, base_url, doc)
        items += mcp_items(home, base_url, doc, found, token_file, env=env)
    if seen:
        items.append(seen_item())
    return items


def endpoint_item(base_url: str, token: str) -> Item:
    return hook_item(base_url, token, codex.CODEX_HOOK_PATH, ENDPOINT)


def check_items(base_url: str, token: str | None, home: Path, token_file: str) -> list[Item]:
    """The items of `relaybay setup --agent codex --check`: the server (with Codex's hook
    route instead of Claude Code's), then Codex's."""
    health = healthz(base_url)
    reached = health is not None or listens(base_url)
    server = server_items(
        base_url,
        token,
        health,
        reached=reached,
        hook_path=codex.CODEX_HOOK_PATH,
        hook_name=ENDPOINT,
    )
    return server + codex_items(home, base_url, token_file, codex.detect_codex())
