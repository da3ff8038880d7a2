"""Stands & access (§7): a project's environments on the board, thin over the services.

GET `environments` renders the page (environments/page.py computes it); its two live
sections, the pending proposals and the environment panels, refetch themselves from
`environments_proposals` and `environments_stands` on environment.* and policy.updated
events (the refresh table's `stands`). Each POST view parses its form (forms.py), calls one
service and answers:

- success: 303 back to the page with the one-time relaybay_flash (POST → redirect → GET,
  core/flash.py);
- a DomainError: the page again with the reason and the error's 4xx status (400 invalid,
  404 unknown, 409 decided twice), the form it came from open and holding what was typed —
  except a secret, which is never sent back;
- NeedsConfirmation (the change raises agents' access on live): a rendered confirmation page
  with status 200 listing the reasons, whose form posts the same fields again with
  confirmed=1; that confirmed POST redirects like any success. Its "Back to the form" shows
  the page with the form refilled, writing nothing.

Deleting asks first on the page itself (a <details> with a second button). Every POST needs
the board cookie and the CSRF token (the middleware) and is refused with the Bearer token
(403, @owner_only): agents propose changes with environment_propose.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST, require_safe

from core import actor, flash, tokens
from core.errors import DomainError, NotFound
from core.responses import refused
from core.security import current_token, owner_only
from environments import forms, page, services
from tasks import proposals
from tasks.selectors import get_project

BEARER_REFUSAL = (
    "Refused: Stands & access acts only for a signed-in browser (board cookie and CSRF "
    "token), not with the Bearer token. Agents propose changes with environment_propose."
)
PAGE = "environments/environments.html"
PARTIALS = {"proposals": proposals.SECTION_TEMPLATE, "stands": "environments/partials/stands.html"}
HIDDEN_SKIP = ("csrf_token", "confirmed", "back")


def _missing(request: HttpRequest, exc: NotFound) -> HttpResponse:
    return render(request, PAGE, {"missing": str(exc)}, status=404)


def _page(
    request: HttpRequest,
    slug: str,
    *,
    draft: page.Draft | None = None,
    refusal: DomainError | None = None,
    status: int = 200,
) -> HttpResponse:
    try:
        project = get_project(slug)
    except NotFound as exc:
        return flash.forget(request, _missing(request, exc))
    context = {
        **page.context(project, draft),
        "flash": flash.take(request),
        "refusal": str(refusal).splitlines() if refusal is not None else [],
        "draft_form": draft.form if draft is not None else "",
    }
    return flash.forget(request, render(request, PAGE, context, status=status))


def _draft(request: HttpRequest, error: str = "") -> page.Draft | None:
    """What the refused form shows again; page_forms masks every secret the checks find."""
    form = request.POST.get("form", "")
    return page.Draft(form, request.POST.dict(), error) if form else None


def _refused(request: HttpRequest, slug: str, exc: DomainError) -> HttpResponse:
    return _page(request, slug, draft=_draft(request, str(exc)), refusal=exc, status=exc.status)


def _done(request: HttpRequest, slug: str, message: str) -> HttpResponse:
    return flash.redirect_with(request, page.page_url(slug), flash.Flash(message))


def _confirm(
    request: HttpRequest,
    slug: str,
    exc: services.NeedsConfirmation,
    *,
    title: str,
    what: str = "",
    shown: str = "",
    back: bool = False,
) -> HttpResponse:
    """The second confirmation: why, and the same form again with confirmed=1; `back` posts
    it to the same view with back=1, which shows the page with the form refilled."""
    return proposals.confirm(
        request,
        exc,
        page.WORDS,
        action=request.path,
        fields=[(k, v) for k, v in request.POST.items() if k not in HIDDEN_SKIP],
        title=title,
        cancel_url=page.page_url(slug),
        what=what,
        shown=shown,
        back=request.path if back else "",
        project=get_project(slug),
        project_slug=slug,
    )


def _confirmed(request: HttpRequest) -> bool:
    return request.POST.get("confirmed") in ("1", "yes")


# --- reads ---------------------------------------------------------------------------------


@require_safe
def environments(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, slug)


@require_safe
def environments_part(request: HttpRequest, slug: str, part: str) -> HttpResponse:
    """One live section alone (no page frame), refetched on the `stands` events."""
    try:
        project = get_project(slug)
    except NotFound as exc:
        return refused(exc)
    # Without the page frame's context processor: no sidebar queries per refresh. The forms
    # inside still need the CSRF token.
    context = {**page.section(part, project), "csrf_token": tokens.csrf_token(current_token())}
    return HttpResponse(render_to_string(PARTIALS[part], context))


# --- environments ----------------------------------------------------------------------------


@require_POST
@owner_only(BEARER_REFUSAL)
def environment_save(request: HttpRequest, slug: str) -> HttpResponse:
    if request.POST.get("back"):  # from the confirmation page: the form again, nothing written
        return _page(request, slug, draft=_draft(request))
    try:
        change, new = forms.environment_change(request.POST)
        outcome = services.environment_save(
            project=slug, change=change, actor=actor.OWNER, confirmed=_confirmed(request), new=new
        )
    except services.NeedsConfirmation as exc:
        name = (change.new_name or change.environment).strip()
        return _confirm(
            request,
            slug,
            exc,
            title=f"Save {name}?",
            what=f"This change raises what agents may do on the live environment {name}.",
            back=True,
        )
    except DomainError as exc:
        return _refused(request, slug, exc)
    env = outcome.obj
    if outcome.notes:
        return _done(request, slug, outcome.notes[0])
    verb = "added" if outcome.created else "saved"
    return _done(request, slug, f"Environment {env.name} {verb}.")


@require_POST
@owner_only(BEARER_REFUSAL)
def environment_delete(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        outcome = services.environment_delete(
            project=slug, environment=request.POST.get("environment", ""), actor=actor.OWNER
        )
    except DomainError as exc:
        return _refused(request, slug, exc)
    return _done(request, slug, f"Environment {outcome.obj.name} deleted.")


# --- access entries --------------------------------------------------------------------------


@require_POST
@owner_only(BEARER_REFUSAL)
def access_add(request: HttpRequest, slug: str) -> HttpResponse:
    environment = request.POST.get("environment", "")
    try:
        outcome = services.access_add(
            project=slug,
            environment=environment,
            kind=request.POST.get("kind", ""),
            fields=forms.entry_fields(request.POST),
            test_secrets=forms.entry_test_secrets(request.POST),
            actor=actor.OWNER,
        )
    except DomainError as exc:
        return _refused(request, slug, exc)
    entry = outcome.obj
    return _done(request, slug, f"Access entry #{entry.id} ({entry.kind}) added to {environment}.")


@require_POST
@owner_only(BEARER_REFUSAL)
def access_update(request: HttpRequest, slug: str, entry: int) -> HttpResponse:
    try:
        outcome = services.access_update(
            entry=entry,
            fields=forms.entry_fields(request.POST),
            test_secrets=forms.entry_test_secrets(request.POST),
            actor=actor.OWNER,
        )
    except DomainError as exc:
        return _refused(request, slug, exc)
    message = outcome.notes[0] if outcome.notes else f"Access entry #{entry} saved."
    return _done(request, slug, message)


@require_POST
@owner_only(BEARER_REFUSAL)
def access_remove(request: HttpRequest, slug: str, entry: int) -> HttpResponse:
    try:
        outcome = services.access_remove(entry=entry, actor=actor.OWNER)
    except DomainError as exc:
        return _refused(request, slug, exc)
    found = outcome.obj
    return _done(request, slug, f"Access entry #{entry} ({found.kind}) removed.")


# --- proposals -----------------------------------------------------------------------------


@require_POST
@owner_only(BEARER_REFUSAL)
def environment_proposal_accept(request: HttpRequest, slug: str, proposal: int) -> HttpResponse:
    try:
        outcome = services.environment_proposal_accept(
            proposal=proposal, actor=actor.OWNER, confirmed=_confirmed(request)
        )
    except services.NeedsConfirmation as exc:
        found = page.proposal(get_project(slug), proposal)
        what = (
            f"{found.proposed_by} proposed this change of {found.subject}: {found.reason}"
            if found is not None
            else ""
        )
        return _confirm(
            request,
            slug,
            exc,
            title=f"Accept environment proposal #{proposal}?",
            what=what,
            shown=found.shown if found is not None else "",
        )
    except DomainError as exc:
        return _refused(request, slug, exc)
    found = outcome.obj
    name = found.change.get("environment", "")
    return _done(request, slug, f"Accepted environment proposal #{found.id} for {name}.")


@require_POST
@owner_only(BEARER_REFUSAL)
def environment_proposal_reject(request: HttpRequest, slug: str, proposal: int) -> HttpResponse:
    try:
        outcome = services.environment_proposal_reject(proposal=proposal, actor=actor.OWNER)
    except DomainError as exc:
        return _refused(request, slug, exc)
    found = outcome.obj
    name = found.change.get("environment", "")
    return _done(request, slug, f"Rejected environment proposal #{found.id} for {name}.")
