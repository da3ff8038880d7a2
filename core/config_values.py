"""One setting (its type, default, variable, flag and help) and how a raw value becomes its
type: a TOML value, or the text of an environment variable or a flag (`from_text`). Each
coercer returns the value and a problem, or None; core.config's `coerce` turns a problem
into a ConfigError naming the key and its source."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple


class Setting(NamedTuple):
    """One configuration key: its type, default, environment variable, flag and help.

    A NamedTuple, not a dataclass: dataclasses imports inspect, ~10 ms of every
    `relaybay hook` event's start-up.
    """

    name: str
    type: str  # str, int, float, bool, list, table, choice, path
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    in_file: bool = True  # may appear in config.toml
    env: bool = True  # has a RELAYBAY_* variable
    flag: bool = True  # has a --flag
    check: Callable[[Any], str | None] | None = None

    @property
    def env_name(self) -> str | None:
        return f"RELAYBAY_{self.name.upper()}" if self.env else None

    @property
    def flag_name(self) -> str | None:
        return "--" + self.name.replace("_", "-") if self.flag else None


def _text(setting: Setting, raw: Any, from_text: bool) -> tuple[Any, str | None]:
    if not isinstance(raw, str):
        return raw, f"must be a string, got {_show(raw)}"
    if setting.type == "choice" and raw not in setting.choices:
        return raw, f"must be one of {', '.join(setting.choices)}, got {_show(raw)}"
    if setting.name == "host" and not raw.strip():
        return raw, "must not be empty"
    return raw, None


def _list(setting: Setting, raw: Any, from_text: bool) -> tuple[Any, str | None]:
    if from_text and isinstance(raw, str):
        return [p.strip() for p in raw.split(",") if p.strip()], None
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        return raw, f"must be a list of strings, got {_show(raw)}"
    return raw, None


def _table(setting: Setting, raw: Any, from_text: bool) -> tuple[Any, str | None]:
    return raw, None if isinstance(raw, dict) else f"must be a table, got {_show(raw)}"


def _number(setting: Setting, raw: Any, from_text: bool) -> tuple[Any, str | None]:
    kind = setting.type
    value = raw
    if from_text and isinstance(raw, str):
        try:
            value = int(raw.strip()) if kind == "int" else float(raw.strip())
        except ValueError:
            return raw, f"must be {'an integer' if kind == 'int' else 'a number'}, got {_show(raw)}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return raw, f"must be {'an integer' if kind == 'int' else 'a number'}, got {_show(raw)}"
    if kind == "int" and not isinstance(value, int):
        return raw, f"must be an integer, got {_show(raw)}"
    low, high = setting.minimum, setting.maximum
    if (low is not None and value < low) or (high is not None and value > high):
        return raw, f"must be from {_fmt(low)} to {_fmt(high)}, got {_show(raw)}"
    return (float(value) if kind == "float" else value), None


def _boolean(setting: Setting, raw: Any, from_text: bool) -> tuple[Any, str | None]:
    if isinstance(raw, bool):
        return raw, None
    if from_text and isinstance(raw, str):
        text = raw.strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True, None
        if text in ("0", "false", "no", "off"):
            return False, None
    return raw, f"must be true or false, got {_show(raw)}"


COERCERS: dict[str, Callable[[Setting, Any, bool], tuple[Any, str | None]]] = {
    "str": _text,
    "path": _text,
    "choice": _text,
    "int": _number,
    "float": _number,
    "bool": _boolean,
    "list": _list,
    "table": _table,
}


def _fmt(n: float | None) -> str:
    return "-" if n is None else (str(int(n)) if float(n).is_integer() else str(n))


def _show(raw: Any) -> str:
    return json.dumps(raw) if isinstance(raw, str) else repr(raw)
