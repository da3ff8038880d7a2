"""Claude Code in Settings → Integrations (agents/setup/panel.py): the CLI and its version,
http hooks, the desktop app, the settings file, the MCP registration (never written:
~/.claude.json is Claude Code's), the plan for command or http hooks, and its check lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from agents.claude_code.setup import checks, detect
from agents.claude_code.setup.plan import make_plan
from agents.setup import document
from agents.setup.items import Item, not_connected
from agents.setup.panel import Plans, plans_for
from agents.setup.plan import read_bytes
from agents.setup.server import relaybay

MODE_HELP = {
    "http": "http: Claude Code posts to relaybay itself with Authorization: Bearer "
    "${RELAYBAY_TOKEN}; the variable must be set in Claude Code's environment.",
    "command": "command: each hook runs this server's Python with -m relaybay.hook_client "
    "and the token file; nothing needed on PATH or in the environment.",
}
WAKE_NOTE = (
    "The wake-up hook is kept as it is; add or remove it with relaybay setup --apply "
    "--wake or --no-wake."
)


def claude_home() -> Path:
    """Whose Claude Code: the user running the server (HOME), as `relaybay setup` does."""
    return Path.home()


class ClaudePanel:
    name = "claude-code"
    title = "Claude Code"
    file_label = "settings file"
    modes = ("command", "http")
    template = "claude_code/templates/panel.html"

    def facts(self) -> dict[str, Any]:
        cfg = settings.RELAYBAY
        claude = detect.detect_claude()
        registered = detect.mcp_registration(claude_home() / ".claude.json")
        return {
            "claude": claude,
            "claude_path": claude.path,
            "connected": detect.claude_connected(claude_home()),
            "claude_version": detect.show_version(claude.version),
            "http_hooks": claude.http_hooks,
            "http_minimum": detect.show_version(detect.MIN_HTTP_HOOKS_VERSION),
            "desktop": detect.desktop_line(claude_home()),
            "settings_path": detect.settings_file(claude_home()),
            "base_url": cfg.base_url,
            "mcp_url": registered,
            "mcp_other": bool(registered) and registered != cfg.base_url + "/mcp",
            "mcp_command": detect.mcp_add_command(cfg.base_url, "<token>"),
        }

    def installed_mode(self, base_url: str) -> str:
        """http when relaybay's hooks for this server are http hooks, else command."""
        try:
            data = document.parse(document.decode(read_bytes(detect.settings_file(claude_home()))))
        except (document.SettingsError, OSError):
            return "command"
        hooks = [h for found in checks.hooks_for(data, base_url).values() for h in found]
        return "http" if any(h.get("type") == "http" for h in hooks) else "command"

    def plans(self, mode: str, facts: dict[str, Any]) -> Plans:
        path = detect.settings_file(claude_home())
        return plans_for(
            path, lambda target, action: make_plan(path, target, action=action, mode=mode)
        )

    def mode_help(self, mode: str) -> str:
        return MODE_HELP.get(mode, "")

    def apply_notes(self, mode: str, facts: dict[str, Any]) -> tuple[str, ...]:
        note = detect.http_hooks_note(facts["claude"]) if mode == "http" else None
        return (note,) if note else ()

    def plan_help(self) -> str:
        return WAKE_NOTE

    def check_items(self, base_url: str, token: str, *, server_ok: bool) -> list[Item]:
        if not detect.claude_connected(claude_home()):
            return [not_connected(self.title, relaybay("setup", "--apply"))]
        return checks.claude_items(claude_home(), base_url, token)

    def seen_items(self) -> list[Item]:
        return []  # its check reads the settings file; the sessions need no line here


PANEL = ClaudePanel()
