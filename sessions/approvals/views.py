"""The board's Approve and Deny on a request waiting for the owner, and what the desktop
notification reads of one.

Approve and Deny are the owner's board writes (cookie and CSRF, §9.5): the Bearer token is
refused 403, so an agent can never answer its own request (and no MCP tool decides). Thin
adapters over sessions.approvals.services.approval_decide: htmx gets the request's block
again in its new state (or with the refusal in the service's words and the typed message
kept), a plain form post a 303 back to where it came from, or the refusal as plain text.
Routes (sessions/urls.py): `/approvals/<id>` (JSON), `/approvals/<id>/approve`, `/deny`.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from core import actor
from core.errors import DomainError, NotFound
from core.responses import fragment, refused
from core.security import owner_only, safe_next
from sessions.approvals import board, selectors, services

REFUSED_BEARER = (
    "Refused: Approve and Deny are the owner's, from a signed-in browser (board cookie and "
    "CSRF token), never with the Bearer token: an agent cannot answer its own request. "
    "Wait for the owner's answer (the hook is held until then)."
)


@require_safe
def approval_info(request: HttpRequest, approval_id: str) -> JsonResponse:
    """`/approvals/<id>`: what the desktop notification names (the agent, the task, the
    call) and whether the request still waits — a replayed approval.requested of one
    already answered shows nothing."""
    found = selectors.one(int(approval_id)) if approval_id.isdigit() else None
    if found is None:
        return JsonResponse({"error": f"No approval request #{approval_id}."}, status=404)
    view = board.view_of(found, "inbox")
    return JsonResponse(
        {
            "id": found.id,
            "state": found.state,
            "agent": found.agent,
            "session": found.session,
            "key": found.task_key,
            "title": found.task_title,
            "call": f"{found.tool} {found.summary}".strip(),
            "stand": found.stand,
            "href": view.task_href or reverse("inbox"),
        }
    )


def _decide(request: HttpRequest, approval_id: int, *, approve: bool) -> HttpResponse:
    place = request.POST.get("place", "")
    typed = "" if approve else request.POST.get("message", "")
    try:
        services.approval_decide(
            approval_id=approval_id, approve=approve, message=typed, actor=actor.OWNER
        )
    except DomainError as exc:
        return _answer(request, approval_id, place, exc, typed)
    return _answer(request, approval_id, place, None, "")


def _answer(
    request: HttpRequest, approval_id: int, place: str, error: DomainError | None, typed: str
) -> HttpResponse:
    found = selectors.one(approval_id)
    if not request.htmx or found is None:
        if error is not None:
            return refused(error)
        if found is None:  # removed meanwhile: nothing to show but the Inbox
            return refused(NotFound(f"No approval request #{approval_id}."))
        back = safe_next(request.POST.get("next") or reverse("inbox"))
        return HttpResponseRedirect(back, status=303)
    view = board.answered(
        board.view_of(found, place), error=str(error) if error else "", typed=typed
    )
    # A refusal keeps its status (409 answered already, 400 a message too long);
    # static/relaybay/approvals.js lets htmx swap those blocks in, as the dialog's forms do.
    return fragment(board.TEMPLATE, {"view": view}, status=error.status if error else 200)


@require_POST
@owner_only(REFUSED_BEARER)
def approval_approve(request: HttpRequest, approval_id: int) -> HttpResponse:
    """Approve: the held hook answers the agent's allow."""
    return _decide(request, approval_id, approve=True)


@require_POST
@owner_only(REFUSED_BEARER)
def approval_deny(request: HttpRequest, approval_id: int) -> HttpResponse:
    """Deny, with an optional message (at most 1,000 characters) that reaches the agent."""
    return _decide(request, approval_id, approve=False)
