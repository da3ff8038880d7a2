"""`relaybay doctor`: what is installed and whether it fits together (§5 #spec-setup).

Every agent alike: an agent the owner connected (relaybay's hooks in its settings, or
relaybay's MCP server registered with it) gets its checks; one that is not connected is one
ok line, "not connected (to connect: <the command>)", never a failure, so a machine that
runs only Codex (or only Claude Code) is all ok.

Reads and never writes: it never creates the token and works with the server down. One
`[ok]` / `[FAIL]` line per item, or --json (the shape of `setup --check --json`); exit 1
when an item fails. Invalid settings are one failed "settings" item: relaybay.cli then
calls `run_without_settings`, since Django's settings cannot load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import stat
import sys
from pathlib import Path
from typing import Any

from agents.registry import doctors, specs
from agents.setup import server
from agents.setup.items import Item
from agents.setup.items import render as render_items
from core import tokens
from relaybay import get_version
from relaybay_site.management.commands._flags import RelaybayCommand

MIN_PYTHON = (3, 12)
FIX_SETTING = "correct that setting in config.toml, the environment or the flags"
REINSTALL = (  # relaybay is not on the package index yet: from a checkout or a built wheel
    "pipx install --force --python python3.12 . (in your relaybay checkout, or a built "
    "dist/relaybay-*.whl instead of .)"
)


class Command(RelaybayCommand):
    help = "Check this machine's relaybay, its server and each agent you connected; writes nothing."

    def add_arguments(self, parser) -> None:  # type: ignore[no-untyped-def]
        _add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        from django.conf import settings

        items = doctor_items(settings.RELAYBAY, _homes(options))
        self.stdout.write(render_items(items, as_json=options["json"]))
        if not all(item.ok for item in items):
            raise SystemExit(1)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="A JSON list of {ok, name, detail}.")
    for doctor in doctors():
        parser.add_argument(doctor.option, metavar=doctor.metavar, help=doctor.help)


def _homes(options: Any) -> list[tuple[Any, Path]]:
    """Each agent's doctor with its folder, from its flag or its own default."""
    given = options if isinstance(options, dict) else vars(options)
    return [(d, d.home(given.get(d.option.lstrip("-").replace("-", "_")))) for d in doctors()]


def run_without_settings(argv: list[str], error: Exception) -> int:
    """`relaybay doctor` when the settings are invalid (a ConfigError): the items that need
    no settings, and the error as one failed "settings" item. Django is not started."""
    from core.config import FLAGS_ENV, default_home

    parser = argparse.ArgumentParser(prog="relaybay doctor")
    _add_arguments(parser)
    options = parser.parse_args(argv)
    flags = json.loads(os.environ.get(FLAGS_ENV) or "{}")
    home_raw = flags.get("home") or os.environ.get("RELAYBAY_HOME")
    home = Path(home_raw).expanduser() if home_raw else default_home()
    items = [
        *local_items(home, _homes(options), with_settings=False),
        Item(False, "settings", str(error), FIX_SETTING),
    ]
    sys.stdout.write(render_items(items, as_json=options.json) + "\n")
    return 1


def doctor_items(cfg: Any, homes: list[tuple[Any, Path]]) -> list[Item]:
    """Every item, each agent's by its package's doctor (agents/setup/doctor.py)."""
    from tasks.rules import effective_rules

    home = cfg.home_path
    items = local_items(home, homes, with_settings=True)
    token = _read_token(home)
    # /healthz is public: ask it even without a token file, so the rules hash is compared
    # with a server that answers (it once said "no running server" while one ran).
    health = server.healthz(cfg.base_url)
    reached = health is not None or server.listens(cfg.base_url)
    # the hook endpoint asked is the first agent's: every agent's route is served alike
    hook_path = specs()[0].path
    items += server.server_items(cfg.base_url, token, health, reached=reached, hook_path=hook_path)
    items.append(server.rules_item(effective_rules(cfg.rules, cfg.rules_mode).hash, health))
    for doctor, agent_home in homes:
        if doctor.connected(agent_home):
            items += doctor.checks(agent_home, cfg, token, health)
    return items


def _read_token(home: Path) -> str | None:
    try:
        return tokens.read_token(home)
    except (OSError, UnicodeDecodeError):
        return None


def local_items(home: Path, homes: list[tuple[Any, Path]], *, with_settings: bool) -> list[Item]:
    """relaybay, Python, OS, data folder, token file, then each agent's own items that need
    no server (found, or how to connect it)."""
    py = sys.version_info
    python_ok = py[:2] >= MIN_PYTHON
    items = [
        Item(True, "relaybay", f"{get_version()} ({sys.executable})"),
        Item(
            python_ok,
            "Python",
            f"{py.major}.{py.minor}.{py.micro}"
            + ("" if python_ok else f"; relaybay needs {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer"),
            "" if python_ok else REINSTALL,
        ),
        Item(True, "OS", platform.platform()),
        _data_folder_item(home),
        _token_item(home),
    ]
    for doctor, agent_home in homes:
        items += doctor.local(agent_home, with_settings=with_settings)
    return items


def _data_folder_item(home: Path) -> Item:
    name = "data folder"
    if not home.is_dir():
        return Item(False, name, f"{home} does not exist", "relaybay serve (creates it)")
    config = "config.toml is there" if (home / "config.toml").is_file() else "no config.toml"
    if not os.access(home, os.W_OK):
        return Item(False, name, f"{home} is not writable; {config}", f"chmod u+rwx {home}")
    return Item(True, name, f"{home} exists and is writable; {config}")


def _token_item(home: Path) -> Item:
    name = "token file"
    path = tokens.token_path(home)
    try:
        text = path.read_text(encoding="utf-8").strip()
        mode = path.stat().st_mode
    except FileNotFoundError:
        return Item(False, name, f"{path} does not exist", "relaybay serve (creates it)")
    except (OSError, UnicodeDecodeError) as exc:
        return Item(False, name, f"cannot read {path}: {exc}", f"chmod 600 {path}")
    if not text:
        return Item(False, name, f"{path} is empty", "relaybay token --rotate")
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        return Item(
            False,
            name,
            f"{path} is readable by other users (mode {stat.S_IMODE(mode):o})",
            f"chmod 600 {path}",
        )
    return Item(True, name, f"{path} (token id {tokens.token_id(text)})")
