"""The first view of every page after a start, rendered once before anyone asks for it.

A page's first view after a start paid for what every later view reuses: the modules its
view imports on first use, its templates compiled, the rows it keeps (core/row_html.py: a
board's cards, the Inbox's, Sessions' and Docs & rules' rows), SQLite's statements and
pages. At a year of data that made first views of 200 ms to over a second where the same
page warm took 20-60 ms (bench/README.md, "Writes as fast as a bare tool"). `serve`'s
warm-up thread, which starts once daphne listens (so /healthz never waits for it), renders
each page once in-process through Django's own handler and middleware, signed in with the
token: no socket, no access-log line, reads only (GET). The pages of the most recently
changed projects are rendered; a page that fails is logged and skipped, never fatal.
"""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Callable

from django.core.handlers.wsgi import WSGIHandler
from django.urls import reverse

log = logging.getLogger("relaybay.warm")

GLOBAL_PAGES = ("projects", "inbox", "activity", "sessions", "policy", "storage")
PROJECT_PAGES = ("board", "project_sessions", "docs", "environments", "project_effort")
PROJECTS_WARMED = 5  # the most recently changed projects: each has its own cards and rows
PAUSE = 0.005  # between two pages: a request that arrives meanwhile gets the CPU first


def pages(projects: int = PROJECTS_WARMED) -> list[str]:
    """The paths to render: every page of the frame, then each page of the projects
    changed last (their boards first, since a board's cards are the dearest to render)."""
    from tasks.models import Project

    slugs = list(
        Project.objects.order_by("-updated_at", "-id").values_list("slug", flat=True)[:projects]
    )
    found = [reverse(name) for name in GLOBAL_PAGES]
    for name in PROJECT_PAGES:
        found += [reverse(name, args=[slug]) for slug in slugs]
    return found


def warm_pages(
    host: str, token: str, paths: list[str] | None = None, *, pause: float = PAUSE
) -> dict[str, int]:
    """Render each path once (GET, signed in with the Bearer token, as Host `host`);
    {path: status}. Never raises: the start goes on whatever a page does."""
    statuses: dict[str, int] = {}
    started = time.monotonic()
    try:
        handler = WSGIHandler()
        for path in paths if paths is not None else pages():
            statuses[path] = _get(handler, host, token, path)
            time.sleep(pause)
    except Exception:  # a warm-up is never worth a failed start
        log.exception("warming the pages stopped")
    log.info("rendered %d pages once in %.1f s", len(statuses), time.monotonic() - started)
    return statuses


def _get(handler: Callable, host: str, token: str, path: str) -> int:  # type: ignore[type-arg]
    name, _, port = host.rpartition(":")
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": name or host,
        "SERVER_PORT": port or "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": host,
        "HTTP_AUTHORIZATION": f"Bearer {token}",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": io.StringIO(),
        "wsgi.url_scheme": "http",
        "wsgi.version": (1, 0),
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    found: list[int] = []

    def start_response(status: str, headers: list, exc_info: object = None) -> None:  # type: ignore[type-arg]
        found.append(int(status.split()[0]))

    response = handler(environ, start_response)
    try:
        for _ in response:
            pass
    finally:
        close = getattr(response, "close", None)
        if close is not None:
            close()
    status = found[0] if found else 0
    if status != 200:
        log.warning("warming %s answered %s", path, status)
    return status
