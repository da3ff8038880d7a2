"""The outer ASGI app: lifespan → Host allow-list → Origin check → Bearer → MCP, the
wake-up wait or Django.

Daphne sends no lifespan, and the MCP SDK's session manager must run before the first
/mcp request, so the manager is started lazily (once, behind a lock) and stopped by the
shutdown trigger `relaybay serve` registers (or by lifespan under uvicorn in tests). The
first request also starts the minute's signal sweep (sessions/hooks/sweep.py), cancelled at
shutdown. Every response, whoever produced it, leaves with the §9.7 headers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "relaybay_site.settings")
django.setup()

from asgiref.sync import sync_to_async  # noqa: E402
from channels.routing import ProtocolTypeRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from core import heap, live, on_loop, security  # noqa: E402
from core.responses import PLAIN_TEXT  # noqa: E402
from relaybay_site import first_views, pages_asgi  # noqa: E402
from relaybay_site.http_limits import body_limit  # noqa: E402
from relaybay_site.views import healthz_answer  # noqa: E402
from sessions.hooks import routes as hook_routes  # noqa: E402
from sessions.hooks import sweep as signal_sweep  # noqa: E402
from sessions.hooks import wake  # noqa: E402
from sessions.hooks.activity import flush_pending_activity  # noqa: E402

Scope = dict[str, Any]
log = logging.getLogger("relaybay.server")
_flush_activity = sync_to_async(flush_pending_activity, thread_sensitive=True)
_sweep = sync_to_async(signal_sweep.sweep, thread_sensitive=True)


async def _plain(send: Any, status: int, text: str, extra: list | None = None) -> None:
    body = (text + "\n").encode()
    headers = [
        (b"content-type", PLAIN_TEXT.encode()),
        (b"content-length", str(len(body)).encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _Healthz:
    """GET / HEAD /healthz answered on the event loop: Django's handler costs three hops to
    its sync thread per request (request_started, the view, request_finished), which made
    the product's floor 8× a bare ASGI app under the same daphne. The body is
    the view's, encoded once, since nothing in it changes while the process runs."""

    path = "/healthz"
    _start: dict[str, Any] | None = None
    _body = b""

    @classmethod
    async def answer(cls, send: Any, method: str) -> None:
        if cls._start is None:
            cls._body = json.dumps(healthz_answer()).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(cls._body)).encode()),
            ]
            cls._start = {"type": "http.response.start", "status": 200, "headers": headers}
        await send(cls._start)
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else cls._body})


def _with_security_headers(send: Any) -> Any:
    async def wrapped(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            names = {k.lower() for k, _ in message.get("headers", [])}
            extra = [(k, v) for k, v in security.SECURITY_HEADERS if k not in names]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return wrapped


def _answered(send: Any) -> Any:
    """/mcp's send: once the answer's last bytes are out, what its write left for after it
    is done (core/on_loop.py)."""

    async def wrapped(message: dict[str, Any]) -> None:
        try:
            await send(message)
        finally:
            if message["type"] == "http.response.body" and not message.get("more_body"):
                on_loop.answer_sent(asyncio.get_running_loop())

    return wrapped


async def _sweep_forever() -> None:
    """Once a minute, the signals that become true with time alone (sessions/hooks/sweep.py)."""
    while True:
        await asyncio.sleep(signal_sweep.SWEEP_SECONDS)
        try:
            await _sweep()
        except Exception:
            log.exception("the signal sweep failed; it runs again in a minute")
        heap.trim()  # freed pages back to the system, so a long run's RSS stays flat


class RelaybayApp:
    def __init__(self) -> None:
        self.django = ProtocolTypeRouter({"http": pages_asgi.PagesHandler()})
        self._mcp: tuple[Any, Any] | None = None  # the MCP server and its ASGI app
        self._mcp_built = threading.Lock()
        self._lock: asyncio.Lock | None = None
        self._stop: asyncio.Event | None = None
        self._manager: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            await self.django(scope, receive, send)
            return
        if self._sweeper is None:  # the first request starts the minute's signal sweep
            self._sweeper = asyncio.get_running_loop().create_task(_sweep_forever())
        send = _with_security_headers(send)
        headers = security.headers_of(scope.get("headers", []))
        host = headers.get("host")
        path = scope["path"]
        if not security.host_allowed(host):
            await _plain(send, 403, "Refused: unknown Host. Add the name to allowed_hosts.")
            return
        guarded = security.needs_bearer(path)
        if security.origin_is_foreign(headers.get("origin"), host) and (
            guarded or scope["method"] not in ("GET", "HEAD")
        ):
            await _plain(send, 403, "Refused: cross-origin request.")
            return
        if guarded and not security.bearer_ok(headers.get("authorization")):
            await _plain(
                send,
                401,
                "Authorization: Bearer <token> required (run `relaybay token`).",
                [(b"www-authenticate", b"Bearer")],
            )
            return
        if path == _Healthz.path and scope["method"] in ("GET", "HEAD"):
            await _Healthz.answer(send, scope["method"])
            return
        if path != "/mcp":
            on_loop.settle()  # what MCP writes left for after their answers: before any read
        if path == "/mcp":
            server, mcp_app = self._mcp or await asyncio.to_thread(self.mcp)
            await self._ensure_manager()
            from relaybay_site.mcp_body import with_texts_checked  # after the SDK, as mcp()

            # a text longer than any tool takes is cut before the SDK holds it 4 times
            await with_texts_checked(
                mcp_app, server.longest_text(), scope, receive, _answered(send)
            )
            return
        if path in hook_routes.wait_paths():  # held up to 25 min: raw ASGI, no thread
            await wake.app(scope, receive, send)
            return
        hook = hook_routes.routes().get(path)
        if hook is not None:  # raw ASGI on the shared sync thread (sessions/hooks/asgi_io.py)
            await hook(scope, receive, send)
            return
        await self.django(scope, receive, send)

    # --- the MCP server, built once, and its session manager ------------------------------

    def mcp(self) -> tuple[Any, Any]:
        """The MCP server and its ASGI app, built on first use. Importing the SDK and building
        every tool's schema is ~0.6 s of CPU, a third of a start: `serve` builds it in a
        thread once it listens (warm_up), so /healthz and the board never wait for it and
        the first /mcp request rarely does."""
        with self._mcp_built:
            if self._mcp is None:
                from core.mcp import transport_security
                from relaybay_site.mcp_server import build_server

                cfg = settings.RELAYBAY
                server = build_server()
                app = server.streamable_http_app(
                    streamable_http_path="/mcp",
                    stateless_http=True,
                    json_response=True,
                    transport_security=transport_security(
                        sorted(security.allowed_host_names()), cfg.port
                    ),
                    # The SDK refuses bodies over 4 MiB with a bare 413, which cut
                    # attach_file's content_base64 at about 3 MB whatever attachments_max_mb
                    # said: take what the HTTP parser admits for /mcp, so the tool's own file
                    # limit answers instead.
                    max_request_body_size=body_limit("/mcp", cfg.attachments_max_mb).max_bytes,
                )
                self._mcp = (server, app)
            return self._mcp

    def warm_up(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Build the MCP server, compile the pages and, given the server's loop, open the
        main pages once (a thread `serve` starts once it listens), take what a stop left
        undone after a write's answer, then keep what they made out of the collector's full
        passes, as start's own objects are (core/heap)."""
        self.mcp()
        pages_asgi.warm()
        if loop is not None:
            first_views.visit(self.django, loop)
        on_loop.recover_left()  # a stop between a write's commit and what it left for after
        heap.settle()

    @property
    def mcp_server(self) -> Any:
        return self.mcp()[0]

    async def _ensure_manager(self) -> None:
        if self._manager is not None and not self._manager.done():
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._manager is not None and not self._manager.done():
                return
            started = asyncio.Event()
            self._stop = asyncio.Event()
            self._manager = asyncio.get_running_loop().create_task(self._run_manager(started))
            await started.wait()

    async def _run_manager(self, started: asyncio.Event) -> None:
        assert self._stop is not None
        server, _ = self._mcp or await asyncio.to_thread(self.mcp)
        async with server.session_manager.run():
            started.set()
            await self._stop.wait()

    async def shutdown(self) -> None:
        """End every long-lived request, then stop the MCP manager (SIGTERM, Ctrl-C, lifespan).

        Streams and held requests are woken first (live.stop_long_lived runs every closer
        registered with live.on_shutdown) so none of them keeps the server up (§5); both
        waits below are bounded, because daphne cancels whatever is left anyway.
        """
        live.stop_long_lived()
        if self._sweeper is not None:
            self._sweeper.cancel()
        with contextlib.suppress(Exception):  # the latest activity of working sessions (§4)
            await asyncio.wait_for(_flush_activity(all_of_them=True), 1)
        on_loop.finish_left()  # what the last writes left for after their answers
        if self._stop is not None:
            self._stop.set()
        waits: list[Any] = [live.wait_streams_closed(1.0)]
        if self._manager is not None:
            waits.append(asyncio.wait_for(self._manager, 2))
        with contextlib.suppress(Exception):
            await asyncio.gather(*waits, return_exceptions=True)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self._ensure_manager()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return


application = RelaybayApp()
