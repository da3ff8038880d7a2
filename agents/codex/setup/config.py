"""Codex CLI beside Claude Code: relaybay's hooks in Codex's config.toml.

Codex reads hooks from `$CODEX_HOME/config.toml` (`~/.codex` by default) as
`[[hooks.<Event>]]` groups of command handlers, and runs a user hook only when a
`[hooks.state."<config file>:<event label>:<group index>:<handler index>"]` table holds
its trusted hash (tests/fixtures/codex-0.169.0/README.md, "Hook trust"). Codex has no
http hooks, so every event runs the hook client with the token file, as Claude Code's
command mode does; the URL's path picks the Codex adapter. The events Codex waits on while
the owner decides on the board (PreToolUse, PermissionRequest: its SPEC's `holds`) run the
client with --hold under a long timeout; the trust hash covers both, like any command. Pure
functions: reading the file, the hash, the registration; codex_plan writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agents.codex import NAME
from agents.setup import hold, hook_line
from agents.setup.found import parse_version, run
from agents.setup.target import TOKEN_ENV, Target

# The route of agents/codex/hooks.py (its PATH): one constant the adapter can import.
CODEX_HOOK_PATH = "/hooks/codex"
CODEX_AGENT = NAME  # Session.agent of a session Codex's hooks report
CONFIG_NAME = "config.toml"
MCP_NAME = "relaybay"
# One group per event, each with one command handler.
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "Stop",
    "SessionEnd",
)
HOOK_TIMEOUT = 5  # seconds; the hook client itself gives up after 2
# Codex clamps SessionEnd to 3 s and warns on every start when asked for more; asking for
# what it gives keeps the warning away and the trust hash free of the clamp.
TIMEOUTS = {"SessionEnd": 3}
DEFAULT_TIMEOUT = 600  # what Codex hashes for a handler without a timeout
NO_MATCHER_EVENTS = ("UserPromptSubmit", "Stop")  # Codex drops their matcher from the hash


def event_label(event: str) -> str:
    """The snake_case label of a trust key: PreToolUse → pre_tool_use."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def held_events() -> tuple[str, ...]:
    """The events Codex waits on while the owner decides (its SPEC's capabilities). The
    adapter needs Django's apps: it is imported when setup asks, never at load."""
    from agents.codex.hooks import SPEC

    return hold.held_events(SPEC)


def hook_timeout(event: str, *, held: bool = False) -> int:
    """Its timeout in seconds: long for a held event, short for any other."""
    return hold.HOLD_TIMEOUT if held else TIMEOUTS.get(event, HOOK_TIMEOUT)


def trusted_hash(
    label: str,
    command: str,
    timeout: int = DEFAULT_TIMEOUT,
    matcher: str | None = None,
    *,
    is_async: bool = False,
) -> str:
    """What `[hooks.state."…"] trusted_hash` must hold for this command hook to run: SHA-256
    of the canonical JSON of its normalised identity (Codex 0.169.0, verified live; the
    fixture's trusted_hash.py is the reference the tests compare with)."""
    handler = {"type": "command", "command": command, "timeout": timeout, "async": is_async}
    ident: dict[str, Any] = {"event_name": label, "hooks": [handler]}
    if matcher is not None:
        ident["matcher"] = matcher
    data = json.dumps(ident, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()


def hook_command(target: Target, *, held: bool = False) -> str:
    """The Claude Code command line (same Python, quoting, token file) with Codex's route;
    with held, --hold: it waits for the owner's answer."""
    return hook_line.hook_command(target, CODEX_HOOK_PATH, hold=held)


def codex_home(option: str | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """--codex-home, else $CODEX_HOME, else ~/.codex. Codex canonicalises CODEX_HOME (and so
    the trust keys name the real folder) but takes ~/.codex as it is; so does this."""
    env = os.environ if environ is None else environ
    raw = option or env.get("CODEX_HOME") or ""
    if raw:
        return Path(raw).expanduser().resolve()
    return Path.home() / ".codex"


def config_file(home: Path) -> Path:
    """The file setup writes and whose path every trust key starts with."""
    return home / CONFIG_NAME


def is_default_home(home: Path) -> bool:
    return home == codex_home()


# --- what is installed ----------------------------------------------------------------------


@dataclass(frozen=True)
class Codex:
    path: str | None
    version: tuple[int, int, int] | None


def detect_codex(path_env: str | None = None) -> Codex:
    """`codex` on PATH and what `codex --version` says ("codex-cli 0.169.0"; 5 s at most)."""
    exe = shutil.which("codex", path=path_env)
    if exe is None:
        return Codex(None, None)
    out = run(exe, "--version")
    return Codex(exe, parse_version(out) if out is not None else None)


def offers_mcp_add(found: Codex) -> bool:
    """Whether this codex registers a server with a token variable (`codex mcp add --help`)."""
    if found.path is None:
        return False
    out = run(found.path, "mcp", "add", "--help")
    return out is not None and "--bearer-token-env-var" in out


def mcp_add_command(base_url: str) -> str:
    """The line that registers relaybay with Codex; the token stays in RELAYBAY_TOKEN (an
    inline bearer_token is a fatal Codex config error, and config.toml is no place for it)."""
    url = base_url + "/mcp"
    return shlex.join(
        ["codex", "mcp", "add", MCP_NAME, "--url", url, "--bearer-token-env-var", TOKEN_ENV]
    )


def mcp_table(base_url: str) -> str:
    """The `[mcp_servers.relaybay]` table for a Codex without `codex mcp add`."""
    return (
        f"[mcp_servers.{MCP_NAME}]\n"
        f"url = {toml_string(base_url + '/mcp')}\n"
        f'bearer_token_env_var = "{TOKEN_ENV}"'
    )


def token_export(token_file: str) -> str:
    """How to give Codex the token without writing it into config.toml."""
    return f'export {TOKEN_ENV}="$(cat {shlex.quote(token_file)})"'


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n"}
_ESCAPES |= {"\f": "\\f", "\r": "\\r"}


def toml_string(value: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


# --- reading config.toml --------------------------------------------------------------------


def read_config(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The parsed file ({} when there is none), or None and why it cannot be read."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        return None, f"cannot read {path}: {exc}"
    try:
        return tomllib.loads(raw.decode("utf-8")), None
    except UnicodeDecodeError as exc:
        return None, f"{path} is not UTF-8 (byte {exc.start})"
    except tomllib.TOMLDecodeError as exc:
        return None, f"{path} is not valid TOML ({exc})"


@dataclass(frozen=True)
class McpEntry:
    """The `[mcp_servers.relaybay]` table as Codex reads it."""

    url: str | None
    token_env: str | None  # bearer_token_env_var
    headers: bool  # http_headers with an Authorization header
    inline_token: bool  # bearer_token: a fatal config error in Codex 0.169.0


def mcp_registration(doc: Mapping[str, Any]) -> McpEntry | None:
    servers = doc.get("mcp_servers")
    server = servers.get(MCP_NAME) if isinstance(servers, dict) else None
    if not isinstance(server, dict):
        return None
    url = server.get("url")
    env = server.get("bearer_token_env_var")
    headers = server.get("http_headers")
    has_auth = isinstance(headers, dict) and any(str(k).lower() == "authorization" for k in headers)
    return McpEntry(
        url=url if isinstance(url, str) else None,
        token_env=env if isinstance(env, str) and env else None,
        headers=has_auth,
        inline_token="bearer_token" in server,
    )


@dataclass(frozen=True)
class Found:
    """One relaybay hook handler in config.toml and the trust key Codex gives it."""

    event: str
    group: int
    handler: int
    command: str
    timeout: int
    matcher: str | None
    url: str

    def key(self, config_path: Path | str) -> str:
        return f"{config_path}:{event_label(self.event)}:{self.group}:{self.handler}"

    def hash(self) -> str:
        matcher = None if self.event in NO_MATCHER_EVENTS else self.matcher
        return trusted_hash(event_label(self.event), self.command, self.timeout, matcher)


def relaybay_hooks(doc: Mapping[str, Any]) -> list[Found]:
    """Every command handler that runs the hook client with a URL whose path is Codex's
    route, with its place (group and handler index among all of that event's)."""
    hooks = doc.get("hooks")
    found: list[Found] = []
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        if event == "state" or not isinstance(groups, list):
            continue
        for g, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                item = _found(event, g, h, group, handler)
                if item is not None:
                    found.append(item)
    return found


def _found(event: str, g: int, h: int, group: dict[str, Any], handler: Any) -> Found | None:
    args = hook_line.command_args(handler)
    url = hook_line.command_url(args) if args else None
    try:
        route = urlsplit(url).path if url else None
    except ValueError:
        route = None
    if route != CODEX_HOOK_PATH:
        return None
    timeout = handler.get("timeout", DEFAULT_TIMEOUT)
    matcher = group.get("matcher")
    return Found(
        event=event,
        group=g,
        handler=h,
        command=handler["command"],
        timeout=max(timeout, 1) if isinstance(timeout, int) else DEFAULT_TIMEOUT,
        matcher=matcher if isinstance(matcher, str) else None,
        url=url,
    )


def trust_entry(doc: Mapping[str, Any], key: str) -> dict[str, Any] | None:
    """The `[hooks.state."<key>"]` table, None when there is none."""
    hooks = doc.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    entry = state.get(key) if isinstance(state, dict) else None
    return entry if isinstance(entry, dict) else None
