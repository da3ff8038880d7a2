"""Docs & rules (§8): the project memory on the board, thin over memory/page.py.

GET `docs` renders the page: documents, decisions, notes (one live section, `docs_lists`,
refetched on document.updated, decision.added and memory.*: the refresh table's `docs`;
each list shows its first rows, `docs_list` one list with more, memory/page_lists.py),
blocks with the owner's edit forms and a "New block" form, the effective rules and the
search box (`?q=`, and `?superseded=1` from its "Include superseded" checkbox); blocks and
search results are not live, so they stay as the owner left them. GET `doc` renders one
document (`?version=` an older one) and `doc_diff` the same page with a diff between two
versions (`?from=&to=`).

The one POST, `docs_block_save`, calls memory.services.block_set as the owner: success is a
303 back to the page with the one-time flash (core/flash.py); a DomainError (a stale base
version, a body over the limit, a secret) renders the page again with the reason and the
error's status, that block's form holding what was typed. It needs the board cookie and the
CSRF token and is refused with the Bearer token (403, @owner_only).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST, require_safe

from core import actor, flash, tokens
from core.errors import DomainError, InvalidField, NotFound
from core.no_secrets import kept_typed
from core.responses import fragment, plain, refused
from core.security import current_token, owner_only
from memory import page, services
from memory.page_lists import LISTS, ListsState, one_list
from tasks.selectors import get_project

BEARER_REFUSAL = (
    "Refused: block edits on Docs & rules act only for a signed-in browser (board cookie and "
    "CSRF token), not with the Bearer token. Agents write blocks with block_set."
)
PAGE = "memory/docs.html"
DOC_PAGE = "memory/document.html"
PARTIALS = {part: f"memory/partials/{part}.html" for part in page.SECTIONS}


def _missing(request: HttpRequest, exc: NotFound, template: str = PAGE) -> HttpResponse:
    return render(request, template, {"missing": str(exc)}, status=404)


def _page(
    request: HttpRequest,
    slug: str,
    *,
    draft: page.Draft | None = None,
    status: int = 200,
) -> HttpResponse:
    try:
        project = get_project(slug)
    except NotFound as exc:
        return flash.forget(request, _missing(request, exc))
    context = {
        **page.context(
            project,
            request.GET.get("q", ""),
            draft,
            superseded=request.GET.get("superseded") in ("1", "on"),
            state=ListsState.from_query(request.GET),
        ),
        "flash": flash.take(request),
        "refusal": draft.error.splitlines() if draft is not None else [],
        "draft_anchor": draft.anchor if draft is not None else "",
    }
    return flash.forget(request, render(request, PAGE, context, status=status))


@require_safe
def docs(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, slug)


@require_safe
def docs_part(request: HttpRequest, slug: str, part: str) -> HttpResponse:
    """One live section alone (no page frame), refetched on the `docs` events."""
    try:
        project = get_project(slug)
    except NotFound as exc:
        return refused(exc)
    state = ListsState.from_query(request.GET)
    context = {
        **page.section(part, project, state),
        "csrf_token": tokens.csrf_token(current_token()),
    }
    return fragment(PARTIALS[part], context)


@require_safe
def docs_list(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    """One list's "Show N more": the list again with more rows, through the same partial,
    and the lists' state out of band, so the live refresh keeps what the reader opened."""
    try:
        project = get_project(slug)
    except NotFound as exc:
        return refused(exc)
    if name not in LISTS:
        return plain(f"Unknown list “{name}”: one of {', '.join(LISTS)}.", 404)
    state = ListsState.from_query(request.GET)
    context = {"list": one_list(project, name, state), "lists_state": state, "oob": True}
    return fragment("memory/partials/docs_list_response.html", context)


def _number(value: str | None) -> int | None:
    value = (value or "").strip()
    return int(value) if value.isdigit() else None


def _doc(
    request: HttpRequest, slug: str, name: str, diff: tuple[int, int] | None = None
) -> HttpResponse:
    try:
        project = get_project(slug)
        shown = page.doc_page(project, name, _number(request.GET.get("version")), diff)
    except NotFound as exc:
        return _missing(request, exc, DOC_PAGE)
    context = {
        "project": project,
        "project_slug": project.slug,
        "d": shown,
        "urls": {
            **page.urls(project.slug),
            "doc": page.doc_url(project.slug, shown.doc.name),
            "diff": page.diff_url(project.slug, shown.doc.name),
        },
        "showing_diff": diff is not None,
        "live_url": request.get_full_path(),
    }
    return render(request, DOC_PAGE, context)


@require_safe
def doc(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    return _doc(request, slug, name)


@require_safe
def doc_diff(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    start, end = _number(request.GET.get("from")), _number(request.GET.get("to"))
    if start is None or end is None:
        return _doc(request, slug, name)
    return _doc(request, slug, name, (start, end))


@require_POST
@owner_only(BEARER_REFUSAL)
def block_save(request: HttpRequest, slug: str) -> HttpResponse:
    post = request.POST
    scope = "global" if post.get("scope") == "global" else "project"
    label = post.get("label", "")
    try:
        limit = _number(post.get("char_limit"))
        if post.get("char_limit", "").strip() and limit is None:
            raise InvalidField("char_limit", "The limit is a whole number of characters.")
        base = _number(post.get("base_version"))
        result = services.block_set(
            label=label,
            body=post.get("body", "").replace("\r\n", "\n"),
            base_version=base if base is not None else -1,
            actor=actor.OWNER,
            project=slug if scope == "project" else None,
            description=post.get("description", ""),
            char_limit=limit,
            owner_only=post.get("owner_only") in ("1", "on", "yes"),
            as_owner=True,
        )
    except DomainError as exc:
        typed = {k: kept_typed(exc, v) if isinstance(v, str) else v for k, v in post.dict().items()}
        label = kept_typed(exc, label.strip().lower())
        draft = page.Draft(scope, label, typed, str(exc))
        return _page(request, slug, draft=draft, status=exc.status)
    block = result.block
    message = (
        f"Block {block.label} saved (version {block.version})."
        if result.changed or result.created
        else f"Block {block.label} unchanged."
    )
    return flash.redirect_with(request, page.page_url(slug), flash.Flash(message))
