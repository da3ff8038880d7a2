"""`relaybay serve`: migrate, make sure the token exists, then run daphne until stopped.

What requests need is done before daphne listens (the lock, the port, migrations when some
are pending, the start-up sweeps, the search index's check); what they need not wait for —
the MCP server's build and Django's system checks — runs in a thread once it listens, so
/healthz answers within 1.5 s of the start even at a year of data.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import shutil
import sqlite3
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus, unquote_plus

from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.urls import reverse

from agents.registry import setups
from core import heap
from core.security import current_token
from environments import secrets
from memory import search as memory_search
from policy import global_file
from policy import services as policy_services
from relaybay import get_version
from relaybay_site import http_limits, serve_lock, sql
from relaybay_site.management.commands._flags import RelaybayCommand
from reviews import storage

log = logging.getLogger("relaybay.serve")


def access_logger(protocol: str, action: str, details: dict[str, Any]) -> None:
    """One line per request; a query that may hold the token is never written (§9.5), and
    every other query has its secret spots masked: a search may hold a pasted token."""
    if protocol != "http" or action != "complete":
        return
    path = str(details.get("path", ""))
    base, sep, query = path.partition("?")
    if sep and (base.rstrip("/") == "/login" or "token" in query.lower()):
        path = base + "?[redacted]"
    elif sep:
        path = f"{base}?{masked_query(query)}"
    sys.stderr.write(f"{details.get('method')} {path} {details.get('status')}\n")


def masked_query(query: str) -> str:
    """The query as it came, but each `name=value` pair holding a secret — a token shape,
    user:password, a value under a secret's name (password=…), as every detector and the
    field-name rules of the write door find them, ignoring the policy — is written decoded
    and masked (***), so a percent-encoded secret is found too."""
    pairs = []
    for pair in query.split("&"):
        raw_name, sep, raw_value = pair.partition("=")
        name, value = unquote_plus(raw_name), unquote_plus(raw_value)
        shown_name, shown_value = _unsecret(name, None), _unsecret(value, name)
        if (shown_name, shown_value) != (name, value):
            pair = quote_plus(shown_name, safe="*") + sep + quote_plus(shown_value, safe="*/:@")
        pairs.append(pair)
    return "&".join(pairs)


def _unsecret(text: str, name: str | None) -> str:
    """`text` with every secret span one *** (overlapping findings merged)."""
    return secrets.mask_findings(text, secrets.find(text, field="q", name=name))


def bind_warning(cfg: Any) -> str | None:
    """§9.1: any address but loopback is reachable from other machines, without TLS."""
    if cfg.is_loopback:
        return None
    return (
        f"warning: binding {cfg.host}, not loopback: other machines can reach relaybay and the "
        "token travels without TLS. Add the names you use to allowed_hosts."
    )


DB_SIDE_FILES = ("-wal", "-shm")


def _pending_migrations(db: Path) -> bool:
    """Whether migrate has work to do, read without opening Django's (WAL-switching) connection."""
    from django.db.migrations.loader import MigrationLoader

    wanted = set(MigrationLoader(None, ignore_no_migrations=True).graph.nodes)
    if not db.exists():
        return bool(wanted)
    read_only = f"{db.resolve().as_uri()}?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(read_only, uri=True)) as con:
            applied = set(con.execute(sql.APPLIED_MIGRATIONS.text))
    except sqlite3.Error:
        return True  # no migration table yet (or unreadable): keep a copy to be safe
    return bool(wanted - applied)


def _snapshot(db: Path) -> Path:
    """Copy the database (and its WAL) aside; an empty folder stands for "no database yet"."""
    backup = Path(tempfile.mkdtemp(prefix=".migrate-backup-", dir=db.parent))
    for suffix in ("", "-wal"):
        source = Path(f"{db}{suffix}")
        if source.exists():
            shutil.copy2(source, backup / source.name)
    return backup


def _restore(db: Path, backup: Path) -> None:
    for suffix in ("", *DB_SIDE_FILES):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    for suffix in ("", "-wal"):
        saved = backup / f"{db.name}{suffix}"
        if saved.exists():
            os.replace(saved, f"{db}{suffix}")


def _daphne_server() -> type:
    from daphne.server import Server

    class ListenReportingServer(Server):
        """daphne's Server remembering why it could not listen (it only logs and stops)."""

        listen_failed = ""

        def listen_error(self, failure: Any) -> None:
            error = failure.value
            self.listen_failed = getattr(getattr(error, "socketError", None), "strerror", "")
            self.listen_failed = self.listen_failed or failure.getErrorMessage()
            self.stop()

    return ListenReportingServer


class Command(RelaybayCommand):
    help = "Start relaybay: the board, /mcp and /hooks on one port (127.0.0.1 by default)."
    # The system checks open the database (and so switch it to WAL): handle() runs them
    # after _migrate has taken its copy, so a failed migration leaves the file untouched.

    def add_arguments(self, parser) -> None:  # type: ignore[no-untyped-def]
        parser.add_argument(
            "--quiet-access-log", action="store_true", help="Do not print one line per request."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        heap.limit_arenas()  # before any thread: the request threads share two malloc arenas
        cfg = settings.RELAYBAY
        cfg.home_path.mkdir(parents=True, exist_ok=True)
        if warning := bind_warning(cfg):
            self.stderr.write(warning)
        try:  # a broken policy.json stops the start like a broken config.toml (§7, §10)
            global_file.check_at_start()
        except global_file.PolicyFileError as exc:
            for line in str(exc).splitlines():  # one line per error, each naming the file
                self.stderr.write(f"relaybay: invalid policy file: {line}")
            raise SystemExit(2) from None
        # Lock and port first: a start that cannot run must not migrate or sweep (serve_lock).
        try:
            lock = serve_lock.lock_data_folder(cfg.home_path)
            held = serve_lock.hold_port(cfg.host, cfg.port)
        except serve_lock.StartRefused as exc:
            self.stderr.write(f"relaybay: {exc}")
            raise SystemExit(1) from None
        lock.record(pid=os.getpid(), what=cfg.base_url)
        self._migrate()
        storage.sweep_orphans()  # files a crash left (§9.10)
        policy_services.policy_reopen_unwritten()  # a stop between commit and policy.json
        memory_search.rebuild_if_needed()  # a new index, or an upgrade (§8 Search)
        token = current_token()

        from daphne.endpoints import build_endpoint_description_strings

        from relaybay_site.asgi import application

        http_limits.install(cfg.attachments_max_mb)
        self._print_banner(cfg, token)
        server = _daphne_server()(
            application,
            endpoints=build_endpoint_description_strings(host=cfg.host, port=cfg.port),
            signal_handlers=True,
            action_logger=None if options["quiet_access_log"] else access_logger,
            verbosity=0,
            application_close_timeout=2,
        )
        self._register_shutdown(application)
        self._after_listening(application, checks=not options.get("skip_checks"))
        held.close()
        heap.settle()  # what start made lives for ever: out of the collector's full passes
        server.run()
        lock.release()
        if server.listen_failed:
            refusal = serve_lock.port_refusal(cfg.host, cfg.port, server.listen_failed)
            self.stderr.write(f"relaybay: {refusal}")
            raise SystemExit(1)

    def _migrate(self) -> None:
        """Apply pending migrations; on failure put the database file back as it was (§11).

        Django creates its django_migrations table outside the failing migration's
        transaction and the connection switches the file to WAL, so a rollback alone would
        not leave the file as it was: a copy taken before the first connection is restored.
        """
        db = Path(settings.DATABASES["default"]["NAME"])
        if not _pending_migrations(db):
            return  # nothing to apply: migrate would only load the same graph again
        backup = _snapshot(db)
        try:
            call_command("migrate", interactive=False, verbosity=0)
        except Exception as exc:
            with contextlib.suppress(Exception):
                connections.close_all()
            _restore(db, backup)
            detail = " ".join(str(exc).split()) or type(exc).__name__
            self.stderr.write(
                f"relaybay: a database migration failed ({detail}); the database in "
                f"{db.parent} was left as it was and nothing started."
            )
            raise SystemExit(1) from None
        finally:
            shutil.rmtree(backup, ignore_errors=True)

    def _after_listening(self, application: Any, *, checks: bool) -> None:
        """What a request need not wait for, in a thread once daphne listens, so /healthz
        answers within 1.5 s of the start: the MCP server's build (~0.6 s of CPU: the SDK's
        import and every tool's schema; an /mcp request that comes first builds it itself)
        and Django's system checks, which read the code, not the data — a failing one is
        logged with what it says, as it used to stop the start."""
        from twisted.internet import reactor

        def work(loop: asyncio.AbstractEventLoop) -> None:
            if checks:
                try:
                    self.check()
                except Exception as exc:  # CommandError or SystemCheckError
                    log.error("system checks failed: %s", exc)
            application.warm_up(loop)

        def begin() -> None:
            loop = asyncio.get_event_loop()  # the reactor's: the warm-up opens pages on it
            threading.Thread(
                target=work, args=(loop,), name="relaybay-warm-up", daemon=True
            ).start()

        reactor.callWhenRunning(begin)

    def _print_banner(self, cfg: Any, token: str) -> None:
        """One link to click and the exact line that connects the default agent (the first of
        agents/registry.py) to this server.

        Both hold the token, so they are printed only to a terminal: the person who ran
        `make run` gets a link to click, while output sent to a file or a service log,
        which may be kept and shared, never holds it (the access log redacts it too, §9.5)
        and names the command that prints it instead.
        """
        base = cfg.base_url
        agent = setups()[0]
        self.stdout.write(f"relaybay {get_version()} on {base}  (data folder: {cfg.home})")
        if self.stdout.isatty():
            self.stdout.write(f"Sign in: open {base}{reverse('login')}?token={token}")
            self.stdout.write(f"Connect {agent.title}: {agent.connect_line(base, token)}")
        else:
            again = token_command(cfg)
            self.stdout.write(f"Sign in: open the link that `{again}` prints")
            self.stdout.write(f"Connect {agent.title}: run `{again}` for {agent.connect_words}")
        self.stdout.flush()

    def _register_shutdown(self, application: Any) -> None:
        """SIGTERM / Ctrl-C: end streams and held requests before daphne stops (§5).

        Registered before `server.run()`, so it fires next to daphne's own trigger that
        cancels every application instance; the reactor waits for both, and the bound
        keeps a misbehaving closer from holding the exit for ever.
        """
        from twisted.internet import defer, reactor

        def before_shutdown() -> defer.Deferred:
            future = asyncio.ensure_future(asyncio.wait_for(application.shutdown(), 3))
            deferred = defer.Deferred.fromFuture(future)
            deferred.addErrback(lambda failure: log.warning("shutdown: %s", failure.value))
            return deferred

        reactor.addSystemEventTrigger("before", "shutdown", before_shutdown)


def token_command(cfg: Any) -> str:
    """`relaybay token` with the flags that make it print this server's address."""
    words = ["relaybay", "token", "--home", str(cfg.home)]
    for name, default in (("host", "127.0.0.1"), ("port", 8765)):
        if cfg[name] != default:
            words += [f"--{name}", str(cfg[name])]
    return shlex.join(words)
