"""Codex in `relaybay doctor` (agents/setup/doctor.py): `codex` on PATH, and once connected
the hook endpoint and config.toml's hooks, trust and MCP registration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.codex.setup import checks as codex_checks
from agents.codex.setup import config as codex
from agents.setup.items import Item
from core import tokens


class CodexDoctor:
    option = "--codex-home"
    metavar = "DIR"
    help = "Codex's folder holding config.toml (default: $CODEX_HOME, else ~/.codex)."

    def home(self, given: str | None) -> Path:
        return codex.codex_home(given)

    def connected(self, home: Path) -> bool:
        return codex_checks.connected(home)

    def local(self, home: Path, *, with_settings: bool) -> list[Item]:
        if not with_settings:  # its connect command needs the server's flags
            return []
        found = codex.detect_codex()
        return [codex_checks.detected_item(home, found, connected=self.connected(home))]

    def checks(self, home: Path, cfg: Any, token: str | None, health: Any) -> list[Item]:
        items = []
        if token is not None and health is not None:
            items.append(codex_checks.endpoint_item(cfg.base_url, token))
        token_file = str(tokens.token_path(cfg.home_path))
        return items + codex_checks.codex_items(
            home, cfg.base_url, token_file, codex.detect_codex()
        )


DOCTOR = CodexDoctor()
