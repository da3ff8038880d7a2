"""The Inbox page (§2 Inbox), its two live fragments, and the title lookup of notify.js.

The list and the sidebar badge refetch themselves on `rb-inbox-changed`, which notify.js
dispatches at most once per 2 s for the event kinds that can change them. Fragments render
without the page frame's context (no sidebar queries on every refetch).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_safe

from core import flash, tokens
from core.errors import NotFound
from core.responses import fragment
from core.security import current_token
from tasks.selectors import get_task
from tasks.selectors.activity import task_href
from tasks.selectors.inbox import InboxState, inbox, inbox_one, inbox_total


@require_safe
def inbox_page(request: HttpRequest) -> HttpResponse:
    """`/inbox`: everything that needs the owner, grouped, with a count per group; each
    group shows its first rows (`?shown_<group>=N` more, "Show N more" without script)."""
    found = inbox(InboxState.from_query(request.GET))
    context = {"inbox": found, "flash": flash.take(request)}  # e.g. a session dismissed
    return flash.forget(request, render(request, "tasks/inbox.html", context))


@require_safe
def inbox_groups(request: HttpRequest) -> HttpResponse:
    """`/inbox/groups`: the list the page refetches, keeping the groups opened further."""
    found = inbox(InboxState.from_query(request.GET))
    context = {"inbox": found, "csrf_token": tokens.csrf_token(current_token())}
    return fragment("tasks/partials/inbox_groups.html", context)


@require_safe
def inbox_group(request: HttpRequest, group_id: str) -> HttpResponse:
    """`/inbox/group/<id>`: one group's "Show N more" — the group again with more rows,
    through the same partial, and the list's state out of band so its live refresh keeps
    what the reader opened (tasks/views/board.py column does the same for a column)."""
    state = InboxState.from_query(request.GET)
    context = {
        "group": inbox_one(group_id, state),
        "inbox": {"state": state},
        "oob": True,
        "csrf_token": tokens.csrf_token(current_token()),
    }
    return fragment("tasks/partials/inbox_group_response.html", context)


@require_safe
def inbox_badge(request: HttpRequest) -> HttpResponse:
    """`/inbox/badge`: the sidebar badge (the total number of rows, hidden at zero)."""
    return fragment("tasks/partials/inbox_badge.html", {"inbox_badge_total": inbox_total()})


@require_safe
def task_title(request: HttpRequest, key: str) -> JsonResponse:
    """`/t/<key>/title`: what the browser notification shows and where its click leads.

    The live message of task.stage_changed carries the key but not the title (§2 Live
    updates keeps messages small), so notify.js asks here; the current stage lets it skip a
    replayed move the task has since left.
    """
    try:
        task = get_task(key)
    except NotFound:
        return JsonResponse({"error": f"Unknown task {key}."}, status=404)
    return JsonResponse(
        {
            "key": task.key,
            "title": task.title,
            "stage": task.stage,
            "project": task.project.slug,
            "href": task_href(task.project.slug, task.key, tab="review"),
        }
    )


urlpatterns = [
    path("inbox", inbox_page, name="inbox"),
    path("inbox/groups", inbox_groups, name="inbox_groups"),
    path("inbox/badge", inbox_badge, name="inbox_badge"),
    path("inbox/group/<str:group_id>", inbox_group, name="inbox_group"),
    path("t/<str:key>/title", task_title, name="task_title"),
]
