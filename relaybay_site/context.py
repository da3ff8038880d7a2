"""What every page's frame needs: CSRF token, sidebar items that exist, current path."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse

from core import tokens
from core.security import current_token
from relaybay import get_version


def _exists(name: str, *args: str) -> bool:
    try:
        reverse(name, args=args)
    except NoReverseMatch:
        return False
    return True


def frame(request: HttpRequest) -> dict[str, Any]:
    if getattr(request, "auth_kind", None) is None:
        return {"relaybay_version": get_version()}
    from tasks.events import STREAMED, newest_event_id
    from tasks.selectors import nav_projects

    return {
        "relaybay_version": get_version(),
        "csrf_token": tokens.csrf_token(current_token()),
        "nav": {
            "inbox": _exists("inbox"),
            "activity": _exists("activity"),
            "settings": _exists("settings"),
            # Every Settings tab marks the sidebar's Settings item as the current page.
            "in_settings": _exists("settings") and request.path.startswith(reverse("settings")),
            "board": _exists("board", "x"),
            "sessions": _exists("project_sessions", "x"),
            "environments": _exists("environments", "x"),
            "docs": _exists("docs", "x"),
            "effort": _exists("project_effort", "x"),
        },
        "nav_projects": nav_projects(),
        "current_path": request.path,
        "event_kinds": " ".join(sorted(STREAMED)),
        # The page's /events stream replays from here: nothing between render and connect is lost.
        "live_since": newest_event_id(),
    }
