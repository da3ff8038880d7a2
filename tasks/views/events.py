"""GET /events: the event log as Server-Sent Events (§2 Live updates).

It lives beside the event catalogue it streams (tasks/events.py); the bus and the stream's
body are the foundation's (core/live.py).
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import path

from core import live
from core.live import LiveMessage
from tasks.events import live_messages_after, newest_event_id


def _parse_last_id(request: HttpRequest) -> int | None:
    # app.js opens a fresh EventSource after a failed connection, which sends no header (§5).
    raw = request.headers.get("Last-Event-ID") or request.GET.get("last_event_id")
    if raw is None or raw.strip() == "":
        return None
    try:
        return max(0, int(raw.strip()))
    except ValueError:
        return None


def events_view(request: HttpRequest) -> HttpResponse:
    """GET /events[?project=<slug>]: replay after Last-Event-ID, then live events.

    The view only builds the response; the async generator does all the work and Django
    iterates it on the event loop. Subscribing happens inside the generator: a client that
    left before the body started (the generator never runs, so no `finally`) used to leave
    its subscriber behind. The view is sync on purpose: the board's sign-in middleware is
    sync-only, and an async view under it runs through async_to_sync in the sync thread,
    which logged "CurrentThreadExecutor already quit" on early disconnects.
    """
    project = request.GET.get("project") or None
    response = StreamingHttpResponse(
        live.stream(
            live.bus,
            project,
            _parse_last_id(request),
            settings.RELAYBAY.heartbeat_seconds,
            _replay,
        ),
        content_type="text/event-stream; charset=utf-8",
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@sync_to_async(thread_sensitive=True)
def _replay(project: str | None, last_id: int) -> list[LiveMessage] | None:
    """Events newer than last_id, or None when the client must resync (§2)."""
    if last_id > newest_event_id():
        return None  # ahead of the log: the database was replaced or reset
    messages = live_messages_after(last_id, project=project, limit=live.REPLAY_LIMIT + 1)
    return None if len(messages) > live.REPLAY_LIMIT else messages


urlpatterns = [
    path("events", events_view, name="events"),
]
