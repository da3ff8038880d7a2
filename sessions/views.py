"""The Sessions pages and the task dialog's Session panel (§2 Sessions, Task dialog / page).

Reads through sessions.panels / sessions.selectors; the two writes (bind, unbind) call the
same services as the MCP tools, actor board, so the board leaves the same binding history
and task.session_bound / task.session_unbound events. Routes:
- `/sessions`, `/p/<slug>/sessions`: the pages; `…/rows`: their list (live refresh);
- `/p/<slug>/t/<key>/session`: the panel fragment (live refresh);
- `/p/<slug>/t/<key>/session/bind` and `/unbind` (POST): htmx gets the panel back, a
  plain form post a 303 to the task page.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_POST, require_safe

from core import actor, flash
from core.errors import DomainError, NotFound
from core.responses import fragment, refused
from core.security import owner_only
from sessions import panels, row_html, services
from sessions.forms import parse_bind, parse_unbind
from tasks.models import Project, Task
from tasks.selectors import get_project, get_task

PAGE = "sessions/sessions.html"
LIST = "sessions/partials/session_list.html"


# --- the Sessions pages -----------------------------------------------------------------------


def _list_context(project: Project | None) -> dict[str, Any]:
    rows_url = (
        reverse("project_sessions_rows", args=[project.slug])
        if project
        else reverse("sessions_rows")
    )
    sessions = panels.session_rows(project)
    return {
        "project": project,
        "sessions": sessions,
        "rows_html": row_html.rows_html(sessions),
        "rows_url": rows_url,
        "limit": panels.SESSIONS_SHOWN,
    }


def _page(request: HttpRequest, project: Project | None) -> HttpResponse:
    context = _list_context(project)
    if project is not None:
        context["project_slug"] = project.slug
    return render(request, PAGE, context)


def _project_or_404(request: HttpRequest, slug: str) -> Project | HttpResponse:
    try:
        return get_project(slug)
    except NotFound:
        message = (
            f"There is no project “{slug}”. Agents create projects with project_upsert; "
            "All sessions lists every session."
        )
        return render(request, PAGE, {"missing": message}, status=404)


@require_safe
def sessions_page(request: HttpRequest) -> HttpResponse:
    """`/sessions`: every session, newest activity first."""
    return _page(request, None)


@require_safe
def project_sessions(request: HttpRequest, slug: str) -> HttpResponse:
    """`/p/<slug>/sessions`: the sessions its hooks placed there and those bound to its tasks."""
    project = _project_or_404(request, slug)
    if isinstance(project, HttpResponse):
        return project
    return _page(request, project)


@require_safe
def sessions_rows(request: HttpRequest) -> HttpResponse:
    return fragment(LIST, _list_context(None))


@require_safe
def project_sessions_rows(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        project = get_project(slug)
    except NotFound as exc:
        return refused(exc)
    return fragment(LIST, _list_context(project))


# --- the Session panel of a task --------------------------------------------------------------


def _task(slug: str, key: str) -> Task:
    task = get_task(key)
    if task.project.slug != (slug or "").strip().lower():
        raise NotFound(f"Task {task.key} is not in project {slug}.")
    return task


def _panel(task: Task, error: str = "", status: int = 200) -> HttpResponse:
    return fragment(panels.PANEL_TEMPLATE, panels.panel_context(task, error), status=status)


def _task_page(task: Task) -> str:
    """Where a plain form post returns: the task page, else the dialog over the board."""
    try:
        return reverse("task_page", args=[task.key])
    except NoReverseMatch:
        return reverse("board", args=[task.project.slug]) + "?" + urlencode({"task": task.key})


@require_safe
def session_panel(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """The panel, refetched on its task's binding and hook status events."""
    try:
        task = _task(slug, key)
    except NotFound as exc:
        return refused(exc)
    return _panel(task)


def _answer(request: HttpRequest, task: Task, error: DomainError | None) -> HttpResponse:
    if not request.htmx:
        if error is None:
            return HttpResponseRedirect(_task_page(task), status=303)
        return refused(error)
    # htmx swaps only 2xx answers: a refused write comes back as the fresh panel that
    # says why, so what the owner sees is never stale.
    return _panel(task, str(error) if error else "")


@require_POST
def session_bind(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """Bind the session picked in the panel (one click), like task_bind_session."""
    try:
        task = _task(slug, key)
    except NotFound as exc:
        return refused(exc)
    try:
        services.task_bind_session(
            task=task, session_id=parse_bind(request.POST), actor=actor.BOARD
        )
    except DomainError as exc:
        return _answer(request, task, exc)
    return _answer(request, task, None)


@require_POST
def session_unbind(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """Unbind the task's session (the panel asks for confirmation first)."""
    try:
        task = _task(slug, key)
    except NotFound as exc:
        return refused(exc)
    try:
        services.task_unbind_session(
            task=task, actor=actor.BOARD, reason=parse_unbind(request.POST)
        )
    except DomainError as exc:
        return _answer(request, task, exc)
    return _answer(request, task, None)


@require_POST
@owner_only(
    "Refused: dismissing a session acts only for a signed-in browser (board cookie and CSRF "
    "token), not with the Bearer token."
)
def session_dismiss(request: HttpRequest, session_id: int) -> HttpResponse:
    """The Inbox's Dismiss on a forgotten session: marked ended, back to the Inbox."""
    try:
        session = services.session_dismiss(session_id=session_id, actor=actor.OWNER)
    except NotFound as exc:
        return refused(exc)
    message = flash.Flash(f"Session {session.name} dismissed (marked ended).")
    return flash.redirect_with(request, reverse("inbox"), message)
