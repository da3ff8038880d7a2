"""The project board `/p/<slug>` and the fragments its live updates refetch (§2).

Reads only: every write reaches the board through the services and comes back as an
event. Four routes, one set of partials:
- `/p/<slug>`: the page (with the task dialog already open for `?task=<key>`);
- `/p/<slug>/board/columns`: the columns of one board state (pager, stage tabs, search,
  archive and the live refresh after task.created / task.stage_changed);
- `/p/<slug>/board/column/<stage>`: one column of a board state, for its "Show N more";
- `/p/<slug>/card/<key>`: one card (live refresh after its other events).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.views.decorators.http import require_safe

from core.errors import NotFound
from core.responses import fragment, plain, refused
from tasks.models import Project
from tasks.selectors import get_project
from tasks.selectors.board import (
    OPEN_STAGES,
    Board,
    BoardState,
    board_data,
    card_data,
    page_of,
    query_string,
    task_in_project,
)
from tasks.templatetags.board_cards import render_card
from tasks.views import task as task_views

NAV_HEADERS = {"push": "HX-Push-Url", "replace": "HX-Replace-Url"}


@dataclass(frozen=True)
class Link:
    href: str  # the real page: works without scripts, in a new tab, after a reload
    hx: str  # the column set of the same state, which also moves the address bar


def _link(base: str, columns: str, params: dict[str, str]) -> Link:
    return Link(
        href=base + query_string(params),
        hx=columns + query_string({**params, "nav": "push"}),
    )


def _more_links(board: Board, base: str) -> dict[str, Link]:
    """Per open column with more tasks: the page, and the column alone, with more shown."""
    links = {}
    for column in board.columns:
        if column.more:
            query = query_string(board.state.state_params(**{column.stage: column.next_shown}))
            one = reverse("board_column", args=[board.project.slug, column.stage])
            links[column.stage] = Link(href=base + query, hx=one + query)
    return links


def _context(board: Board) -> dict[str, Any]:
    state = board.state
    base = reverse("board", args=[board.project.slug])
    columns = reverse("board_columns", args=[board.project.slug])
    more = _more_links(board, base)
    return {
        "board": board,
        "project": board.project,
        "project_slug": board.project.slug,
        "columns": [(c, more.get(c.stage)) for c in board.columns],
        "urls": {
            "self": base + query_string(state.state_params()),
            "columns": columns,
            "search": f"{columns}?nav=replace",
            "submit": f"{columns}?nav=push",
        },
        "pages": [
            (n, label, _link(base, columns, state.params(page=n, stage=None)), n == state.page)
            for n, label in enumerate(board.page_labels, 1)
        ],
        "state_params": list(state.state_params().items()),
        "archive_link": _link(base, columns, state.params(archived=not state.archived)),
        "tabs": [(tab, _link(base, columns, tab.params)) for tab in board.tabs],
    }


def _missing(request: HttpRequest, message: str, project: Project | None = None) -> HttpResponse:
    context = {"missing": message, "project": project}
    if project is not None:
        context["project_slug"] = project.slug
    return render(request, "tasks/board.html", context, status=404)


@require_safe
def board(request: HttpRequest, slug: str) -> HttpResponse:
    """`/p/<slug>`: the columns of one page; `?task=<key>` opens the task dialog over it."""
    try:
        project = get_project(slug)
    except NotFound:
        return _missing(
            request,
            f"There is no project “{slug}”. Agents create projects with project_upsert; "
            "All boards lists the ones that exist.",
        )
    state = BoardState.from_query(request.GET)
    task = None
    if request.GET.get("task"):
        try:
            task = task_in_project(project, request.GET["task"])
        except NotFound as exc:
            return _missing(request, str(exc), project)
        if "page" not in request.GET and "stage" not in request.GET:
            # A shared dialog link shows its task's column behind the dialog (its page on
            # wide screens, its tab on phones).
            state = BoardState(
                stage=task.stage, page=page_of(task.stage), q=state.q, archived=state.archived
            )
    context = _context(board_data(project, state))
    if task is not None:
        context.update(task_views.dialog_context(request, task))
        context["dialog_open"] = True
    return render(request, "tasks/board.html", context)


@require_safe
def columns(request: HttpRequest, slug: str) -> HttpResponse:
    """The column set of one board state; `nav=push|replace` also moves the address bar."""
    try:
        project = get_project(slug)
    except NotFound as exc:
        return refused(exc)
    board_ = board_data(project, BoardState.from_query(request.GET))
    context = _context(board_)
    context["oob"] = True
    response = fragment("tasks/partials/board_columns_response.html", context)
    header = NAV_HEADERS.get(request.GET.get("nav", ""))
    if header:
        response[header] = context["urls"]["self"]
    return response


@require_safe
def column(request: HttpRequest, slug: str, stage: str) -> HttpResponse:
    """One open column of a board state ("Show N more" swaps it whole, through the same
    card partial), and that state out of band, so the live refresh keeps it."""
    try:
        project = get_project(slug)
    except NotFound as exc:
        return refused(exc)
    if stage not in OPEN_STAGES:
        return plain(f"Unknown open stage “{stage}”: one of {', '.join(OPEN_STAGES)}.", 404)
    state = BoardState.from_query(request.GET)
    if page_of(stage) != state.page:
        state = replace(state, page=page_of(stage), stage=None)
    context = _context(board_data(project, state))
    context["column"], context["more_link"] = next(
        pair for pair in context["columns"] if pair[0].stage == stage
    )
    context["oob"] = True
    return fragment("tasks/partials/column_response.html", context)


@require_safe
def card(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """One card, rendered by the same partial as the first render."""
    try:
        project = get_project(slug)
        card_ = card_data(project, key)
    except NotFound as exc:
        return refused(exc)
    return HttpResponse(render_card(card_))


urlpatterns = [
    path("p/<str:slug>", board, name="board"),
    path("p/<str:slug>/board/columns", columns, name="board_columns"),
    path("p/<str:slug>/board/column/<str:stage>", column, name="board_column"),
    path("p/<str:slug>/card/<str:key>", card, name="board_card"),
]
