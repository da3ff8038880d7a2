"""Codex in Settings → Integrations (agents/setup/panel.py): detected, relaybay's hooks in
its config.toml present and trusted, MCP registered, a hook event seen — each failure with
its fix — the terminal lines that connect it, and the plan of config.toml with Apply /
Remove (the hooks with their trust entries; the MCP table is never written)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from agents.codex.setup import checks as codex_checks
from agents.codex.setup import config as codex
from agents.codex.setup.plan import make_codex_plan
from agents.setup.found import show_version
from agents.setup.items import Item, not_connected
from agents.setup.panel import Plans, plans_for
from core import tokens

MODE_HELP = (
    "command: each hook runs this server's Python with -m relaybay.hook_client and the "
    "token file, with the trust entry Codex needs to run it."
)


class CodexPanel:
    name = "codex"
    title = "Codex"
    file_label = "config.toml"
    modes = ("command",)
    template = "codex/templates/panel.html"

    def facts(self) -> dict[str, Any]:
        """Detection, the config.toml items and how to connect it; the page adds the hook
        event seen (the database) through `seen_items`."""
        cfg = settings.RELAYBAY
        home = codex.codex_home()  # the server's $CODEX_HOME, else ~/.codex, as setup's
        found = codex.detect_codex()
        using = codex_checks.connected(home)
        token_file = str(tokens.token_path(cfg.home_path))
        items = []
        if using:
            items = codex_checks.codex_items(
                home, cfg.base_url, token_file, found, env=False, seen=False
            )
        offers = codex.offers_mcp_add(found)
        return {
            "path": found.path,
            "version": show_version(found.version),
            "using": using,
            "config": codex.config_file(home),
            "items": [i.as_dict() for i in items],
            "mcp_ok": any(i.ok for i in items if i.name == codex_checks.MCP),
            "mcp_line": codex.mcp_add_command(cfg.base_url) if offers else None,
            "mcp_table": None if offers else codex.mcp_table(cfg.base_url),
            "token_export": codex.token_export(token_file),
            "setup": codex_checks.setup_fix(home),
        }

    def installed_mode(self, base_url: str) -> str:
        return "command"

    def plans(self, mode: str, facts: dict[str, Any]) -> Plans:
        path = codex.config_file(codex.codex_home())
        return plans_for(path, lambda target, action: make_codex_plan(path, target, action=action))

    def mode_help(self, mode: str) -> str:
        return MODE_HELP

    def apply_notes(self, mode: str, facts: dict[str, Any]) -> tuple[str, ...]:
        return ()

    def plan_help(self) -> str:
        return "The MCP server is registered in a terminal (above); the page never writes it."

    def check_items(self, base_url: str, token: str, *, server_ok: bool) -> list[Item]:
        """Its hook route (when the server answered), config.toml (not RELAYBAY_TOKEN: the
        server's environment is not Codex's); not connected: one ok line."""
        cfg = settings.RELAYBAY
        home = codex.codex_home()
        if not codex_checks.connected(home):
            return [not_connected(codex_checks.DETECTED, codex_checks.setup_fix(home, "--apply"))]
        found = codex.detect_codex()
        token_file = str(tokens.token_path(cfg.home_path))
        items = [codex_checks.endpoint_item(cfg.base_url, token)] if server_ok else []
        return items + codex_checks.codex_items(
            home, cfg.base_url, token_file, found, env=False, seen=False
        )

    def seen_items(self) -> list[Item]:
        if not codex_checks.connected(codex.codex_home()):
            return []
        return [codex_checks.seen_item(database_file=False)]


PANEL = CodexPanel()
