"""The typed settings table and its loader (§10).

`SETTINGS` is the only place a key is defined: loading, validation, every command's
`--help` and docs/configuration.md are all generated from it. Sources, each overriding
the one before: defaults → `config.toml` in the data folder → `RELAYBAY_*` environment →
command-line flags. An invalid value raises `ConfigError` naming the key; the CLI turns
that into one line and exit code 2. How a raw value becomes its type is core/config_values.py.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core import prices
from core.config_values import COERCERS, Setting

# ipaddress, tomllib and platformdirs (with tempfile) are imported where they are used:
# `relaybay hook` reads this table on every hook event, often with --home and without a
# config.toml, and they were a third of its start-up.
if TYPE_CHECKING:
    import tomllib

# cli.py hands the flags it took from argv to load_config() through this variable, so a
# flag keeps its own name in error messages and wins over the environment.
FLAGS_ENV = "RELAYBAY__FLAGS"


class ConfigError(Exception):
    """An invalid setting: the message names the key, where it came from and the problem."""

    def __init__(self, key: str, source: str, problem: str) -> None:
        self.key, self.source, self.problem = key, source, problem
        where = f" (from {source})" if source else ""
        super().__init__(f"invalid setting '{key}'{where}: {problem}")


def _check_stage_labels(value: dict[str, Any]) -> str | None:
    # Imported here: core.display loads Django, and `relaybay hook` reads this table before
    # (and without) setting Django up.
    from core.display import STAGES

    for key, label in value.items():
        if key not in STAGES:
            return f"unknown stage '{key}' (stages: {', '.join(STAGES)})"
        if not isinstance(label, str) or not label.strip():
            return f"label for '{key}' must be a non-empty string"
    return None


def _check_rules(value: dict[str, Any]) -> str | None:
    # The working rules own their schema; core imports this one module of an app (§2).
    from tasks.rules.schema import RulesError, validate_layer

    try:
        validate_layer(value, layer="config.toml [rules]")
    except RulesError as exc:
        return str(exc)
    return None


def _check_permission_defaults(value: dict[str, Any]) -> str | None:
    levels = ("none", "read", "ask", "full")
    for kind, level in value.items():
        if kind not in ("local", "test", "live"):
            return f"unknown environment kind '{kind}' (local, test, live)"
        if level not in levels:
            return f"level for '{kind}' must be one of {', '.join(levels)}"
    return None


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "home",
        "path",
        None,
        "Data folder: relaybay.sqlite, token, config.toml, "
        "policy.json, attachments/. Default: the per-user data folder (platformdirs).",
        in_file=False,
    ),
    Setting(
        "host",
        "str",
        "127.0.0.1",
        "Address to bind. Anything but loopback prints a "
        "warning; add the names you use to allowed_hosts.",
    ),
    Setting("port", "int", 8765, "TCP port to listen on.", minimum=1, maximum=65535),
    Setting(
        "allowed_hosts",
        "list",
        [],
        "Extra Host header names accepted besides 127.0.0.1, "
        "localhost, [::1] and the bound host (DNS-rebinding allow-list).",
    ),
    Setting(
        "owner_names",
        "list",
        ["owner", "me", "you"],
        "waiting_on values that mean the "
        "owner (Inbox 'Waiting on you'; compared case-insensitively after trimming).",
    ),
    Setting(
        "done_window_days",
        "int",
        7,
        "Done tasks closed within this many days stay on the "
        "board; older ones are archived (board only).",
        minimum=0,
        maximum=3650,
    ),
    Setting(
        "require_tracker_log",
        "bool",
        False,
        "Done tasks need the external tracker's "
        "work-log mark: 'not logged' badges, an Inbox group, never archived without it.",
    ),
    Setting(
        "desktop_link_template",
        "str",
        "claude://resume?session={id}",
        "Link for 'Open in "
        "desktop' of a Claude desktop session; {id} is replaced by its local_… id.",
    ),
    Setting(
        "stage_labels",
        "table",
        {},
        'Display labels per stage, e.g. {dev = "Build"}; the stage keys stay English.',
        env=False,
        flag=False,
        check=_check_stage_labels,
    ),
    Setting(
        "rules_mode",
        "choice",
        "warn",
        "Working rules on stage moves: warn (the move "
        "succeeds with warnings) or strict (the move is refused).",
        choices=("warn", "strict"),
    ),
    Setting(
        "rules",
        "table",
        {},
        "Global working-rules layer (§6): report_format, "
        "stage_requirements, description_template, guidance, owner_only_stages, turn_end_update.",
        env=False,
        flag=False,
        check=_check_rules,
    ),
    Setting(
        "attachments_max_mb", "int", 10, "Largest screenshot kept, in MB.", minimum=1, maximum=1024
    ),
    Setting(
        "attachments_task_max_mb",
        "int",
        200,
        "Screenshots per task, in MB.",
        minimum=1,
        maximum=100_000,
    ),
    Setting("attachment_roots", "list", [], "Extra folders (or shares) attach_file may read."),
    Setting(
        "plan_reminder_every",
        "int",
        30,
        "Repeat the plan reminder every N PostToolUse hook events (0 turns it off).",
        minimum=0,
        maximum=100_000,
    ),
    Setting(
        "stuck_repeat_calls",
        "int",
        5,
        "Possibly stuck: the same tool with the same input this many times in a row (0 turns "
        "it off; see docs/signals.md).",
        minimum=0,
        maximum=1000,
    ),
    Setting(
        "stuck_minutes",
        "int",
        45,
        "Possibly stuck: working this many minutes without a relaybay write to the task or a "
        "plan step change (0 turns it off).",
        minimum=0,
        maximum=100_000,
    ),
    Setting(
        "forgotten_unbound_minutes",
        "int",
        10,
        "Forgotten sessions: working this many minutes with no bound task (0 turns it off).",
        minimum=0,
        maximum=100_000,
    ),
    Setting(
        "forgotten_idle_hours",
        "int",
        24,
        "Forgotten sessions: not ended but idle this many hours (0 turns it off).",
        minimum=0,
        maximum=100_000,
    ),
    Setting(
        "collision_warnings",
        "bool",
        True,
        "Collision warnings: tell a session when another live session of the same repository "
        "changed the same file in the last 30 minutes, or works in its checkout for another "
        "branch (see docs/signals.md).",
    ),
    Setting(
        "resume_brief",
        "bool",
        True,
        "Resume brief: where each bound task stands, in a resumed, cleared or compacted "
        "session's start and in task_bind_session's answer (see docs/signals.md).",
    ),
    Setting(
        "approval_wait_seconds",
        "int",
        540,
        "Approvals from the board: how long a held permission prompt or guard ask waits for "
        "your Approve or Deny, in seconds (0 turns holding off). It must stay under the "
        "hook's own timeout relaybay setup writes for these events (600 s, with the hook "
        "client's --hold 590): a guard ask the agent gives up on would let the call run. A "
        "larger value is capped: the server answers 10 s before the hook's hold ends (580 s). "
        "A guard ask not answered in time is denied, a CLI's own prompt falls back to the CLI "
        "(see docs/agents.md).",
        minimum=0,
        maximum=3000,
    ),
    Setting(
        "policy_file",
        "str",
        "policy.json",
        "Global policy layer (§7; see docs/policy.md); a relative path is read from the data "
        "folder.",
    ),
    Setting(
        "guard_mode",
        "choice",
        None,
        "Legacy guard mode layer (§7), only when set.",
        choices=("off", "log", "warn", "block"),
    ),
    Setting(
        "permission_defaults",
        "table",
        {},
        'Legacy levels per environment kind (§7), e.g. {live = "read"}; only when set.',
        env=False,
        flag=False,
        check=_check_permission_defaults,
    ),
    Setting(
        "prices",
        "table",
        {},
        "Dollars per million tokens by model, laid over the shipped defaults (docs/effort.md): "
        '[prices."claude-opus-5-5"] input, output, cache_write, cache_read; a key ending in * '
        "is a prefix. A model without a price shows its tokens and 'cost unknown'.",
        env=False,
        flag=False,
        check=prices.check,
    ),
    Setting(
        "heartbeat_seconds",
        "float",
        15.0,
        "Seconds between SSE heartbeat comments on /events.",
        minimum=0.05,
        maximum=3600,
    ),
)
BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}


class Config(Mapping[str, Any]):
    """The effective settings: attribute and mapping access, plus where each value came from."""

    def __init__(self, values: dict[str, Any], sources: dict[str, str]) -> None:
        self._values = values
        self.sources = sources

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    @property
    def home_path(self) -> Path:
        return Path(self._values["home"])

    @property
    def is_loopback(self) -> bool:
        """True for localhost and any address of the loopback range (127.0.0.0/8, ::1)."""
        host = self._values["host"].strip("[]")
        if host == "localhost":
            return True
        import ipaddress

        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False

    @property
    def base_url(self) -> str:
        host = self._values["host"]
        if host in ("0.0.0.0", "::"):  # noqa: S104 - a wildcard bind is reached on loopback
            host = "127.0.0.1"
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"http://{host}:{self._values['port']}"


def default_home() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("relaybay", appauthor=False))


def coerce(setting: Setting, raw: Any, source: str, from_text: bool) -> Any:
    """Turn a raw value (TOML value, or text from the environment or a flag) into the type."""
    value, problem = COERCERS[setting.type](setting, raw, from_text)
    if problem is None and setting.check is not None:
        problem = setting.check(value)
    if problem:
        raise ConfigError(setting.name, source, problem)
    return value


def _key_at_error(path: Path, exc: tomllib.TOMLDecodeError) -> str | None:
    """The key on the line a TOML error points at, so the message can name it."""
    found = re.search(r"at line (\d+)", str(exc))
    if not found:
        return None
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    number = int(found.group(1))
    line = lines[number - 1] if 0 < number <= len(lines) else ""
    key = re.match(r"\s*(?:\[+\s*([\w.-]+)|([\w.-]+)\s*=)", line)
    return (key.group(1) or key.group(2)) if key else None


def _read_file(path: Path) -> dict[str, Any]:
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError("config.toml", str(path), f"cannot read: {exc}") from None
    import tomllib

    try:
        with fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        key = _key_at_error(path, exc) or "config.toml"
        raise ConfigError(key, str(path), f"malformed TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("config.toml", str(path), f"cannot read: {exc}") from None


def load_config(
    environ: Mapping[str, str] | None = None, flags: Mapping[str, str] | None = None
) -> Config:
    """Merge the four sources in order and validate every value; raise ConfigError."""
    env = os.environ if environ is None else environ
    if flags is None:
        flags = json.loads(env.get(FLAGS_ENV) or "{}")
    values: dict[str, Any] = {s.name: s.default for s in SETTINGS}
    sources: dict[str, str] = {s.name: "default" for s in SETTINGS}

    # The data folder decides where config.toml lives, so it is resolved first.
    home_raw = flags.get("home") or env.get("RELAYBAY_HOME")
    home = Path(home_raw).expanduser() if home_raw else default_home()
    values["home"] = str(home.resolve())
    sources["home"] = (
        "--home" if flags.get("home") else ("RELAYBAY_HOME" if home_raw else "default")
    )

    config_path = home / "config.toml"
    for key, raw in _read_file(config_path).items():
        setting = BY_NAME.get(key)
        if setting is None or not setting.in_file:
            known = ", ".join(s.name for s in SETTINGS if s.in_file)
            raise ConfigError(key, "config.toml", f"unknown key (known keys: {known})")
        values[key] = coerce(setting, raw, "config.toml", from_text=False)
        sources[key] = "config.toml"

    for setting in SETTINGS:
        if setting.name == "home" or not setting.env_name or setting.env_name not in env:
            continue
        values[setting.name] = coerce(setting, env[setting.env_name], setting.env_name, True)
        sources[setting.name] = setting.env_name

    for key, raw in flags.items():
        setting = BY_NAME.get(key)
        if setting is None or key == "home":
            continue
        values[key] = coerce(setting, raw, setting.flag_name or key, from_text=True)
        sources[key] = setting.flag_name or key
    return Config(values, sources)
