"""Every URL of the site: the project's own endpoints, then each app's urls."""

from django.urls import include, path

from core import static
from relaybay_site import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("login", views.login, name="login"),
    path("session-check", views.session_check, name="session_check"),
    path("api/stats", views.api_stats, name="api_stats"),
    path("static/<path:path>", static.serve_static, name="static"),
    path("", include("reviews.file_urls")),
    path("", include("relaybay_site.settings_pages")),
    path("", include("relaybay_site.integrations")),
    # The domain apps' pages (tasks first: it owns "/").
    path("", include("tasks.urls")),
    path("", include("sessions.urls")),
    path("", include("effort.urls")),
    path("", include("plans.urls")),
    path("", include("reviews.urls")),
    path("", include("policy.urls")),
    path("", include("environments.urls")),
    path("", include("memory.urls")),
]
