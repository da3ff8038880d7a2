"""The one home of the board's vocabulary and small display helpers.

The six stage keys, a stage's display label, "how long ago" and a safe link target were
each written two to four times (models, rules, config, selectors, render_md, template
tags) and had begun to disagree ("5m ago" in one place, "5 min ago" in another). Every
page, MCP answer and setting check uses these.
"""

from __future__ import annotations

import re
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
