"""Django's pages in one hop to a kept thread, with the database connection kept too.

Django's own ASGI handler gives every request a one-thread executor of its own and sends it
there three times (request_started, the view, request_finished); the thread is new, so is
its SQLite connection: the schema parsed again, the page cache empty. At a year of data
that was ~6 ms of server CPU for the Inbox badge's one `max(id)` (0.3 ms in-process) and a
third of the Inbox's time over loopback (bench/README.md, "Writes as fast as a bare tool").
Here a sync view runs whole — signals, middleware, view, the response's close — in one of
a few kept threads, each keeping its connection (CONN_MAX_AGE None; Django still closes
one that failed or was left in a transaction).

Async views (Settings → Integrations) keep Django's handler: they await on the event loop.
The /events stream's view is sync and its body an async generator, which `send_response`
iterates on the loop as Django's does, listening for the client's disconnect meanwhile.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse, HttpResponse
from django.template import TemplateDoesNotExist, TemplateSyntaxError, loader
from django.urls import Resolver404, get_resolver, set_script_prefix

Scope = dict[str, Any]
THREADS = 4  # pages at once; more wait their turn (SQLite writes one at a time anyway)


class PagesHandler(ASGIHandler):
    """Django's ASGI handler for async views, one hop to a kept thread for the rest."""

    def __init__(self) -> None:
        super().__init__()  # the async chain, for async views
        self._sync = _SyncChain()
        self._pool = ThreadPoolExecutor(THREADS, thread_name_prefix="relaybay-page")

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or _is_async_view(scope["path"]):
            await super().__call__(scope, receive, send)
            return
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        with closing(body_file):
            loop = asyncio.get_running_loop()
            response = await loop.run_in_executor(self._pool, self._sync.respond, scope, body_file)
            if not response.streaming:
                await self.send_response(response, send)
                return
            try:
                await self._stream(response, receive, send)
            finally:
                await loop.run_in_executor(self._pool, response.close)

    async def _stream(self, response: HttpResponse, receive: Any, send: Any) -> None:
        """Send a streamed body until it ends or the client leaves (Django's own pattern)."""

        class Sent(Exception):
            pass

        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(self.listen_for_disconnect(receive))
                await self.send_response(response, send)
                raise Sent
        except* (Sent, RequestAborted):
            pass


class _SyncChain(ASGIHandler):
    """The same middleware as a sync chain, run whole in the calling thread."""

    def __init__(self) -> None:
        super(ASGIHandler, self).__init__()  # BaseHandler's: no async chain
        self.load_middleware(is_async=False)

    def respond(self, scope: Scope, body_file: Any) -> HttpResponse:
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=PagesHandler, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = PagesHandler  # type: ignore[attr-defined]
        assert response is not None
        if response.streaming and not response.is_async:
            response = _read_whole(response)
        if not response.streaming:
            response.close()  # request_finished, here in the kept thread
        return response


def _read_whole(streamed: HttpResponse) -> HttpResponse:
    """A file's body (a static file, an attachment) read here, in the kept thread: Django's
    `send_response` would read a sync iterator through `sync_to_async`, on the one sync
    thread the MCP tools and the hooks share. Its headers and cookies go with it."""
    if isinstance(streamed, FileResponse):
        streamed.block_size = ASGIHandler.chunk_size  # as Django's handler sets it
    body = b"".join(streamed)  # type: ignore[arg-type]
    whole = HttpResponse(body, status=streamed.status_code)
    for name, value in streamed.items():
        whole[name] = value
    whole.cookies = streamed.cookies
    whole._resource_closers.extend(streamed._resource_closers)  # type: ignore[attr-defined]
    return whole


def warm() -> int:
    """Import every view (the URLconf), index the URL names (the first `reverse()`: 57 ms)
    and compile every template, so the first view of a page after a start does not: they
    were most of its 120-460 ms at a year. Runs in
    `serve`'s warm-up thread, after /healthz answers; the count is for the tests."""
    get_resolver().reverse_dict  # noqa: B018 - importing every view and indexing the names
    compiled = 0
    for folder in settings.TEMPLATES[0]["DIRS"]:
        for file in sorted(folder.rglob("*.html")):
            try:
                loader.get_template(file.relative_to(folder).as_posix())
            except (TemplateDoesNotExist, TemplateSyntaxError):
                continue
            compiled += 1
    return compiled


def _is_async_view(path: str) -> bool:
    try:
        match = get_resolver().resolve(path)
    except Resolver404:
        return False
    return iscoroutinefunction(match.func)
