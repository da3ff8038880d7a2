"""`relaybay token [--rotate]`: the default agent's MCP registration line with the token
filled in (the first of agents/registry.py; `claude mcp add …`), and the board's sign-in link."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse

from agents.registry import setups
from core import tokens
from relaybay_site.management.commands._flags import RelaybayCommand


class Command(RelaybayCommand):
    help = (
        "Print the command that registers relaybay with your agent CLI and the board's "
        "sign-in link (creates the token)."
    )
    # No models are used here, and Django's checks would open (and create) the database,
    # which fails before the first `serve` has made the data folder.

    def add_arguments(self, parser) -> None:  # type: ignore[no-untyped-def]
        parser.add_argument(
            "--rotate",
            action="store_true",
            help="Replace the token (restart the server; sign in again).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        cfg = settings.RELAYBAY
        if options["rotate"]:
            token = tokens.rotate_token(cfg.home_path)
            self.stderr.write(
                "Token replaced. Restart `relaybay serve`; browsers sign in again "
                f"and {setups()[0].title} needs the new line below."
            )
        else:
            token = tokens.ensure_token(cfg.home_path)
        self.stdout.write(setups()[0].connect_line(cfg.base_url, token))
        self.stdout.write(f"Board sign-in: {cfg.base_url}{reverse('login')}?token={token}")
