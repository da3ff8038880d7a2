"""Reading a settings file and writing it back with the user's formatting (§5).

A file that is exactly what `json.dumps` gives at its own indent (Claude Code writes its
settings that way) is re-serialised whole with that indent. Any other file keeps every
byte outside the members relaybay changes ("hooks", and for an agent whose setup also
writes its MCP server, that server's entry): only their text is replaced, inserted before
the closing brace or cut. Line endings (LF/CRLF) and the final newline are kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from agents.setup import splice


class SettingsError(Exception):
    """A settings file setup refuses to touch; the message says why and what to do."""


@dataclass(frozen=True)
class Layout:
    indent: str  # "  ", "    " or "\t"
    newline: str  # "\n" or "\r\n"
    final_newline: bool
    canonical: bool  # the text is exactly json.dumps at this indent


def decode(raw: bytes, name: str = "settings.json") -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(
            f"{name} is not UTF-8 (byte {exc.start}); fix or move it, then run setup again."
        ) from None


def parse(text: str, name: str = "settings.json") -> dict[str, Any]:
    """The document as a dict, checked against the documented hooks shape."""
    if not text.strip():
        return {}
    try:
        data = json.loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix it, then run setup again."
        ) from None
    if not isinstance(data, dict):
        raise SettingsError(f"{name} does not hold a JSON object; setup changes nothing.")
    check_hooks_shape(data.get("hooks", {}), name)
    return data


def check_hooks_shape(hooks: Any, name: str) -> None:
    """{Event: [{"matcher": str?, "hooks": [{"type": …}, …]}, …]}, as the hooks reference
    documents it; anything else is the user's own and is not guessed at."""
    problem = None
    if not isinstance(hooks, dict):
        problem = '"hooks" is not an object'
    else:
        for event, groups in hooks.items():
            if not isinstance(groups, list):
                problem = f'"hooks"."{event}" is not a list'
            elif not all(_group_ok(g) for g in groups):
                problem = f'"hooks"."{event}" has an entry without a "hooks" list of objects'
            if problem:
                break
    if problem:
        raise SettingsError(
            f"{name}: {problem}, which is not the documented hooks shape "
            '({"Event": [{"matcher": "…", "hooks": [{"type": "command", …}]}]}); '
            "fix it, then run setup again."
        )


def _group_ok(group: Any) -> bool:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    if "matcher" in group and not isinstance(group["matcher"], str):
        return False
    return all(isinstance(h, dict) and isinstance(h.get("type"), str) for h in group["hooks"])


def dumps(data: Any, indent: str) -> str:
    return json.dumps(data, indent=indent, ensure_ascii=False)


def layout_of(text: str, data: dict[str, Any]) -> Layout:
    newline = "\r\n" if "\r\n" in text else "\n"
    found = re.search(r"\n([ \t]+)\S", text)
    indent = found.group(1) if found else "  "
    if indent.startswith("\t"):
        indent = "\t"
    final = text.endswith("\n") or not text.strip()
    body = text.removeprefix("\ufeff").replace("\r\n", "\n").removesuffix("\n")
    canonical = not text.strip() or body == dumps(data, indent)
    return Layout(indent, newline, final, canonical)


def render(text: str, layout: Layout, old: dict[str, Any], new: dict[str, Any]) -> str:
    """The new file text: `new` differs from `old` in the members relaybay writes."""
    if new == old:
        return text
    if layout.canonical:
        body = dumps(new, layout.indent)
        out = body + ("\n" if layout.final_newline else "")
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        return bom + out.replace("\n", layout.newline)
    return splice.splice(text, splice.Style(layout.indent, layout.newline), old, new)
