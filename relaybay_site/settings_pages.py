"""Settings pages of the site itself: Settings → Notifications (§2 Browser notification).

`/settings` leads to Notifications until the Integrations page exists (a later issue gives
/settings to it, §2 Navigation). Which sections exist is decided like the sidebar: by
whether their URL name resolves.
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


def _sections(current: str) -> list[tuple[str, str, bool]]:
    found = []
    for name, label in SECTIONS:
        try:
            found.append((reverse(name), label, name == current))
        except NoReverseMatch:
            continue
    return found


@require_safe
def settings_root(request: HttpRequest) -> HttpResponse:
    return HttpResponseRedirect(reverse("notifications"))


@require_safe
def notifications(request: HttpRequest) -> HttpResponse:
    """The permission state of this browser and the one button that asks for it."""
    return render(
        request, "relaybay_site/notifications.html", {"sections": _sections("notifications")}
    )


urlpatterns = [
    path("settings", settings_root, name="settings"),
    path("settings/notifications", notifications, name="notifications"),
]
