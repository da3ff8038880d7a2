"""docs/commands.md: the `relaybay` commands (relaybay.cli.COMMANDS) and each one's own
argument parser, without the settings' flags that configuration.md lists."""

from __future__ import annotations

import os

from relaybay_site.docgen.common import GENERATED, cell

HELP_COLUMNS = "100"  # argparse wraps to the terminal: render at a fixed width


def command_help(name: str) -> str:
    """`relaybay <name> --help` without the settings' flags (configuration.md has them)."""
    from django.core.management import load_command_class
    from django.core.management.base import BaseCommand

    command = load_command_class("relaybay_site", name)
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        parser = BaseCommand.create_parser(command, "relaybay", name)
        return parser.format_help().rstrip()
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def render_commands() -> str:
    """docs/commands.md from relaybay.cli.COMMANDS and each command's parser."""
    from relaybay.cli import COMMANDS

    lines = [
        "# Commands",
        "",
        GENERATED,
        "",
        "`relaybay <command> [options]` (the same as `python -m relaybay <command> …`). Every "
        "command also takes the settings' flags (`--home`, `--port`, … — see "
        "[configuration.md](configuration.md)) anywhere on the line; an invalid value is one "
        "line naming the setting and exit code 2.",
        "",
        "| Command | What it does |",
        "| --- | --- |",
        *(f"| [`{name}`](#relaybay-{name}) | {cell(text)} |" for name, text in COMMANDS.items()),
    ]
    for name, text in COMMANDS.items():
        lines += ["", f"## relaybay {name}", "", text, "", "```text", command_help(name), "```"]
    return "\n".join(lines) + "\n"
