"""Board pages of the tasks app."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from tasks import selectors


def projects(request: HttpRequest) -> HttpResponse:
    """`/`: every project with its task counts per stage."""
    return render(request, "tasks/projects.html", {"projects": selectors.projects_overview()})


def projects_list(request: HttpRequest) -> HttpResponse:
    """The project list alone: the page refetches it live on project and stage events."""
    return render(
        request, "tasks/partials/projects_list.html", {"projects": selectors.projects_overview()}
    )
