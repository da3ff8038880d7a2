"""Which live events refresh which part of the board: the one table (§2 Live updates).

It used to be spread over five templates' `hx-trigger` lists and four scripts' own kind
lists, in two languages, and they drifted. Now every fragment that refetches itself on
events is named here with the event kinds that concern it. Templates take their
`hx-trigger` from `{% live_trigger "<name>" %}` and the scripts read the whole table,
rendered once into every page by `{% live_table %}` (tasks/templatetags/live.py).

A pattern ending in `*` is a prefix; patterns are expanded against the event catalogue
(tasks/events.py), so the page only ever carries exact kinds and a kind added to the
catalogue joins every fragment whose pattern names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from core.caches import CODE, kept
from tasks.events import STREAMED


@dataclass(frozen=True)
class Fragment:
    """A part of a page that refetches itself when one of its kinds arrives.

    scope "all": any project's events; "project": only events of the page's project (app.js
    dispatches those as `rbp-<kind>`). Fragments whose trigger is a throttled notice
    (`rb-inbox-changed`) or a script-sent `refresh` use `kinds` through the scripts.
    """

    scope: str
    patterns: tuple[str, ...]
    why: str


TABLE: dict[str, Fragment] = {
    "projects": Fragment(
        "all",
        ("project.created", "project.updated", "task.created", "task.stage_changed"),
        "the projects list: names and the count of tasks per stage",
    ),
    "board_columns": Fragment(
        "project",
        ("task.created", "task.stage_changed"),
        "the board's column set: a new card, or a card that changed column",
    ),
    "comments": Fragment(
        "project",
        ("comment.*", "task.session_bound", "task.session_unbound"),
        "a task's comment thread: new comments, their delivery, and who they go to",
    ),
    "inbox": Fragment(
        "all",
        (
            "task.*",
            "review.step_*",
            "session.seen",
            "session.status_changed",
            "session.stuck",
            "session.forgotten",
            "session.collision",
            "report.added",  # progress: clears "Possibly stuck"
            "plan.step_updated",
            "comment.added",
            "comment.read",
            "environment.proposed",
            "environment.proposal_*",
            "policy.proposed",
            "policy.proposal_*",
            "approval.*",  # Waiting for your approval
        ),
        "the Inbox list and its sidebar badge (notify.js sends at most one notice per 2 s)",
    ),
    "stands": Fragment(
        "project",
        ("environment.*", "policy.updated"),
        "Stands & access: the pending proposals and each environment's panel and levels",
    ),
    "docs": Fragment(
        "project",
        ("document.updated", "decision.added", "memory.*"),
        "Docs & rules: the documents, decisions and memory notes (blocks and search stay put)",
    ),
    "document": Fragment(
        "project",
        ("document.updated",),
        "an open document's page: its text, sections and history after an agent's edit",
    ),
    "policy_proposals": Fragment(
        "all",
        ("policy.*",),
        "Settings → Policy: the pending proposals, and the scope shown (a layer changed)",
    ),
    "sessions": Fragment(
        "all",
        ("session.*", "task.session_*"),
        "the Sessions list (sessions.js refetches at most once per 2 s)",
    ),
    "live_actions": Fragment(
        "all",
        ("live.action",),
        "Activity's Actions on live block: the newest calls the guard journaled on live (§7)",
    ),
    "effort_section": Fragment(
        "project",
        ("effort.updated",),
        "a task's Effort section (dialog and page), alone: its tokens grew (a live-only "
        "notice, at most one per task per 5 s); no other section, card or list refetches",
    ),
    "effort": Fragment(
        "project",
        (
            "effort.updated",
            "task.created",
            "task.stage_changed",
            "task.session_bound",
            "task.session_unbound",
            "session.status_changed",
        ),
        "the Effort page's table, totals and charts (effort.js refetches at most once per 3 s)",
    ),
}


def _expand(pattern: str) -> list[str]:
    if pattern.endswith("*"):
        return sorted(kind for kind in STREAMED if kind.startswith(pattern[:-1]))
    return [pattern] if pattern in STREAMED else []


@kept("a fragment's name", bound="the refresh table's fragments", invalidation=CODE)
@cache
def kinds(name: str) -> tuple[str, ...]:
    """The exact event kinds that refresh fragment `name`, in catalogue order."""
    found: list[str] = []
    for pattern in TABLE[name].patterns:
        found += [kind for kind in _expand(pattern) if kind not in found]
    return tuple(found)


def hx_trigger(name: str, delay_ms: int = 0) -> str:
    """The `hx-trigger` value of a fragment that listens to the events themselves."""
    prefix = "rbp-" if TABLE[name].scope == "project" else "rb-"
    delay = f" delay:{delay_ms}ms" if delay_ms else ""
    return ", ".join(f"{prefix}{kind.replace('.', '-')} from:body{delay}" for kind in kinds(name))


def table_for_scripts() -> dict[str, list[str]]:
    """The table as the page's scripts read it: fragment name → exact kinds."""
    return {name: list(kinds(name)) for name in TABLE}
