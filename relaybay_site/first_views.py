"""The board's main pages opened once by `serve`'s warm-up thread, before a person does.

Compiling the templates and importing the views (pages_asgi.warm) left the first view of a
page after a start at up to 160 ms at a year, where the same page opened after another took
3-86 ms: the first request of a process still ran each view's code for the first time,
filled the models' and the SQL's lazy caches, opened its page thread's SQLite connection
and counted the Inbox badge. Here each main page (of the project with the newest task,
and that task) is asked for once through the same handler a browser's request goes through
(PagesHandler, in the kept page threads, signed in with the Bearer token), from the
warm-up thread, after /healthz answers and the MCP server is built. Nothing goes over a
socket: no access-log line, no port. The pages only read: the warm-up leaves the database
as it was (tests/integration/test_first_views.py).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from django.conf import settings
from django.db import connection
from django.urls import reverse

from core import live, security
from tasks.models import Task

log = logging.getLogger("relaybay.warm")
_PATIENCE_S = 30.0  # one page at a year takes well under a second; a stuck one is left
warmed = [0]  # pages that answered 200 (for /api/stats, tests and benchmarks)
live.register_gauge("pages_warmed", lambda: warmed[0])


# The URL names of the pages opened: every person's, then a project's (its newest task's).
_EVERYWHERE = ("projects", "inbox", "inbox_badge", "activity", "sessions", "policy", "storage")
_OF_A_PROJECT = ("board", "project_sessions", "docs", "environments", "project_effort")


def paths() -> list[str]:
    """The pages a person opens first: the boards, the Inbox and its badge, the activity,
    the sessions, settings, and the pages of the project with the newest task, and that
    task's own."""
    found = [reverse(name) for name in _EVERYWHERE]
    newest = (  # read on the warm-up thread's own connection
        Task.objects.order_by("-updated_at", "-id").values_list("project__slug", "key").first()
    )
    connection.close()  # this thread's work is done: keep no connection for it
    if newest is None:
        return found
    project, key = newest
    found += [reverse(name, args=[project]) for name in _OF_A_PROJECT]
    found.append(reverse("task_page", args=[key]))
    return found


def visit(pages: Any, loop: asyncio.AbstractEventLoop) -> int:
    """Ask `pages` (the ASGI app of the board's pages) for each path once, one after
    another, on the server's loop; returns how many answered 200. Never raises: a page that
    fails here fails the same way for the person and is logged there."""
    for path in paths():
        try:
            status = asyncio.run_coroutine_threadsafe(_get(pages, path), loop).result(_PATIENCE_S)
        except Exception:  # a warm-up never stops the server
            log.debug("warm-up: %s failed", path, exc_info=True)
            continue
        if status == 200:
            warmed[0] += 1
        else:
            log.debug("warm-up: %s answered %s", path, status)
    return warmed[0]


async def _get(pages: Any, target: str) -> int:
    path, _, query = target.partition("?")
    port = settings.RELAYBAY.port
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [
            (b"host", f"127.0.0.1:{port}".encode()),
            (b"authorization", f"Bearer {security.current_token()}".encode()),
            (b"user-agent", b"relaybay-warm-up"),
        ],
        "client": ("127.0.0.1", 0),
        "server": ("127.0.0.1", port),
    }
    status = [0]
    asked = asyncio.Event()

    async def receive() -> dict[str, Any]:
        if not asked.is_set():
            asked.set()
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # never leaves: the page is read whole
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status[0] = message["status"]

    await pages(scope, receive, send)
    return status[0]
