"""The settings table's flags on every relaybay command, so `--help` lists them.

relaybay.cli has already taken their values out of argv (they may stand anywhere on the
line); declaring them here is what makes them show in each command's help.
"""

from __future__ import annotations

from argparse import ArgumentParser

from relaybay_site.config import SETTINGS


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
