"""Static files with content-hashed URLs (§9.7): `/static/<path>?v=<sha256[:12]>`.

No collectstatic: files are served from the package's static/ folder by one view, with
immutable caching when the `v` matches the file and no caching otherwise, so an upgrade
is never served stale.
"""

from __future__ import annotations

import hashlib
import mimetypes
from functools import cache
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse

from core.caches import kept


def _resolve(path: str) -> Path:
    root = Path(settings.STATIC_DIR).resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        raise Http404("No such static file.")
    return target


@kept(
    "(static path, its mtime)",
    bound="the shipped files",
    invalidation="a changed file: another mtime, another key",
)
@cache
def _digest(path: str, mtime_ns: int) -> str:
    return hashlib.sha256(_resolve(path).read_bytes()).hexdigest()[:12]


def file_hash(path: str) -> str:
    target = _resolve(path)
    return _digest(path, target.stat().st_mtime_ns)


def static_url(path: str) -> str:
    return f"{settings.STATIC_URL}{path}?v={file_hash(path)}"


def serve_static(request: HttpRequest, path: str) -> HttpResponse:
    target = _resolve(path)
    content_type = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if content_type.startswith("text/") or content_type.endswith("javascript"):
        content_type += "; charset=utf-8"
    response = FileResponse(target.open("rb"), content_type=content_type)
    if request.GET.get("v") == file_hash(path):
        response["Cache-Control"] = "public, max-age=31536000, immutable"
    else:
        response["Cache-Control"] = "no-cache"
    return response
