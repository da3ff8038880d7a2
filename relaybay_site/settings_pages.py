"""Settings pages of the site itself: the tab bar, /settings, Settings → Notifications and
Settings → Storage (what the data folder holds: the database's size, the event count).

`/settings` leads to the first section that exists: Integrations (§2 Navigation, §5), then
Notifications (§2 Browser notification), then Policy (policy/views.py, §7). Which sections
exist is decided like the sidebar: by whether their URL name resolves. Pages of an app take
the tabs from `{% settings_sections "<name>" as sections %}` (apps do not import the roof).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import NoReverseMatch, path, reverse
from django.utils import timezone
from django.views.decorators.http import require_safe

from core.display import Stamp, size_text, stamp
from tasks.selectors import log_size

# (URL name, label) in the order the settings tabs show them.
SECTIONS = (
    ("integrations", "Integrations"),
    ("notifications", "Notifications"),
    ("policy", "Policy"),
    ("storage", "Storage"),
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


@dataclass(frozen=True)
class Storage:
    """What the data folder's database holds and how fast the event log grows (the
    log is kept for ever — replay, Activity and the journal read it — so its growth is
    shown, not hidden)."""

    folder: str
    database: str  # relaybay.sqlite and its write-ahead log, as people read sizes
    wal: str
    events: int
    events_text: str  # "1,000,000"
    first_at: Stamp | None
    per_event: str  # the database's size over its events: what one more event costs
    per_day: str  # events a day since the first one ("": under a day of history)
    a_year: str  # at that pace, what a year adds


def storage() -> Storage:
    db = Path(settings.DATABASES["default"]["NAME"])
    main = db.stat().st_size if db.exists() else 0
    wal_path = Path(f"{db}-wal")
    wal = wal_path.stat().st_size if wal_path.exists() else 0
    log = log_size()
    per_event = (main + wal) / log.count if log.count else 0
    days = (timezone.now() - log.first_at).total_seconds() / 86400 if log.first_at else 0
    per_day = round(log.count / days) if days >= 1 else None
    return Storage(
        folder=str(settings.RELAYBAY.home_path),
        database=size_text(main + wal),
        wal=size_text(wal),
        events=log.count,
        events_text=f"{log.count:,}",
        first_at=stamp(log.first_at),
        per_event=size_text(round(per_event)),
        per_day=f"{per_day:,}" if per_day else "",
        a_year=size_text(round(per_day * 365 * per_event)) if per_day else "",
    )


@require_safe
def storage_page(request: HttpRequest) -> HttpResponse:
    """The database's size and the event log's length, read on each visit (a stat and one
    COUNT over the narrowest index)."""
    context = {"sections": settings_sections("storage"), "storage": storage()}
    return render(request, "relaybay_site/storage.html", context)


urlpatterns = [
    path("settings", settings_root, name="settings"),
    path("settings/notifications", notifications, name="notifications"),
    path("settings/storage", storage_page, name="storage"),
]
