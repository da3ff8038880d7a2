"""Every URL of the site: the project's own endpoints, then each app's urls."""

from importlib import import_module
from importlib.util import find_spec

from django.urls import include, path

from relaybay_site import live, static, views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("login", views.login, name="login"),
    path("events", live.events_view, name="events"),
    path("session-check", views.session_check, name="session_check"),
    path("api/stats", views.api_stats, name="api_stats"),
    path("static/<path:path>", static.serve_static, name="static"),
    path("", include("reviews.file_urls")),
    path("", include("relaybay_site.settings_pages")),
    path("", include("relaybay_site.integrations")),
]

# Each domain app adds its pages when it has any (tasks first: it owns "/").
for _app in ("tasks", "sessions", "plans", "reviews", "environments", "policy", "memory"):
    if find_spec(f"{_app}.urls") is not None:
        urlpatterns.append(path("", include(import_module(f"{_app}.urls"))))
