"""What is installed: the `claude` CLI and its version, its MCP registration, and whether
the owner connected it at all (§5)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agents.claude_code.setup.entries import HOOK_PATH, WAIT_PATH
from agents.setup import document
from agents.setup.found import names_relaybay, parse_version, run, show_version
from agents.setup.hook_line import command_args, command_url

MIN_HTTP_HOOKS_VERSION = (2, 1, 63)
MIN_ASYNC_REWAKE_VERSION = (2, 1, 309)  # verified live (§4 wake-up hook)
DESKTOP_FOLDERS = (
    Path(".config") / "Claude",
    Path("Library") / "Application Support" / "Claude",
    Path("AppData") / "Roaming" / "Claude",
)


def settings_file(claude_home: Path) -> Path:
    """Claude Code's user settings file, the only file setup ever writes."""
    return claude_home / ".claude" / "settings.json"


def desktop_folder(claude_home: Path) -> Path | None:
    """The Claude desktop app's folder under `claude_home`, None when there is none."""
    for folder in DESKTOP_FOLDERS:
        if (claude_home / folder).is_dir():
            return claude_home / folder
    return None


def desktop_line(claude_home: Path) -> str:
    """What `relaybay setup` and Settings → Integrations say about the desktop app (§5)."""
    folder = desktop_folder(claude_home)
    if folder is None:
        return "no Claude desktop app folder found"
    return f"found: {folder} (its local sessions read the same settings file)"


@dataclass(frozen=True)
class ClaudeCode:
    path: str | None
    version: tuple[int, int, int] | None

    @property
    def http_hooks(self) -> bool:
        return self.version is not None and self.version >= MIN_HTTP_HOOKS_VERSION

    @property
    def async_rewake(self) -> bool:
        return self.version is not None and self.version >= MIN_ASYNC_REWAKE_VERSION


def http_hooks_note(claude: ClaudeCode) -> str | None:
    """The warning for http mode when this Claude Code may not run http hooks."""
    if claude.http_hooks:
        return None
    return (
        f"Claude Code {show_version(claude.version)} may not run http hooks (they need "
        f"{show_version(MIN_HTTP_HOOKS_VERSION)} or newer); command mode works with every version."
    )


def detect_claude(path_env: str | None = None) -> ClaudeCode:
    """`claude` on PATH and what `claude --version` says (5 s at most)."""
    exe = shutil.which("claude", path=path_env)
    if exe is None:
        return ClaudeCode(None, None)
    out = run(exe, "--version", stderr=False)
    return ClaudeCode(exe, parse_version(out) if out is not None else None)


def mcp_registration(claude_json: Path) -> str | None:
    """The URL of the user-scope "relaybay" MCP server in ~/.claude.json, "" when it is
    registered without one, None when it is not registered (or the file is unreadable)."""
    try:
        data = json.loads(claude_json.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    server = servers.get("relaybay") if isinstance(servers, dict) else None
    if not isinstance(server, dict):
        return None
    url = server.get("url")
    return url if isinstance(url, str) else ""


def claude_connected(claude_home: Path) -> bool:
    """Whether the owner connected Claude Code, from what relaybay itself asked for: its hook
    entries (any address) in the user settings, or relaybay in ~/.claude.json's mcpServers.
    The doctor checks a connected agent and only names the command for one that is not."""
    if mcp_registration(claude_home / ".claude.json") is not None:
        return True
    path = settings_file(claude_home)
    try:
        data = document.parse(document.decode(path.read_bytes()))
    except FileNotFoundError:
        return False
    except (OSError, document.SettingsError):
        return names_relaybay(path)
    hooks = data.get("hooks")
    for groups in hooks.values() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if any(_claude_route(h) for h in (handlers if isinstance(handlers, list) else ())):
                return True
    return False


def _claude_route(hook: Any) -> bool:
    """An http or command hook whose URL is Claude Code's hook route or its wake-up wait."""
    if isinstance(hook, dict) and hook.get("type") == "http":
        url = hook.get("url")
    else:
        args = command_args(hook)
        url = command_url(args) if args else None
    try:
        return isinstance(url, str) and urlsplit(url).path in (HOOK_PATH, WAIT_PATH)
    except ValueError:
        return False


def mcp_add_command(base_url: str, token: str) -> str:
    """The line that registers relaybay with Claude Code; setup never writes it (§4)."""
    return (
        f"claude mcp add --transport http --scope user relaybay {base_url}/mcp "
        f'--header "Authorization: Bearer {token}"'
    )
