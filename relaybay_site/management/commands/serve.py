"""`relaybay serve`: migrate, make sure the token exists, then run daphne until stopped."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from relaybay import get_version
from relaybay_site.management.commands._flags import add_setting_flags
from relaybay_site.security import current_token

log = logging.getLogger("relaybay.serve")


def access_logger(protocol: str, action: str, details: dict[str, Any]) -> None:
    """One line per request; the /login query (it may hold the token) is never written."""
    if protocol != "http" or action != "complete":
        return
    path = str(details.get("path", ""))
    if path.startswith("/login?"):
        path = "/login?[redacted]"
    sys.stderr.write(f"{details.get('method')} {path} {details.get('status')}\n")


class Command(BaseCommand):
    help = "Start relaybay: the board, /mcp and /hooks on one port (127.0.0.1 by default)."

    def add_arguments(self, parser) -> None:  # type: ignore[no-untyped-def]
        parser.add_argument(
            "--quiet-access-log", action="store_true", help="Do not print one line per request."
        )
        add_setting_flags(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        cfg = settings.RELAYBAY
        cfg.home_path.mkdir(parents=True, exist_ok=True)
        if not cfg.is_loopback:
            self.stderr.write(
                f"warning: binding {cfg.host}, not loopback: other machines can reach relaybay "
                "and the token travels without TLS. Add the names you use to allowed_hosts."
            )
        self._migrate()
        token = current_token()

        from daphne.endpoints import build_endpoint_description_strings
        from daphne.server import Server

        from relaybay_site.asgi import application

        self._print_banner(cfg, token)
        server = Server(
            application,
            endpoints=build_endpoint_description_strings(host=cfg.host, port=cfg.port),
            signal_handlers=True,
            action_logger=None if options["quiet_access_log"] else access_logger,
            verbosity=0,
            application_close_timeout=2,
        )
        self._register_shutdown(application)
        server.run()

    def _migrate(self) -> None:
        try:
            call_command("migrate", interactive=False, verbosity=0)
        except Exception as exc:
            self.stderr.write(
                f"relaybay: a database migration failed: {exc}\n"
                "The database was left as it was before that migration; nothing started."
            )
            raise SystemExit(1) from None

    def _print_banner(self, cfg: Any, token: str) -> None:
        base = cfg.base_url
        self.stdout.write(f"relaybay {get_version()} on {base}  (data folder: {cfg.home})")
        if sys.stdout.isatty():
            self.stdout.write(f"Sign in: open {base}/login?token={token}")
        else:
            self.stdout.write(
                f"Sign in: open {base}/login and paste the token that "
                f"`relaybay token --home {cfg.home}` prints."
            )
        self.stdout.write(f"Connect Claude Code: relaybay token --home {cfg.home}")
        self.stdout.flush()

    def _register_shutdown(self, application: Any) -> None:
        from twisted.internet import defer, reactor

        def before_shutdown() -> defer.Deferred:
            future = asyncio.ensure_future(application.shutdown())
            return defer.Deferred.fromFuture(future)

        reactor.addSystemEventTrigger("before", "shutdown", before_shutdown)
