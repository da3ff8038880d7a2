"""Folder trust: in a folder Gemini CLI does not trust it runs no hook at all (user-scope
ones included) and `gemini -p` exits 55 before its first request
(tests/fixtures/gemini-cli-0.61.0/README.md, "Folder trust"). So the check names the
project folders relaybay knows that Gemini does not trust, and how to trust them; setup
never writes trustedFolders.json — trusting a folder is the owner's consent, not relaybay's.

Gemini's rule, read here the same way: folder trust is on unless settings.json says
`security.folderTrust.enabled: false`; trustedFolders.json maps paths to TRUST_FOLDER,
TRUST_PARENT (the path's parent) or DO_NOT_TRUST, and the longest rule whose folder holds
the project's folder decides (real paths compared). The file may hold comments.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from agents.gemini_cli.setup import detect
from agents.setup.items import Item

NAME = "Gemini folder trust"
LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
SHOWN = 4  # folders named in one line; the rest are counted
# A string (kept) or a comment (dropped), as strip-json-comments reads them.
_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)


def _strip_comments(text: str) -> str:
    return _TOKEN.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)


def read_rules(path: Path) -> tuple[dict[str, str] | None, str | None]:
    """The trust rules ({} when there is no file), or None and why Gemini cannot read them
    either (it then refuses to start)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"cannot read {path}: {exc}"
    try:
        data = json.loads(_strip_comments(text)) if text.strip() else {}
    except json.JSONDecodeError as exc:
        return None, f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})"
    if not isinstance(data, dict):
        return None, f"{path} does not hold a JSON object"
    wrong = [k for k, v in data.items() if v not in LEVELS]
    if wrong:
        return None, f"{path} has a trust level Gemini does not know for {wrong[0]}"
    return data, None


def _real(path: str) -> str:
    return os.path.realpath(path) if os.path.exists(path) else path


def _within(folder: str, root: str) -> bool:
    try:
        return os.path.commonpath([folder, root]) == root
    except ValueError:
        return False


def trusted(folder: str, rules: dict[str, str]) -> bool:
    """Whether Gemini trusts `folder` by these rules: the longest matching rule decides."""
    where = _real(folder)
    best, level = -1, None
    for rule, value in rules.items():
        root = os.path.dirname(rule) if value == "TRUST_PARENT" else rule
        if _within(where, _real(root)) and len(rule) > best:
            best, level = len(rule), value
    return level in ("TRUST_FOLDER", "TRUST_PARENT")


def trust_off(settings: Any) -> bool:
    """`security.folderTrust.enabled: false` in settings.json: every folder is trusted."""
    security = settings.get("security") if isinstance(settings, dict) else None
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    return isinstance(folder_trust, dict) and folder_trust.get("enabled") is False


def _named(folders: list[str]) -> str:
    shown = ", ".join(folders[:SHOWN])
    more = len(folders) - SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def trust_item(home: Path, folders: list[str], *, where: str) -> Item:
    """One line for the folders (`where` says whose they are: "the project folders relaybay
    knows", "the current folder"): all trusted, or which are not and how to trust them."""
    settings, _ = detect.read_settings(detect.settings_file(home))
    if trust_off(settings):
        detail = (
            "security.folderTrust.enabled is false in settings.json: Gemini trusts every folder"
        )
        return Item(True, NAME, detail)
    path = detect.trusted_folders_file(home)
    rules, error = read_rules(path)
    if rules is None:
        return Item(False, NAME, error or f"cannot read {path}", f"repair {path}")
    if not folders:
        return Item(True, NAME, f"nothing to check yet ({where}: none)")
    untrusted = [f for f in folders if not trusted(f, rules)]
    if not untrusted:
        return Item(True, NAME, f"Gemini trusts {_named(folders)} ({where})")
    detail = (
        f"Gemini CLI runs no hook (and gemini -p does not start) in a folder it does not "
        f"trust, and it does not trust {_named(untrusted)} ({where})"
    )
    example = json.dumps({untrusted[0]: "TRUST_FOLDER"})
    fix = (
        f"trust each once: run gemini there and choose to trust the folder, or add "
        f"{example[1:-1]} to {path}; or start Gemini with --skip-trust "
        "(or GEMINI_CLI_TRUST_WORKSPACE=true) in a folder you trust"
    )
    return Item(False, NAME, detail, fix)
