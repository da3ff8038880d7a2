"""Gemini CLI in `relaybay doctor` (agents/setup/doctor.py): `gemini` on PATH, and once
connected the hook endpoint, settings.json's hooks and MCP entry, the token in this shell,
the folders Gemini trusts and a hook event seen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.gemini_cli.setup import checks, detect
from agents.setup.items import Item
from core import tokens


class GeminiDoctor:
    option = "--gemini-home"
    metavar = "DIR"
    help = (
        "Folder holding Gemini CLI's .gemini/settings.json (default: $GEMINI_CLI_HOME, else "
        "your home)."
    )

    def home(self, given: str | None) -> Path:
        return detect.gemini_home(given)

    def connected(self, home: Path) -> bool:
        return detect.connected(home)

    def local(self, home: Path, *, with_settings: bool) -> list[Item]:
        if not with_settings:  # its connect command needs the server's flags
            return []
        found = detect.detect_gemini()
        return [checks.detected_item(home, found, connected=self.connected(home))]

    def checks(self, home: Path, cfg: Any, token: str | None, health: Any) -> list[Item]:
        items = []
        if token is not None and health is not None:
            items.append(checks.endpoint_item(cfg.base_url, token))
        token_file = str(tokens.token_path(cfg.home_path))
        items += checks.gemini_items(home, cfg.base_url, token_file)
        return items + checks.database_items(home)


DOCTOR = GeminiDoctor()
