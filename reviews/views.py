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

Screenshots (§2 Review tab): `POST /p/<slug>/t/<key>/review/shot/<id>/remove` (the
thumbnail's confirmed Remove, through reviews.services.attachment_remove) and
`POST /p/<slug>/t/<key>/review/<step>/paste` (Ctrl+V: the raw image as the body, the CSRF
token in X-Relaybay-CSRF; attach_file with content=…, so the same checks; 413 above
attachments_max_mb). Both board-only, actor owner, answering the re-rendered panel.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from core import actor
from core.errors import DomainError, NotFound
from core.no_secrets import kept_typed
from core.responses import fragment, plain, refused
from core.security import owner_only
from reviews import files, panels, services
from reviews.models import Attachment
from tasks.models import Task
from tasks.selectors.task_page import task_in_project

BEARER_REFUSAL = (
    "Refused: the Owner check is decided by the owner on the board (cookie and CSRF), not "
    "with the Bearer token. Agents never accept or reject a step."
)


def _panel(task: Task, error: str = "", step: int = 0, comment: str = "") -> HttpResponse:
    return fragment(panels.PANEL_TEMPLATE, panels.panel_context(task, error, step, comment))


def _page(task: Task, anchor: str) -> str:
    """The task page at one section: where a plain form post (no htmx) lands."""
    return reverse("task_page", args=[task.key]) + "#" + anchor


SHOT_BEARER_REFUSAL = (
    "Refused: screenshots are removed and pasted by the owner on the board (cookie and "
    "CSRF), not with the Bearer token. Agents attach them with attach_file."
)
READ_CHUNK = 64 * 1024


def _decision(request: HttpRequest) -> str:
    if "toggle" in request.POST:
        return "accept" if request.POST.get("accepted") else "reopen"
    return request.POST.get("decision", "")


@require_POST
@owner_only(BEARER_REFUSAL)
def review_step_decide(request: HttpRequest, slug: str, key: str, step: int) -> HttpResponse:
    """The owner's decision on one step: the Accept checkbox or the comment box's buttons."""
    try:
        task = task_in_project(slug, key)
    except NotFound as exc:
        return refused(exc)
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
            return refused(exc)
        # htmx swaps only 2xx answers: the fresh panel says why and keeps the comment.
        return _panel(task, str(exc), step, kept_typed(exc, comment))
    if not request.htmx:
        return HttpResponseRedirect(_page(task, f"review-step-{task.key}-{step}"), status=303)
    return _panel(task)


@require_POST
@owner_only(SHOT_BEARER_REFUSAL)
def review_shot_remove(request: HttpRequest, slug: str, key: str, attachment: int) -> HttpResponse:
    """The thumbnail's confirmed Remove: delete one screenshot of this task."""
    try:
        task = task_in_project(slug, key)
    except NotFound as exc:
        return refused(exc)
    if not Attachment.objects.filter(id=attachment, task=task).exists():
        if request.htmx:  # removed meanwhile (another tab): show what is there now
            return _panel(task)
        return plain(f"{task.key} has no screenshot #{attachment}.", 404)
    services.attachment_remove(attachment=attachment, actor=actor.OWNER)
    if not request.htmx:
        return HttpResponseRedirect(_page(task, f"review-panel-{task.key}"), status=303)
    return _panel(task)


def _read_body(request: HttpRequest, limit: int) -> bytes | None:
    """The raw body, or None when it is over `limit` (read no further than limit + 1)."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = request.read(min(READ_CHUNK, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return None if size > limit else b"".join(chunks)


@require_POST
@owner_only(SHOT_BEARER_REFUSAL)
def review_step_paste(request: HttpRequest, slug: str, key: str, step: int) -> HttpResponse:
    """Ctrl+V in a step: the raw image becomes a screenshot of that step (attach_file)."""
    try:
        task = task_in_project(slug, key)
    except NotFound as exc:
        return refused(exc)
    limit = files.file_limit()
    data = _read_body(request, limit)
    if data is None:
        size = int(request.META.get("CONTENT_LENGTH") or limit + 1)
        return plain(str(files.too_big(size, limit, "The file")), 413)
    if not data:
        return plain("The pasted image is empty: nothing was attached.", 400)
    try:
        services.attach_file(key=task.key, actor=actor.OWNER, content=data, step=step)
    except DomainError as exc:
        return refused(exc)
    return _panel(task)
