"""A board card's values (§2 Cards): the task's own texts and what the other apps add
through tasks.extensions' card seam (badges, the session's dot, blocks such as a request
waiting for the owner), merged once per render with one batched call per extension."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse

from core.display import safe_href
from core.links import link_pattern
from tasks import extensions
from tasks.models import Project, Task
from tasks.selectors.tasks import is_next_step_stale

HOOK_STATUSES = ("working", "waiting", "idle", "ended")


@dataclass(frozen=True)
class Badge:
    text: str
    css: str
    href: str
    dialog_url: str = ""  # a link to this task's dialog (e.g. its Review tab) opens in place
    parts: tuple[tuple[str, str], ...] = ()  # (text, css) spans of `text`; () shows it whole


@dataclass(frozen=True)
class Card:
    key: str
    title: str
    stage: str
    is_done: bool
    archived: bool  # a done task outside the window, shown by search or "Show archived"
    waiting_on: str
    branch: str
    next_step: str
    next_step_stale: bool
    tracker_label: str  # "<tracker_name> <tracker_ref>", "" without a ref
    tracker_url: str  # http(s) only, else ""
    tracker_logged: bool
    tracker_not_logged: bool  # require_tracker_log and no mark (done tasks even without a ref)
    session_name: str
    hook_status: str  # working / waiting / idle / ended / ""
    desktop_link: str
    agent: str  # whose hooks report the bound session ("Claude Code", "Codex"), or ""
    agent_mark: str  # its two letters beside the status dot
    badges: tuple[Badge, ...]
    href: str  # /p/<slug>?task=<key>: the task dialog over the board
    dialog_url: str  # /p/<slug>/t/<key>/dialog: the dialog fragment
    refresh_url: str  # /p/<slug>/card/<key>: this card again
    blocks: tuple[extensions.RowBlock, ...] = ()  # other apps' parts (a waiting approval)


def _is_archived(task: Task, cutoff: datetime) -> bool:
    if task.stage != "done" or task.closed_at is None or task.closed_at >= cutoff:
        return False
    return not (settings.RELAYBAY.require_tracker_log and not task.tracker_logged)


def _merge_extras(extras: list[extensions.CardExtra]) -> dict[str, Any]:
    merged: dict[str, Any] = dict.fromkeys(("session", "status", "link", "agent", "mark"), "")
    merged["badges"], merged["blocks"] = [], []
    for extra in extras:
        merged["blocks"] += extra.blocks
        merged["session"] = merged["session"] or extra.session_name
        merged["agent"] = merged["agent"] or extra.agent
        merged["mark"] = merged["mark"] or extra.agent_mark
        merged["status"] = merged["status"] or extra.hook_status
        merged["link"] = merged["link"] or safe_href(extra.desktop_link)
        for badge in (extensions.CardBadge(*b) for b in extra.badges):
            if badge.text:
                merged["badges"].append(
                    Badge(badge.text, badge.css, safe_href(badge.href), parts=badge.parts)
                )
    if merged["status"] not in HOOK_STATUSES:
        merged["status"] = ""
    return merged


def _dialog_badges(badges: list[Badge], href: str, dialog_url: str) -> tuple[Badge, ...]:
    """A badge linking to the card's own task dialog (`?task=<key>&tab=review`) opens it
    over the board like the card does."""
    result = []
    for badge in badges:
        if badge.href == href or badge.href.startswith(href + "&"):
            rest = badge.href[len(href) + 1 :]
            badge = replace(badge, dialog_url=dialog_url + (f"?{rest}" if rest else ""))
        result.append(badge)
    return tuple(result)


def cards(project: Project, tasks: list[Task], cutoff: datetime) -> list[Card]:
    extras = extensions.card_extras(tasks) if tasks else {}
    require_log = settings.RELAYBAY.require_tracker_log
    board_url = reverse("board", args=[project.slug])
    # Reversed once per render, filled per card (core/links.py).
    dialog = link_pattern("task_dialog", "slug", "key")
    refresh = link_pattern("board_card", "slug", "key")
    cards = []
    for t in tasks:
        more = _merge_extras(extras.get(t.id, []))
        done = t.stage == "done"
        label = f"{t.tracker_name} {t.tracker_ref}".strip() if t.tracker_ref else ""
        href, dialog_url = f"{board_url}?{urlencode({'task': t.key})}", dialog(project.slug, t.key)
        cards.append(
            Card(
                key=t.key,
                title=t.title,
                stage=t.stage,
                is_done=done,
                archived=_is_archived(t, cutoff),
                waiting_on="" if done else t.waiting_on,
                branch=t.branch,
                next_step="" if done else t.next_step,
                next_step_stale=not done and is_next_step_stale(t),
                tracker_label=label,
                tracker_url=safe_href(t.tracker_url, web_only=True) if label else "",
                tracker_logged=t.tracker_logged,
                tracker_not_logged=require_log and not t.tracker_logged and (bool(label) or done),
                session_name=more["session"],
                hook_status=more["status"],
                agent=more["agent"],
                agent_mark=more["mark"],
                desktop_link=more["link"],
                badges=_dialog_badges(more["badges"], href, dialog_url),
                href=href,
                dialog_url=dialog_url,
                refresh_url=refresh(project.slug, t.key),
                blocks=tuple(more["blocks"]),
            )
        )
    return cards
