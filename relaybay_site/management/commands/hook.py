"""`relaybay hook [--url …] [--token-file …] [--wait]`: the hook client behind the CLI (§4).

The same forwarder as `python -I -m relaybay.hook_client` (its `main` does all the work:
stdin in, the server's JSON answer out, exit 0, or 2 for a wake-up with --wait). This
command only fills in the defaults from this configuration: the base URL plus
/hooks/claude-code (/hooks/claude-code/wait with --wait) and <data dir>/token. No database,
no system checks, and the token is never created here.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from relaybay import hook_client
from relaybay_site.management.commands._flags import RelaybayCommand

HOOK_PATH = "/hooks/claude-code"
WAIT_PATH = "/hooks/claude-code/wait"


class WakeUp(SystemExit):
    """The forwarder's exit code 2 (a wake-up); relaybay.cli turns every other exit into 0."""


class Command(RelaybayCommand):
    help = (
        "Forward one Claude Code hook event (JSON on stdin) to relaybay; print its answer. "
        "Always exits 0 (2 with --wait when the server wakes the session)."
    )

    def add_arguments(self, parser) -> None:  # type: ignore[no-untyped-def]
        parser.add_argument(
            "--url",
            help=f"Hook endpoint (default: base URL + {HOOK_PATH}; {WAIT_PATH} with --wait).",
        )
        parser.add_argument(
            "--token-file", help="File holding the token (default: <data folder>/token)."
        )
        parser.add_argument(
            "--wait",
            action="store_true",
            help="Wake-up hook: wait for an owner comment; exit 2 with its lines on stderr.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        cfg = settings.RELAYBAY
        wait = bool(options["wait"])
        url = options["url"] or cfg.base_url + (WAIT_PATH if wait else HOOK_PATH)
        token_file = options["token_file"] or str(cfg.home_path / "token")
        argv = ["--url", url, "--token-file", token_file, *(["--wait"] if wait else [])]
        code = hook_client.main(argv)
        if code:
            raise WakeUp(code)
