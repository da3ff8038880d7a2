"""The Effort page of a project: `/p/<slug>/effort`, its live region and its CSV.

Reads only (effort/page.py). The region, the table with its totals and the
charts, is the fragment static/relaybay/effort.js refetches on the project's time events and
effort.updated notices, at most once every few seconds; it keeps the page's filters.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from core.errors import NotFound
from core.responses import fragment, refused
from effort import export, page
from tasks.selectors import get_project

PAGE = "effort/effort.html"
REGION = "effort/partials/effort_region.html"


def _missing(request: HttpRequest, slug: str) -> HttpResponse:
    message = f"There is no project “{slug}”. Agents create projects with project_upsert."
    return render(request, PAGE, {"missing": message}, status=404)


@require_safe
def project_effort(request: HttpRequest, slug: str) -> HttpResponse:
    """The page: filters, the table of tasks with its totals, and the charts."""
    try:
        project = get_project(slug)
    except NotFound:
        return _missing(request, slug)
    data = page.effort_page(project, page.Filters.parse(request.GET))
    return render(request, PAGE, {"ep": data, "project": project, "project_slug": project.slug})


@require_safe
def project_effort_region(request: HttpRequest, slug: str) -> HttpResponse:
    """The live region alone, with the page's filters."""
    try:
        project = get_project(slug)
    except NotFound as exc:
        return refused(exc)
    return fragment(REGION, {"ep": page.effort_page(project, page.Filters.parse(request.GET))})


@require_safe
def project_effort_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """The rows of the same filters as CSV (every row, not only those the page shows)."""
    try:
        project = get_project(slug)
    except NotFound as exc:
        return refused(exc)
    filters = page.Filters.parse(request.GET)
    now = timezone.now()
    found = page.sorted_lines(project, filters, now)
    name = export.file_name(project.slug, filters, timezone.localdate(now))
    response = HttpResponse(export.csv_text(found), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
