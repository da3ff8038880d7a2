"""The comment thread of the task dialog and page (§2 Comments): refresh, send, mark read.

Routes:
- GET  `/p/<slug>/t/<key>/comments/thread`: the thread (live refresh on comment.* events);
- POST `/p/<slug>/t/<key>/comments`: the owner writes a comment (owner_comment_add);
- POST `/p/<slug>/t/<key>/comments/read`: "Mark replies read" (comment_replies_read).

With htmx, a send answers the whole panel (an empty box and the fresh thread; a refusal
keeps the typed text in the box with the message under it). It answers 200 either way:
htmx swaps no 4xx answer, and the refusal must show where the owner typed. "Mark replies
read" answers the thread. Without scripts a write redirects back to the task page (303) and
a refusal is a 400 with the message. CSRF and the same-origin check are the middleware's
(core.security): a request without them never reaches these views.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import path
from django.views.decorators.http import require_POST, require_safe

from core import actor, tokens
from core.errors import DomainError, NotFound
from core.no_secrets import kept_typed
from core.responses import fragment, plain, refused
from core.security import current_token
from tasks import services
from tasks.models import Task
from tasks.selectors.comments import comment_urls, thread
from tasks.selectors.task_page import task_in_project, task_urls

THREAD = "tasks/partials/comments_thread.html"
PANEL = "tasks/partials/comments_panel.html"


def _context(task: Task, **extra: str) -> dict[str, object]:
    return {
        "thread": thread(task),
        "comment_urls": comment_urls(task),
        "csrf_token": tokens.csrf_token(current_token()),
        **extra,
    }


def _thread(task: Task) -> HttpResponse:
    return fragment(THREAD, _context(task))


def _panel(task: Task, **extra: str) -> HttpResponse:
    return fragment(PANEL, _context(task, **extra))


def _back(task: Task) -> HttpResponse:
    return HttpResponseRedirect(task_urls(task).page + "#comments-" + task.key, status=303)


@require_safe
def comments_thread(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    try:
        task = task_in_project(slug, key)
    except NotFound as exc:
        return refused(exc)
    return _thread(task)


@require_POST
def comment_post(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """The owner's comment for the agent of the bound session (owner_comment_add)."""
    body = request.POST.get("body", "")
    try:
        task = task_in_project(slug, key)
    except NotFound as exc:
        return refused(exc)
    try:
        services.owner_comment_add(key=task.key, body=body, actor=actor.OWNER)
    except DomainError as exc:
        if request.htmx:
            return _panel(
                task, comment_draft=kept_typed(exc, body), comment_error=f"Not sent: {exc}"
            )
        return plain(f"Not sent: {exc}", exc.status)
    if request.htmx:
        return _panel(task, comment_sent="1")
    return _back(task)


@require_POST
def comment_replies_read(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """Mark replies read: the task's unread agent replies (comment_replies_read)."""
    try:
        task = task_in_project(slug, key)
        services.comment_replies_read(key=task.key, actor=actor.OWNER)
    except DomainError as exc:
        return refused(exc)
    return _thread(task) if request.htmx else _back(task)


urlpatterns = [
    path("p/<str:slug>/t/<str:key>/comments", comment_post, name="comment_post"),
    path("p/<str:slug>/t/<str:key>/comments/thread", comments_thread, name="comments_thread"),
    path("p/<str:slug>/t/<str:key>/comments/read", comment_replies_read, name="comments_read"),
]
