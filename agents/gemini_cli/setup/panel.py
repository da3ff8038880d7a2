"""Gemini CLI in Settings → Integrations (agents/setup/panel.py): detected, relaybay's hooks
and MCP entry in its settings.json, the folders it trusts and a hook event seen — each
failure with its fix — the terminal lines that connect it, and the plan of settings.json
with Apply / Remove (the hooks and the MCP entry; trustedFolders.json is never written)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from agents.gemini_cli.setup import checks, detect, entries
from agents.gemini_cli.setup.plan import make_plan
from agents.setup.found import show_version
from agents.setup.items import Item, not_connected
from agents.setup.panel import Plans, plans_for
from core import tokens

MODE_HELP = (
    "command: each hook runs this server's Python with -m relaybay.hook_client and the "
    "token file, and prints {} when that cannot run, so Gemini never reads a failure as a "
    "deny."
)
PLAN_HELP = (
    "Apply also writes relaybay's MCP server (trust: true, the token as ${RELAYBAY_TOKEN}); "
    "folder trust is yours: the page never writes trustedFolders.json."
)


class GeminiPanel:
    name = "gemini"
    title = "Gemini CLI"
    file_label = "settings.json"
    modes = ("command",)
    template = "gemini_cli/templates/panel.html"

    def facts(self) -> dict[str, Any]:
        """Detection, the settings.json items and how to connect it; the page adds the
        folder trust and the hook event seen (the database) through `seen_items`."""
        cfg = settings.RELAYBAY
        home = detect.gemini_home()  # the server's $GEMINI_CLI_HOME, else its home
        found = detect.detect_gemini()
        using = detect.connected(home)
        token_file = str(tokens.token_path(cfg.home_path))
        items = checks.gemini_items(home, cfg.base_url, token_file, env=False) if using else []
        return {
            "path": found.path,
            "version": show_version(found.version),
            "using": using,
            "settings": detect.settings_file(home),
            "trusted_folders": detect.trusted_folders_file(home),
            "items": [i.as_dict() for i in items],
            "token_export": checks.token_export(token_file),
            "setup": checks.setup_fix(home),
            "session_env": entries.SESSION_ENV,
            "session_header": entries.SESSION_HEADER,
            "session_value": f"${{{entries.SESSION_ENV}}}",
        }

    def installed_mode(self, base_url: str) -> str:
        return "command"

    def plans(self, mode: str, facts: dict[str, Any]) -> Plans:
        path = detect.settings_file(detect.gemini_home())
        return plans_for(path, lambda target, action: make_plan(path, target, action=action))

    def mode_help(self, mode: str) -> str:
        return MODE_HELP

    def apply_notes(self, mode: str, facts: dict[str, Any]) -> tuple[str, ...]:
        return ()

    def plan_help(self) -> str:
        return PLAN_HELP

    def check_items(self, base_url: str, token: str, *, server_ok: bool) -> list[Item]:
        """Its hook route (when the server answered) and settings.json (not RELAYBAY_TOKEN:
        the server's environment is not Gemini's); not connected: one ok line."""
        cfg = settings.RELAYBAY
        home = detect.gemini_home()
        if not detect.connected(home):
            return [not_connected(checks.DETECTED, checks.setup_fix(home, "--apply"))]
        token_file = str(tokens.token_path(cfg.home_path))
        items = [checks.endpoint_item(cfg.base_url, token)] if server_ok else []
        return items + checks.gemini_items(home, cfg.base_url, token_file, env=False)

    def seen_items(self) -> list[Item]:
        home = detect.gemini_home()
        if not detect.connected(home):
            return []
        return checks.database_items(home, database_file=False)


PANEL = GeminiPanel()
