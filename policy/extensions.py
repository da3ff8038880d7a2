"""What policy plugs into the seams of tasks.extensions (registered in PolicyConfig.ready)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse

from policy import selectors
from tasks.extensions import InboxGroup, InboxRow, plug_in_once, register_inbox_group
from tasks.render_md import one_line

INBOX_ORDER = 80  # last: after Agent replies (60) and Proposed by agents (§2 Inbox order)


def policy_proposals_group() -> InboxGroup | None:
    """Inbox "Policy proposals": each pending proposal, linking to Settings → Policy."""
    proposals = selectors.pending_proposals()
    if not proposals:
        return None
    page = reverse("policy")
    rows = tuple(
        InboxRow(
            title=f"#{p.id} {p.scope}: {one_line(p.reason, 80)}",
            href=f"{page}?{urlencode({'scope': p.scope})}#proposal-{p.id}",
            detail=f"proposed by {p.proposed_by}",
            project=p.project.name if p.project else "",
        )
        for p in proposals
    )
    return InboxGroup(id="policy-proposals", title="Policy proposals", rows=rows, link=page)


@plug_in_once
def register() -> None:
    register_inbox_group(INBOX_ORDER, policy_proposals_group)
