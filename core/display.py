"""The one home of the board's vocabulary and small display helpers.

The six stage keys, a stage's display label, "how long ago" (and the `Stamp` a page shows
it with), a safe link target and a byte size were each written two to four times (models,
rules, config, selectors, render_md, template tags, attachments, HTTP limits) and had begun
to disagree ("5m ago" in one place, "5 min ago" in another; a 73-byte file as "1 KB").
Every page, MCP answer and setting check uses these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings
from django.utils import timezone

# The stage keys in board order (§1). Keys stay English; labels come from `stage_labels`.
STAGES = ("plan", "dev", "review", "test", "live", "done")

_UNSAFE_SCHEME = re.compile(r"^(javascript|data|vbscript|file):", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_WEB = re.compile(r"^https?://[^\s/?#]", re.IGNORECASE)


def stage_label(stage: str) -> str:
    """A stage's display label from the `stage_labels` setting, else the capitalised key."""
    return settings.RELAYBAY.stage_labels.get(stage) or stage.capitalize()


def utc_text(moment: datetime) -> str:
    """The exact time, shown on hover and in answers: 2025-03-04 13:45:07 UTC."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def ago(moment: datetime | None, now: datetime | None = None) -> str:
    """A short age: just now, 5 min ago, 3 h ago, 2 d ago, then the date after 30 days.

    A moment in the future (a skewed clock) reads "just now", never a negative age.
    """
    if moment is None:
        return "never"
    seconds = max(0, int(((now or timezone.now()) - moment).total_seconds()))
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86400:
        return f"{seconds // 3600} h ago"
    if seconds < 30 * 86400:
        return f"{seconds // 86400} d ago"
    return moment.astimezone(UTC).strftime("%Y-%m-%d")


@dataclass(frozen=True)
class Stamp:
    """A time as a page shows it: a short age, with the exact UTC time on hover."""

    iso: str  # for <time datetime="…">
    utc: str
    age: str


def stamp(moment: datetime | None, now: datetime | None = None) -> Stamp | None:
    """A moment as a page shows it (None stays None): `ago` and `utc_text`, one rule for
    every page, since a copy with its own thresholds had drifted ("1 min ago" at 45 s)."""
    if moment is None:
        return None
    exact = moment.astimezone(UTC)
    return Stamp(
        iso=exact.isoformat(timespec="seconds").replace("+00:00", "Z"),
        utc=utc_text(exact),
        age=ago(moment, now or timezone.now()),
    )


def safe_href(url: str | None, *, web_only: bool = False) -> str:
    """A link target agent text may give, or "" when it could run script (§9.8).

    `web_only` keeps only http(s) links with a host: tracker and report URLs, which the
    services already check, guarded again where the page writes them.
    """
    url = (url or "").strip()
    if not url or _UNSAFE_SCHEME.match(_CONTROL.sub("", url)):
        return ""
    if web_only and not _WEB.match(url):
        return ""
    return url


_KB = 1024
_MB = 1024 * 1024


def size_text(n: int) -> str:
    """A byte count as people read it: 73 B, 34 KB, 1.5 MB, 10 MB.

    Under 1 KB in bytes (a 73-byte screenshot is not "1 KB"); whole kilobytes below 1 MB;
    megabytes with one decimal unless whole, so a limit reads "10 MB" and a file just over
    it "10.0 MB".
    """
    if n < _KB:
        return f"{n} B"
    if n < _MB and round(n / _KB) < 1024:
        return f"{round(n / _KB)} KB"
    return f"{n // _MB} MB" if n % _MB == 0 else f"{n / _MB:.1f} MB"
