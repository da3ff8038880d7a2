"""What is installed: the `claude` CLI and its version, and its MCP registration (§5)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

MIN_HTTP_HOOKS_VERSION = (2, 1, 63)
MIN_ASYNC_REWAKE_VERSION = (2, 1, 309)  # verified live (§4 wake-up hook)
VERSION_TIMEOUT = 5.0
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


def parse_version(text: str) -> tuple[int, int, int] | None:
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2]), int(found[3])) if found else None


def show_version(version: tuple[int, int, int] | None) -> str:
    return ".".join(map(str, version)) if version else "unknown"


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
    try:
        done = subprocess.run(  # noqa: S603 - the user's own claude, no shell
            [exe, "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ClaudeCode(exe, None)
    return ClaudeCode(exe, parse_version(done.stdout or ""))


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
