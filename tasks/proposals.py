"""Agent proposes, owner confirms (§7): the mechanics environments' and policy's proposals share.

An agent's proposal is a row that changes nothing until the owner decides it; a decided
proposal is never decided again; a change that gives agents more on live is confirmed a
second time on its own page. Those mechanics are written once: the statuses, the two
refusals, the page's proposals section (tasks/partials/proposals.html, refetched on its
refresh table fragment), the confirmation page (tasks/confirm_live.html) and the view helper
that renders it. The steps that write — pending, decide, reopen — are
tasks/services/proposals.py. Each app keeps only what its proposal means: what is applied,
what it raises on live, and its texts (`Words`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.display import Stamp, stamp
from core.errors import DomainError

PENDING, ACCEPTED, REJECTED = "pending", "accepted", "rejected"
STATUSES = (PENDING, ACCEPTED, REJECTED)
SECTION_TEMPLATE = "tasks/partials/proposals.html"


class AlreadyDecided(DomainError):
    """A decided proposal is never decided again."""

    status = 409


class NeedsConfirmation(DomainError):
    """The change gives agents more on live; `reasons` say how. Nothing changed.

    `verb` is the app's word for it ("raises", "widens"), so the message reads as its page.
    """

    status = 409

    def __init__(self, reasons: tuple[str, ...], *, verb: str = "raises") -> None:
        self.reasons = reasons
        super().__init__(
            f"This change {verb} agents' access on live: " + "; ".join(reasons) + ". "
            "Confirm it to save."
        )


def confirm_note(reasons: tuple[str, ...], *, verb: str = "raises") -> tuple[str, ...]:
    """The note a proposing agent reads when its change will be confirmed twice (() when not)."""
    if not reasons:
        return ()
    return (
        f"It {verb} agents' access on live (" + "; ".join(reasons) + "), so the owner confirms "
        "it a second time when accepting.",
    )


@dataclass(frozen=True)
class Words:
    """One app's texts for its proposals section and its confirmation page."""

    prefix: str  # the ids: <prefix>-proposals, <prefix>-proposal, <prefix>-confirm
    verb: str  # what a change does to agents' access on live: "raise", "widen"
    title: str  # the section's heading
    live: str  # the section's fragment in the refresh table (tasks/live_refresh.py)
    tool: str  # the MCP tool agents propose with
    none: str  # the first words of the section when nothing is pending
    shown: str  # how the screen reader names a proposal's JSON: "<shown> #<id>"
    back: str  # the confirmation page's way back to the form
    confirm_template: str  # the app's page extending tasks/confirm_live.html (title, crumbs)
    calm: str = ""  # the pill of a proposal that raises nothing ("" shows none)


@dataclass(frozen=True)
class ProposalView:
    """One pending proposal as its section shows it, with what accepting it would do now."""

    id: int
    anchor: str  # the Inbox group links here
    subject: str  # what it changes: the environment, the scope
    subject_url: str  # "" when the subject links nowhere
    reason: str
    proposed_by: str
    when: Stamp | None
    shown: str  # the change as pretty JSON
    reasons: tuple[str, ...]  # why accepting asks a second time
    problem: str  # why accepting would be refused now ("" when it would not)
    reopened: str  # why it went back to pending ("" when it never did)
    accept_url: str
    reject_url: str


@dataclass(frozen=True)
class Section:
    """A page's proposals section: its words, where it refetches itself, what is pending."""

    words: Words
    url: str
    pending: tuple[ProposalView, ...]
    fields: tuple[tuple[str, str], ...] = ()  # hidden inputs every decision posts back


def proposal_view(
    found: Any,
    *,
    anchor: str,
    subject: str,
    shown: Any,
    would: tuple[tuple[str, ...], str],
    accept_url: str,
    reject_url: str,
    subject_url: str = "",
    reopened: str = "",
) -> ProposalView:
    """A proposal row (reason, proposed_by, created_at) as its section shows it; `would` is
    (why accepting asks again, why it would be refused) as the app's own check says now."""
    reasons, problem = would
    return ProposalView(
        id=found.id,
        anchor=anchor,
        subject=subject,
        subject_url=subject_url,
        reason=found.reason,
        proposed_by=found.proposed_by,
        when=stamp(found.created_at),
        shown=json.dumps(shown, indent=2, ensure_ascii=False),
        reasons=reasons,
        problem=problem,
        reopened=reopened,
        accept_url=accept_url,
        reject_url=reject_url,
    )


def confirm(
    request: HttpRequest,
    exc: NeedsConfirmation,
    words: Words,
    *,
    action: str,
    fields: Iterable[tuple[str, str]],
    title: str,
    cancel_url: str,
    what: str = "",
    shown: str = "",
    back: str = "",
    **context: Any,
) -> HttpResponse:
    """The second confirmation, a step the owner takes (200): why, and the same form again
    with confirmed=1, whose POST redirects like any success. `back` is where "back to the
    form" posts the same fields (with back=1), writing nothing; "" leaves it out."""
    page = {
        "words": words,
        "reasons": exc.reasons,
        "action": action,
        "fields": list(fields),
        "title": title,
        "what": what,
        "shown": shown,
        "back": back,
        "cancel_url": cancel_url,
        **context,
    }
    return render(request, words.confirm_template, page)
