"""The board's Owner check writes: the Review tab's per-step forms (§2 Review tab).

Board-only: the board cookie and its CSRF token (the middleware checks both); a request
signed in with the Bearer token is refused (403) — agents never accept or reject. Goes
through reviews.services.review_step_decide with actor owner, so each decision is an owner
comment linked to the step that reaches the agent through the comment path. A decision the
step already has, without a comment, writes nothing (the service says so); the panel is
simply shown again.
Route: `POST /p/<slug>/t/<key>/review/<step>/decide` with either `toggle` (the Accept
checkbox: `accepted` checked accepts, unchecked reopens) or `decision` (accept / reject /
comment, the comment box's buttons) and `comment` — htmx gets the re-rendered panel, a
plain form post a 303 to the task page.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from relaybay_site import actor
from relaybay_site.errors import DomainError, NotFound
from relaybay_site.security import forbidden
from reviews import panels, services
from tasks.models import Task
from tasks.selectors.task_page import task_in_project

BEARER_REFUSAL = (
    "Refused: the Owner check is decided by the owner on the board (cookie and CSRF), not "
    "with the Bearer token. Agents never accept or reject a step."
)


def _panel(task: Task, error: str = "", step: int = 0, comment: str = "") -> HttpResponse:
    # A fragment: no page frame, no sidebar queries.
    context = panels.panel_context(task, error, step, comment)
    return HttpResponse(render_to_string(panels.PANEL_TEMPLATE, context))


def _text(message: str, status: int) -> HttpResponse:
    return HttpResponse(message + "\n", status=status, content_type="text/plain; charset=utf-8")


def _decision(request: HttpRequest) -> str:
    if "toggle" in request.POST:
        return "accept" if request.POST.get("accepted") else "reopen"
    return request.POST.get("decision", "")


@require_POST
def review_step_decide(request: HttpRequest, slug: str, key: str, step: int) -> HttpResponse:
    """The owner's decision on one step: the Accept checkbox or the comment box's buttons."""
    if getattr(request, "auth_kind", None) != "cookie":
        return forbidden(BEARER_REFUSAL)
    try:
        task = task_in_project(slug, key)
    except NotFound as exc:
        return _text(str(exc), 404)
    comment = request.POST.get("comment", "").strip()
    try:
        services.review_step_decide(
            key=task.key,
            step=step,
            decision=_decision(request),
            comment=comment or None,
            actor=actor.OWNER,
        )
    except DomainError as exc:
        if not request.htmx:
            return _text(str(exc), 404 if isinstance(exc, NotFound) else 400)
        # htmx swaps only 2xx answers: the fresh panel says why and keeps the comment.
        return _panel(task, str(exc), step, comment)
    if not request.htmx:
        return HttpResponseRedirect(f"/t/{task.key}#review-step-{task.key}-{step}", status=303)
    return _panel(task)
