"""The pages' ASGI handler (relaybay_site/pages_asgi.py): a sync view runs whole in one of a
few kept threads, which keep their SQLite connection; async views keep Django's handler;
the warm-up compiles every template.

Driven in-process through the handler itself, with a request_started receiver noting the
thread and the connection each request ran with.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core import signals
from django.db import connection
from django.template import engines

from relaybay_site import pages_asgi

pytestmark = pytest.mark.django_db(transaction=True)
STATIC = "/static/relaybay/app.css"


def _scope(path: str) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1")],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
    }


def _get(handler: pages_asgi.PagesHandler, path: str) -> tuple[int, bytes]:
    status, _, body = _answer(handler, path)
    return status, body


def _answer(handler: pages_asgi.PagesHandler, path: str) -> tuple[int, dict[bytes, bytes], bytes]:
    async def run() -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []
        pending = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive() -> dict[str, Any]:
            if pending:
                return pending.pop()
            await asyncio.sleep(3600)  # the client stays until the answer is sent
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await handler(_scope(path), receive, send)
        return sent

    sent = asyncio.run(run())
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], dict(sent[0]["headers"]), body


@pytest.fixture
def seen() -> Iterator[list[tuple[str, int]]]:
    """(thread name, id of the raw SQLite connection) for every request started."""
    noted: list[tuple[str, int]] = []

    def note(**_: Any) -> None:
        connection.ensure_connection()
        noted.append((threading.current_thread().name, id(connection.connection)))

    signals.request_started.connect(note, weak=False)
    yield noted
    signals.request_started.disconnect(note)


def test_a_page_runs_in_a_kept_thread_that_keeps_its_connection(seen: list) -> None:
    handler = pages_asgi.PagesHandler()
    answers = [_get(handler, "/login") for _ in range(pages_asgi.THREADS + 2)]
    assert all(status == 200 and b"token" in body for status, body in answers)
    assert all(name.startswith("relaybay-page") for name, _ in seen)
    by_thread: dict[str, set[int]] = {}
    for name, raw in seen:
        by_thread.setdefault(name, set()).add(raw)
    # Each kept thread opened its connection once, and more requests came than threads.
    assert all(len(raws) == 1 for raws in by_thread.values())
    assert len(by_thread) <= pages_asgi.THREADS < len(seen)


def test_an_async_view_keeps_djangos_handler() -> None:
    assert pages_asgi._is_async_view("/settings/integrations")
    assert not pages_asgi._is_async_view("/login")
    assert not pages_asgi._is_async_view("/no/such/page")


def test_the_sign_in_check_runs_in_the_kept_thread_too(seen: list) -> None:
    status, _ = _get(pages_asgi.PagesHandler(), "/inbox")
    assert status == 302  # not signed in: the board's middleware sends it to /login
    assert seen
    assert seen[0][0].startswith("relaybay-page")


def test_a_file_is_read_in_the_kept_thread_not_on_the_shared_sync_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A FileResponse (static files, attachments) is read where its view ran: Django's
    send_response would read it through sync_to_async, on the thread the MCP tools and the
    hooks share."""
    hops: list[str] = []
    real = pages_asgi.ASGIHandler.send_response

    async def watched(self: Any, response: Any, send: Any) -> None:
        hops.append("streaming" if response.streaming else "whole")
        await real(self, response, send)

    monkeypatch.setattr(pages_asgi.ASGIHandler, "send_response", watched)
    status, headers, body = _answer(pages_asgi.PagesHandler(), STATIC)
    assert status == 200
    assert body == (settings.STATIC_DIR / STATIC.removeprefix("/static/")).read_bytes()
    assert headers[b"Content-Type"].startswith(b"text/css")
    assert int(headers[b"Content-Length"]) == len(body)
    assert hops == ["whole"]


def test_the_warm_up_compiles_every_template() -> None:
    files = [f for folder in settings.TEMPLATES[0]["DIRS"] for f in folder.rglob("*.html")]
    assert pages_asgi.warm() == len(files) > 50
    cached = engines["django"].engine.template_loaders[0]
    assert len(cached.get_template_cache) >= len(files)
