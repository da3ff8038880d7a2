"""The board's one plan write: the Accept plan button of the Plan tab (§2 Plan tab).

Board-only: the board cookie and its CSRF token (the middleware checks both); a request
signed in with the Bearer token is refused (403) — an agent accepts with plan_accept over
MCP, where the bound session is refused. Goes through plans.services.plan_accept with
actor owner, so the board leaves the same revision and plan.accepted event as the tool.
Route: `POST /p/<slug>/t/<key>/plan/accept` — htmx gets the re-rendered panel, a plain
form post a 303 to the task page.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from core import actor
from core.errors import DomainError, NotFound
from core.responses import fragment, refused
from core.security import owner_only
from plans import panels, services
from tasks.models import Task
from tasks.selectors.task_page import task_in_project

BEARER_REFUSAL = (
    "Refused: the plan is accepted by the owner on the board (cookie and CSRF), not with "
    "the Bearer token. An agent or coordinator uses the plan_accept tool."
)


def _panel(task: Task, error: str = "") -> HttpResponse:
    return fragment(panels.PANEL_TEMPLATE, panels.panel_context(task, error))


@require_POST
@owner_only(BEARER_REFUSAL)
def plan_accept(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """Accept the task's plan (the Draft state's Accept plan button)."""
    try:
        task = task_in_project(slug, key)
    except NotFound as exc:
        return refused(exc)
    try:
        outcome = services.plan_accept(key=task.key, actor=actor.OWNER)
    except DomainError as exc:
        if not request.htmx:
            return refused(exc)
        # htmx swaps only 2xx answers: the fresh panel says why.
        return _panel(task, str(exc))
    if not request.htmx:
        return HttpResponseRedirect(reverse("task_page", args=[outcome.obj.key]), status=303)
    return _panel(outcome.obj)
