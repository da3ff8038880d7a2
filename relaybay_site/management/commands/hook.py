"""`relaybay hook [--agent …] [--url …] [--token-file …] [--wait]`: the hook client behind the
CLI (§4).

The same forwarder as `python -I -m relaybay.hook_client` (its `main` does all the work:
stdin in, the server's JSON answer out, exit 0, or 2 for a wake-up with --wait). This
command only fills in the defaults from this configuration (relaybay.cli.hook_client_argv).
`relaybay hook` itself never reaches this command: relaybay.cli forwards the event before
Django is set up, since every hook event pays the start-up; what is left here is
`relaybay hook --help` and call_command.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from relaybay import hook_client
from relaybay.cli import HOOK_ROUTE, WAIT_ROUTE, agent_names, hook_client_argv
from relaybay_site.management.commands._flags import RelaybayCommand


class WakeUp(SystemExit):
    """The forwarder's exit code 2 (a wake-up)."""


class Command(RelaybayCommand):
    help = (
        "Forward one agent hook event (JSON on stdin) to relaybay; print its answer. "
        "Always exits 0 (2 with --wait when the server wakes the session)."
    )

    def add_arguments(self, parser) -> None:  # type: ignore[no-untyped-def]
        names = agent_names()
        parser.add_argument(
            "--agent",
            choices=names,
            default=names[0],
            help=f"Whose hook event it is (default: {names[0]}).",
        )
        parser.add_argument(
            "--url",
            help=f"Hook endpoint (default: base URL + {HOOK_ROUTE}; {WAIT_ROUTE} with --wait).",
        )
        parser.add_argument(
            "--token-file", help="File holding the token (default: <data folder>/token)."
        )
        parser.add_argument(
            "--hold",
            metavar="SECONDS",
            help="Wait up to this long for the answer (the owner's Approve or Deny).",
        )
        parser.add_argument(
            "--wait",
            action="store_true",
            help="Wake-up hook: wait for an owner comment; exit 2 with its lines on stderr.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        wait = bool(options["wait"])
        argv = hook_client_argv(
            settings.RELAYBAY,
            options["url"] or "",
            options["token_file"] or "",
            wait,
            options["agent"],
            options["hold"] or "",
        )
        code = hook_client.main(argv)
        if code:
            raise WakeUp(code)
