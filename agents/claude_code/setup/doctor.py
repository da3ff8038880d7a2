"""Claude Code in `relaybay doctor` (agents/setup/doctor.py): the CLI on PATH and its
version, the desktop app, and once connected its settings, hooks and MCP registration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.claude_code.setup import checks, detect
from agents.setup import items as setup_items
from agents.setup.items import Item

MIN_CLAUDE_VERSION = (2, 0, 0)
CONNECT = "relaybay setup --apply"  # without the settings, so without their flags
INSTALL = "npm install -g @anthropic-ai/claude-code"


class ClaudeCodeDoctor:
    option = "--claude-home"
    metavar = "FOLDER"
    help = "Folder holding .claude/settings.json and .claude.json (default: your home)."

    def home(self, given: str | None) -> Path:
        return Path(given or Path.home()).expanduser()

    def connected(self, home: Path) -> bool:
        return detect.claude_connected(home)

    def local(self, home: Path, *, with_settings: bool) -> list[Item]:
        connect = checks.relaybay("setup", "--apply") if with_settings else CONNECT
        return [_claude_item(home, connect), Item(True, "desktop app", detect.desktop_line(home))]

    def checks(self, home: Path, cfg: Any, token: str | None, health: Any) -> list[Item]:
        return checks.claude_items(home, cfg.base_url, token)


def _claude_item(claude_home: Path, connect: str) -> Item:
    name = "Claude Code"
    claude = detect.detect_claude()
    if not detect.claude_connected(claude_home):
        where = "`claude` not found on PATH"
        if claude.path is not None:
            where = f"{claude.path} version {detect.show_version(claude.version)}"
        return setup_items.not_connected(name, connect, where)
    if claude.path is None:
        return Item(False, name, "`claude` not found on PATH", INSTALL)
    shown = detect.show_version(claude.version)
    minimum = detect.show_version(MIN_CLAUDE_VERSION)
    if claude.version is None or claude.version < MIN_CLAUDE_VERSION:
        detail = f"{claude.path} version {shown}; relaybay needs {minimum}"
        return Item(False, name, detail, "claude update")
    return Item(True, name, f"{claude.path} version {shown}")


DOCTOR = ClaudeCodeDoctor()
