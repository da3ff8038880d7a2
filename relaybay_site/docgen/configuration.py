"""docs/configuration.md: every setting, from the settings table `core.config.SETTINGS`."""

from __future__ import annotations

import json
import re

from core.config import SETTINGS
from core.config_values import Setting
from relaybay_site.docgen.common import GENERATED, cell

DOC_LINK_RE = re.compile(r"\bdocs/([\w-]+\.md)\b")


def _type_text(s: Setting) -> str:
    if s.type == "choice":
        return "choice: " + ", ".join(s.choices)
    if s.type in ("int", "float") and (s.minimum is not None or s.maximum is not None):
        low = "" if s.minimum is None else f"{s.minimum:g}"
        high = "" if s.maximum is None else f"{s.maximum:g}"
        return f"{s.type} ({low}–{high})"
    if s.type == "list":
        return "list of strings"
    return s.type


def _default_text(s: Setting) -> str:
    if s.name == "home":
        return "the per-user data folder"
    if s.default is None:
        return "not set"
    if isinstance(s.default, bool):
        return "`true`" if s.default else "`false`"
    if isinstance(s.default, dict) and not s.default:
        return "empty table"
    return f"`{json.dumps(s.default, ensure_ascii=False)}`"


def render_configuration() -> str:
    """docs/configuration.md from the settings table."""
    file_only = [f"`{s.name}`" for s in SETTINGS if not s.env and not s.flag]
    not_in_file = [f"`{s.name}`" for s in SETTINGS if not s.in_file]
    scope_note = " ".join(
        [
            f"Only in `config.toml`: {', '.join(file_only)}." if file_only else "",
            f"Never read from `config.toml`: {', '.join(not_in_file)}." if not_in_file else "",
        ]
    ).strip()
    lines = [
        GENERATED,
        "",
        "# Configuration",
        "",
        "Every setting of relaybay, generated from the settings table in `core/config.py` (§10).",
        "",
        "## Where settings come from",
        "",
        "Each source overrides the one before it:",
        "",
        "1. the default below;",
        "2. `config.toml` in the data folder (TOML: `port = 8765`, `[stage_labels]` tables);",
        "3. the `RELAYBAY_*` environment variable (lists are comma-separated: "
        "`RELAYBAY_ALLOWED_HOSTS=board.lan,pi.local`; booleans are `true`/`false`, "
        "`1`/`0`, `yes`/`no`, `on`/`off`);",
        "4. the command-line flag, on any `relaybay` command "
        "(`relaybay serve --port 9000`, also listed by `relaybay serve --help`).",
        "",
        scope_note,
        "",
        "## The data folder",
        "",
        "The per-user data folder (platformdirs: `~/.local/share/relaybay` on Linux, "
        "`~/Library/Application Support/relaybay` on macOS, `%LOCALAPPDATA%\\relaybay` on "
        "Windows), or `RELAYBAY_HOME` / `--home`. It holds `relaybay.sqlite` (the database, "
        "migrated at start), `token` (mode 0600), the optional `config.toml`, the optional "
        "global policy `policy.json` ([policy.md](policy.md)) and `attachments/`.",
        "",
        "## Invalid values",
        "",
        "An invalid value — a wrong type, an unknown key in `config.toml`, a value out of "
        "range, malformed TOML, an unknown choice — stops the command before anything starts, "
        "with one line on stderr naming the key, where the value came from and the problem, "
        "and exit code 2:",
        "",
        "```",
        "relaybay: invalid setting 'port' (from --port): must be from 1 to 65535, got \"0\"",
        "```",
        "",
        "## Settings",
        "",
        "| Key | Type | Default | Environment variable | Flag | Help |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for s in SETTINGS:
        env = f"`{s.env_name}`" if s.env_name else "—"
        flag = f"`{s.flag_name}`" if s.flag_name else "—"
        help_text = DOC_LINK_RE.sub(r"[\1](\1)", s.help)  # "see docs/policy.md" links there
        row = [f"`{s.name}`", _type_text(s), _default_text(s), env, flag, help_text]
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"
