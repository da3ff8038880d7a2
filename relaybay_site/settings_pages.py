"""Settings pages of the site itself: the tab bar, /settings, Settings → Notifications.

`/settings` leads to the first section that exists: Integrations (§2 Navigation, §5), then
Notifications (§2 Browser notification), then Policy (policy/views.py, §7). Which sections
exist is decided like the sidebar: by whether their URL name resolves. Pages of an app take
the tabs from `{% settings_sections "<name>" as sections %}` (apps do not import the roof).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import NoReverseMatch, path, reverse
from django.views.decorators.http import require_safe

# (URL name, label) in the order the settings tabs show them.
SECTIONS = (
    ("integrations", "Integrations"),
    ("notifications", "Notifications"),
    ("policy", "Policy"),
)


def settings_sections(current: str) -> list[tuple[str, str, bool]]:
    """(url, label, is current) of each settings tab that exists, in tab order."""
    found = []
    for name, label in SECTIONS:
        try:
            found.append((reverse(name), label, name == current))
        except NoReverseMatch:
            continue
    return found


@require_safe
def settings_root(request: HttpRequest) -> HttpResponse:
    return HttpResponseRedirect(settings_sections("")[0][0])


@require_safe
def notifications(request: HttpRequest) -> HttpResponse:
    """The permission state of this browser and the one button that asks for it."""
    context = {"sections": settings_sections("notifications")}
    return render(request, "relaybay_site/notifications.html", context)


urlpatterns = [
    path("settings", settings_root, name="settings"),
    path("settings/notifications", notifications, name="notifications"),
]
