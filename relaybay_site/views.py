"""Endpoints of the site itself: /healthz, the sign-in page and /session-check."""

from __future__ import annotations

import secrets
from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe

from core import caches, live, tokens
from core.caches import kept
from core.security import current_token, safe_next, set_board_cookie
from relaybay import get_version

NONCE_COOKIE = "relaybay_login_nonce"

# Registered here: relaybay/__init__.py imports nothing (the hook client imports it first).
caches.register(
    "relaybay._version",
    key="none: the installed package's version",
    bound="one value",
    invalidation="never: read once per process",
    reset="none needed",
)


@kept(
    "none (one value)",
    bound="one value",
    invalidation="never: the rules the server started with (§9.4)",
)
@cache
def _startup_rules_hash() -> str:
    """The global rules the server started with (§9.4): doctor compares it with the config."""
    from tasks.rules import effective_rules

    cfg = settings.RELAYBAY
    return effective_rules(cfg.rules, cfg.rules_mode).hash


def healthz_answer() -> dict[str, str]:
    """What /healthz says: the same for the whole life of the process (the token and the
    rules are read once at start), so the outer ASGI app serves it without Django."""
    return {
        "status": "ok",
        "version": get_version(),
        "token_id": tokens.token_id(current_token()),
        "rules_hash": _startup_rules_hash(),
    }


def healthz(request: HttpRequest) -> JsonResponse:
    """Public: lets setup, doctor and scripts see which server and token answer.

    A running server answers GET and HEAD in relaybay_site/asgi.py before Django; this view
    answers the other methods and Django's test client."""
    return JsonResponse(healthz_answer())


def api_stats(request: HttpRequest) -> JsonResponse:
    """Bearer only (/api): live-stream counters for tests, doctor and benchmarks."""
    return JsonResponse(
        {"subscribers": live.bus.count, "streams": live.open_streams(), **live.gauges()}
    )


@require_safe
def session_check(request: HttpRequest) -> HttpResponse:
    """Signed in: 204. Signed out, BoardAuthMiddleware answers first (302 to /login).

    app.js asks here after its live connection fails: an EventSource cannot see why, and
    after `token --rotate` and a restart the reason is an old cookie, not a down server.
    """
    response = HttpResponse(status=204)
    response["Cache-Control"] = "no-store"
    return response


def _signed_in(request: HttpRequest, target: str) -> HttpResponse:
    response = HttpResponseRedirect(safe_next(target))
    response.status_code = 303
    set_board_cookie(response, request)
    response.delete_cookie(NONCE_COOKIE, path=reverse("login"))
    return response


@require_http_methods(["GET", "HEAD", "POST"])
def login(request: HttpRequest) -> HttpResponse:
    """Sign in with the token once (form or ?token=); the cookie is derived from it."""
    token = current_token()
    next_url = safe_next(request.POST.get("next") or request.GET.get("next"))
    error = ""
    if request.method == "POST":
        nonce_ok = tokens.same(request.COOKIES.get(NONCE_COOKIE), request.POST.get("nonce", ""))
        if not nonce_ok:
            error = "The sign-in form expired. Try again."
        elif tokens.same(request.POST.get("token", "").strip(), token):
            return _signed_in(request, next_url)
        else:
            error = "That is not this server's token. Run relaybay token in a terminal to see it."
    elif "token" in request.GET:
        if tokens.same(request.GET["token"].strip(), token):
            return _signed_in(request, next_url)
        error = "That is not this server's token. Run relaybay token in a terminal to see it."
    nonce = secrets.token_urlsafe(24)
    response = render(
        request,
        "relaybay_site/login.html",
        {"next": next_url, "nonce": nonce, "error": error},
        status=403 if error else 200,
    )
    response.set_cookie(
        NONCE_COOKIE,
        nonce,
        max_age=3600,
        httponly=True,
        samesite="Strict",
        secure=request.is_secure(),
        path=reverse("login"),
    )
    return response
