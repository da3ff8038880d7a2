"""Where Gemini CLI keeps its settings, what is installed, and whether the owner connected
it (loads without Django: the doctor uses it).

Gemini's home is `$GEMINI_CLI_HOME` when set, else the user's home; the CLI's files live in
`.gemini/` below it (`settings.json`, `trustedFolders.json` — which
`$GEMINI_CLI_TRUSTED_FOLDERS_PATH` moves on its own). `--gemini-home` picks another home.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.gemini_cli.setup.entries import mcp_entry, relaybay_hooks
from agents.setup import document
from agents.setup.found import names_relaybay, parse_version, run

HOME_ENV = "GEMINI_CLI_HOME"
TRUSTED_FOLDERS_ENV = "GEMINI_CLI_TRUSTED_FOLDERS_PATH"
FOLDER = ".gemini"
SETTINGS_NAME = "settings.json"
TRUSTED_FOLDERS_NAME = "trustedFolders.json"
INSTALL = "npm install -g @google/gemini-cli"


def gemini_home(option: str | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """--gemini-home, else $GEMINI_CLI_HOME, else the user's home (as Gemini reads it)."""
    env = os.environ if environ is None else environ
    raw = option or env.get(HOME_ENV) or ""
    return Path(raw).expanduser() if raw else Path.home()


def is_default_home(home: Path) -> bool:
    return home == gemini_home()


def settings_file(home: Path) -> Path:
    """Gemini's user settings, the only file setup ever writes."""
    return home / FOLDER / SETTINGS_NAME


def trusted_folders_file(home: Path, environ: Mapping[str, str] | None = None) -> Path:
    """Where Gemini reads folder trust from; setup never writes it."""
    env = os.environ if environ is None else environ
    moved = env.get(TRUSTED_FOLDERS_ENV)
    return Path(moved).expanduser() if moved else home / FOLDER / TRUSTED_FOLDERS_NAME


def setup_line(home: Path, relaybay: Any, *words: str) -> str:
    """`relaybay setup --agent gemini …` (`relaybay` builds the line with the server's
    flags), with --gemini-home when the home is not the default."""
    line = relaybay("setup", "--agent", "gemini", *words)
    if not is_default_home(home):
        line += f" --gemini-home {shlex.quote(str(home))}"
    return line


@dataclass(frozen=True)
class Gemini:
    path: str | None
    version: tuple[int, int, int] | None


def detect_gemini(path_env: str | None = None) -> Gemini:
    """`gemini` on PATH and what `gemini --version` says (5 s at most)."""
    exe = shutil.which("gemini", path=path_env)
    if exe is None:
        return Gemini(None, None)
    out = run(exe, "--version", stderr=False)
    return Gemini(exe, parse_version(out) if out is not None else None)


def read_settings(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The settings document ({} when there is no file), or None and why it cannot be read."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        return None, f"cannot read {path}: {exc}"
    try:
        return document.parse(document.decode(raw, path.name), path.name), None
    except document.SettingsError as exc:
        return None, str(exc)


def connected(home: Path) -> bool:
    """Whether the owner connected Gemini CLI, from what relaybay itself writes: its hooks
    (any address) or its MCP server in the user settings. `gemini` on PATH alone is not
    connected: the doctor then names the command instead of failing Gemini's checks."""
    path = settings_file(home)
    data, _ = read_settings(path)
    if data is None:
        return names_relaybay(path)
    return bool(relaybay_hooks(data)) or mcp_entry(data) is not None
