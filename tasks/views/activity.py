"""The Activity page (§2 Activity) and its rows fragment (live prepend and Load more).

`/activity/rows?after=<id>` answers the rows newer than the page's newest one (prepended on
`rb-activity-changed`) plus the new anchor id out of band; `/activity/rows?before=<id>`
answers the next page (appended by "Load more") plus the next "Load more" out of band.
`/activity/live-actions?project=<slug>` answers the "Actions on live" block above the feed
(§7 Journal), refetched on live.action. A bad filter or id is a 400 with the reason, never a
500.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_safe

from core.errors import InvalidField
from core.responses import fragment, refused
from tasks.selectors.activity import (
    LIVE_MAX,
    ActivityFilters,
    activity_after,
    activity_page,
    kind_choices,
    parse_event_id,
    parse_filters,
    project_choices,
)
from tasks.selectors.live_actions import KIND as LIVE_ACTION
from tasks.selectors.live_actions import ActivityLiveActions, activity_live_actions


@require_safe
def activity(request: HttpRequest) -> HttpResponse:
    """`/activity`: the event log, newest first, 50 a page, filtered by project and kind."""
    context = {
        "kinds": kind_choices(),
        "projects": project_choices(),
        "selected_project": request.GET.get("project", ""),
        "selected_kind": request.GET.get("kind", ""),
    }
    try:
        filters = parse_filters(request.GET.get("project"), request.GET.get("kind"))
        before = parse_event_id("before", request.GET.get("before"))
    except InvalidField as exc:
        context["error"] = str(exc)
        return render(request, "tasks/activity.html", context, status=400)
    page = activity_page(filters, before)
    context.update(
        page=page,
        selected_project=filters.project_slug,
        selected_kind=filters.kind or "",
        filter_query=filters.query(),
        live_actions=_live_actions_block(filters, page.is_first),
    )
    return render(request, "tasks/activity.html", context)


def _live_actions_block(filters: ActivityFilters, is_first: bool) -> ActivityLiveActions | None:
    """The "Actions on live" block sits above the first page of the feed, whatever kind
    the feed shows, since it is the journal an owner keeps an eye on (§7 Journal); it
    follows the project filter. With ?kind=live.action the feed is that journal in full,
    and on an older page the owner reads history: no block there."""
    if not is_first or filters.kind == LIVE_ACTION:
        return None
    return activity_live_actions(filters.project)


@require_safe
def activity_rows(request: HttpRequest) -> HttpResponse:
    """`/activity/rows`: rows after an id (live) or before one (Load more)."""
    try:
        filters = parse_filters(request.GET.get("project"), request.GET.get("kind"))
        after = parse_event_id("after", request.GET.get("after"))
        before = parse_event_id("before", request.GET.get("before"))
    except InvalidField as exc:
        return refused(exc)
    if after is not None:
        return _live_rows(filters, after)
    page = activity_page(filters, before)
    return fragment(
        "tasks/partials/activity_rows.html",
        {"rows": page.rows, "page": page, "filter_query": filters.query(), "more_oob": True},
    )


def _live_rows(filters: ActivityFilters, after: int) -> HttpResponse:
    live = activity_after(filters, after)
    response = fragment(
        "tasks/partials/activity_rows.html",
        {"rows": live.rows, "newest_id": live.newest_id, "anchor_oob": True, "fresh": True},
    )
    if len(live.rows) == LIVE_MAX:
        # A burst larger than one answer: ask again at once for the rest.
        response["HX-Trigger"] = "rb-activity-changed"
    return response


@require_safe
def activity_live_actions_view(request: HttpRequest) -> HttpResponse:
    """`/activity/live-actions`: the "Actions on live" block, refetched on live.action."""
    try:
        filters = parse_filters(request.GET.get("project"), None)
    except InvalidField as exc:
        return refused(exc)
    return fragment(
        "tasks/partials/live_actions_block.html",
        {"live_actions": activity_live_actions(filters.project)},
    )


urlpatterns = [
    path("activity", activity, name="activity"),
    path("activity/rows", activity_rows, name="activity_rows"),
    path("activity/live-actions", activity_live_actions_view, name="activity_live_actions"),
]
