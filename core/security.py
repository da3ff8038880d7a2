"""The request-security layers of §9, each a small function tested on its own.

Order in the outer ASGI app (asgi.py): Host allow-list → Origin check → Bearer on the
machine prefixes (/mcp, /hooks, /api). Inside Django, BoardAuthMiddleware signs board
pages in (cookie or Bearer), redirects to /login and checks CSRF on cookie writes.
Response headers (§9.7) are added to every response by the outer app.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache, wraps
from typing import Any
from urllib.parse import quote, urlsplit

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from core import caches, tokens
from core.caches import kept
from core.responses import plain

CSP = (
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)
BEARER_PREFIXES = ("/mcp", "/hooks", "/api")
PUBLIC_PATHS = ("/healthz", "/login", "/favicon.ico")
COOKIE_NAME = "relaybay_session"
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "HTTP_X_RELAYBAY_CSRF"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")

_token: str | None = None
caches.register(
    "core.security._token",
    key="none: the token of the data folder",
    bound="one value",
    invalidation="`forget_token()` (a rotated token)",
    reset="`forget_token()`",
)


def current_token() -> str:
    """The server's token, read (or created) once per process: rotation needs a restart."""
    global _token
    if _token is None:
        _token = tokens.ensure_token(settings.HOME)
    return _token


def forget_token() -> None:
    """Drop the cached token (tests, `token --rotate` inside one process)."""
    global _token
    _token = None


# --- Host and Origin ---------------------------------------------------------------------


@kept(
    "none (one value)",
    bound="one value",
    invalidation="never: the settings the process started with",
)
@cache
def allowed_host_names() -> frozenset[str]:
    cfg = settings.RELAYBAY
    names = {*LOOPBACK_NAMES, cfg.host.lower(), *(h.lower() for h in cfg.allowed_hosts)}
    if ":" in cfg.host and not cfg.host.startswith("["):
        names.add(f"[{cfg.host.lower()}]")
    return frozenset(names)


def host_name(host_header: str) -> str:
    """`127.0.0.1:8765` → `127.0.0.1`, `[::1]:8765` → `[::1]`, lowercased."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def host_allowed(host_header: str | None) -> bool:
    return bool(host_header) and host_name(host_header) in allowed_host_names()


def origin_is_foreign(origin: str | None, host_header: str | None) -> bool:
    """An Origin header that is not exactly this server's own scheme://host:port."""
    if origin is None:
        return False
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return True  # "null", file://, extensions …
    return parts.netloc.lower() != (host_header or "").lower()


def bearer_ok(authorization: str | None) -> bool:
    if not authorization or not authorization.lower().startswith("bearer "):
        return False
    return tokens.same(authorization[7:].strip(), current_token())


def needs_bearer(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in BEARER_PREFIXES)


def headers_of(scope_headers: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope_headers}


# --- Board sign-in and CSRF ----------------------------------------------------------------


def safe_next(candidate: str | None) -> str:
    """Only a local path may be the target after sign-in; anything else goes to /."""
    if not candidate or not candidate.startswith("/") or candidate.startswith(("//", "/\\")):
        return "/"
    if any(ord(c) < 32 for c in candidate) or "\\" in candidate:
        return "/"
    parts = urlsplit(candidate)
    if parts.scheme or parts.netloc:
        return "/"
    return candidate


def cookie_ok(request: HttpRequest) -> bool:
    return tokens.same(request.COOKIES.get(COOKIE_NAME), tokens.cookie_value(current_token()))


def set_board_cookie(response: HttpResponse, request: HttpRequest) -> None:
    response.set_cookie(
        COOKIE_NAME,
        tokens.cookie_value(current_token()),
        max_age=365 * 24 * 3600,
        httponly=True,
        samesite="Strict",
        secure=request.is_secure(),
        path="/",
    )


def same_origin(request: HttpRequest) -> bool:
    origin = request.headers.get("Origin")
    if origin is not None:
        return not origin_is_foreign(origin, request.headers.get("Host"))
    return request.headers.get("Sec-Fetch-Site") == "same-origin"


def csrf_ok(request: HttpRequest) -> bool:
    sent = request.META.get(CSRF_HEADER)
    if sent is None and request.content_type in (
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ):
        sent = request.POST.get(CSRF_FIELD)
    return tokens.same(sent, tokens.csrf_token(current_token()))


def forbidden(reason: str) -> HttpResponse:
    return plain(reason, 403)


def owner_only(reason: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A board write only the owner makes: signed in with the board cookie (and its CSRF
    token), never with the Bearer token, which is refused 403 with `reason` — a sentence
    naming what an agent uses instead (§9.5). Works on sync and async views."""

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        if iscoroutinefunction(view):

            @wraps(view)
            async def async_view(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
                if getattr(request, "auth_kind", None) != "cookie":
                    return forbidden(reason)
                return await view(request, *args, **kwargs)

            return async_view

        @wraps(view)
        def sync_view(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            if getattr(request, "auth_kind", None) != "cookie":
                return forbidden(reason)
            return view(request, *args, **kwargs)

        return sync_view

    return decorate


def _is_public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith("/static/")


class BoardAuthMiddleware:
    """Signs every board request in (board cookie or Bearer) and guards cookie writes.

    `request.auth_kind` is "bearer", "cookie" or None (public pages) so views can refuse
    board-only writes made with the Bearer token (§2 Review, §7). Sync and async capable,
    so async views (and streams) never detour through a worker thread for this check.
    """

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):  # type: ignore[no-untyped-def]
        self.get_response = get_response
        self._is_async = iscoroutinefunction(get_response)
        if self._is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):  # type: ignore[no-untyped-def]
        if self._is_async:
            return self._acall(request)
        return self._refusal(request) or self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        return self._refusal(request) or await self.get_response(request)

    @staticmethod
    def _refusal(request: HttpRequest) -> HttpResponse | None:
        """None when the request may go on (with request.auth_kind set), else the answer."""
        request.auth_kind = None  # type: ignore[attr-defined]
        path = request.path
        if needs_bearer(path):
            # The outer ASGI app has already checked the Bearer token for these prefixes.
            request.auth_kind = "bearer"  # type: ignore[attr-defined]
            return None
        if _is_public(path):
            return None
        if bearer_ok(request.headers.get("Authorization")):
            request.auth_kind = "bearer"  # type: ignore[attr-defined]
            return None
        if not cookie_ok(request):
            if request.method in ("GET", "HEAD"):
                target = request.get_full_path()
                return HttpResponseRedirect(reverse("login") + "?next=" + quote(target, safe="/"))
            return plain("Sign in first: open /login.", 401)
        request.auth_kind = "cookie"  # type: ignore[attr-defined]
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            if not same_origin(request):
                return forbidden("Refused: this write did not come from a relaybay page.")
            if not csrf_ok(request):
                return forbidden("Refused: missing or wrong CSRF token. Reload the page.")
        return None
