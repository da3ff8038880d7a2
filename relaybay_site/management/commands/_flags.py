"""The base of every relaybay command: its own options, then the settings table's flags.

relaybay.cli has already taken the settings' values out of argv (they may stand anywhere
on the line); declaring them here is what makes them show in each command's help. Django's
own base options (--verbosity, --settings, --traceback …) still work but are not listed:
they mean nothing to a relaybay user. No system checks: relaybay has no models to check
at start beyond its migrations, and `doctor` must run with a broken setup.
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any, ClassVar

from django.core.management.base import BaseCommand, CommandParser

from core.config import SETTINGS

DJANGO_OPTIONS = frozenset(
    {
        "--version",
        "--verbosity",
        "--settings",
        "--pythonpath",
        "--traceback",
        "--no-color",
        "--force-color",
        "--skip-checks",
    }
)


class RelaybayCommand(BaseCommand):
    requires_system_checks: ClassVar[list[str]] = []
    suppressed_base_arguments = DJANGO_OPTIONS

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        add_setting_flags(parser)
        return parser


def add_setting_flags(parser: ArgumentParser) -> None:
    group = parser.add_argument_group("settings (also RELAYBAY_* variables and config.toml)")
    for setting in SETTINGS:
        if setting.flag_name:
            group.add_argument(
                setting.flag_name,
                metavar=setting.type.upper(),
                help=setting.help,
                dest=f"setting_{setting.name}",
            )
